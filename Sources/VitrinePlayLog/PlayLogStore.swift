import Glibc
import Logging
import Synchronization
import SystemPackage
import VitrineJSON
import VitrineProtocol
import VitrineSystem

/// The play log's files: JSON Lines in numbered segments (`playlog-000001.jsonl`, …) in
/// one directory, appended to and read by workers, never by the daemon's loop.
///
/// ```swift
/// let store = PlayLogStore(directory: "/var/lib/vitrine/playlog", limits: .init(maxBytes: 64 << 20, keepSeconds: 90 * 86_400), logger: logger)
/// try store.append([entry])          // written and fdatasync'd when it returns
/// let answer = try store.read(PlayLogQuery(from: t0, to: t1, item: "promo"))
/// ```
///
/// Each line is one entry as it was known when written: an item's first line has its
/// start, a later one its end, and the reader merges the lines of one `id`. The highest
/// segment is appended to; it is closed for a new one at `segmentBytes`, and the oldest
/// segments are removed while all of them hold more than `maxBytes`, or when their last
/// write is older than `keepSeconds`. A line cut short by a crash (no newline at the end
/// of the file) is ended before the next write and skipped by readers, with a warning.
public final class PlayLogStore: Sendable {
    /// How large and how old the log may grow.
    public struct Limits: Sendable {
        /// The segments' bytes together, at most.
        public var maxBytes: Int
        /// A segment whose last write is older than this is removed, in seconds.
        public var keepSeconds: Double

        public init(maxBytes: Int, keepSeconds: Double) {
            (self.maxBytes, self.keepSeconds) = (maxBytes, keepSeconds)
        }

        /// The size at which the current segment is closed for a new one: an eighth of
        /// the whole, at least 64 KiB.
        public var segmentBytes: Int { max(64 << 10, maxBytes / 8) }
    }

    /// What a read found.
    public struct Answer: Sendable {
        /// The entries asked for, oldest start first.
        public var entries: [PlayEntry]
        /// More entries matched than the query's limit.
        public var more: Bool
        /// Lines that are no entry (cut short by a crash, or damaged), skipped.
        public var skipped: Int
    }

    public let directory: String
    public let limits: Limits
    private let logger: Logger
    private let state: Mutex<State>

    private struct State: ~Copyable {
        /// The segment appended to, open; nil until the first append.
        var current: (number: Int, file: OwnedDescriptor, size: Int)?
        /// Every segment's number and size, oldest first; nil until first listed.
        var segments: [(number: Int, size: Int)]?
        /// The highest segment number seen: a new segment never takes a removed one's name.
        var highest = 0
        /// When segments were last checked for age (monotonic seconds).
        var lastPruned = -Double.infinity
        /// The skipped lines already warned of, as "file:line".
        var warned: Set<String> = []
    }

    /// A store in `directory` (made, mode 0700, with the directory it is in, at the first
    /// append when missing).
    public init(directory: String, limits: Limits, logger: Logger) {
        self.directory = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.limits = limits
        self.logger = logger
        state = Mutex(State())
    }

    /// The name of segment `number`.
    static func name(_ number: Int) -> String {
        let digits = String(number)
        return "playlog-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".jsonl"
    }

    /// The number of the segment named `name`; nil for any other file.
    static func number(_ name: String) -> Int? {
        guard name.hasPrefix("playlog-"), name.hasSuffix(".jsonl") else { return nil }
        return Int(name.dropFirst(8).dropLast(6)).flatMap { $0 > 0 ? $0 : nil }
    }

    // MARK: Writing

    /// Appends one line per entry and flushes them to the disk (`fdatasync`) before it
    /// returns; blocking. Rotates and prunes segments as `limits` say.
    public func append(_ entries: [PlayEntry]) throws(SystemError) {
        guard !entries.isEmpty else { return }
        var bytes: [UInt8] = []
        for entry in entries {
            JSONText.write(.object(entry.fields), to: &bytes)
            bytes.append(10)
        }
        try state.withLock { state throws(SystemError) in
            if state.segments == nil { try open(&state) }
            if let current = state.current, current.size >= limits.segmentBytes { try startSegment(state.highest + 1, &state) }
            if EventLoop.monotonicSeconds - state.lastPruned >= 3600 { prune(&state) }
            if state.current == nil { try startSegment(state.highest + 1, &state) }
            guard let current = state.current else { return }
            do { try current.file.descriptor.writeAll(bytes) } catch {
                // A part may have been written: opened again, the file gets its line ended.
                let code = Errno(thrown: error)
                (state.current, state.segments) = (nil, nil)
                throw SystemError.errno("write", path(current.number), code, advice: code == .noSpace ? "the disk is full" : "")
            }
            guard fdatasync(current.file.rawValue) == 0 else {
                let failure = SystemError.errno("flush to disk", path(current.number))
                (state.current, state.segments) = (nil, nil)
                throw failure
            }
            state.current!.size += bytes.count
            state.segments![state.segments!.count - 1].size = state.current!.size
        }
    }

    private func path(_ number: Int) -> String { directory + "/" + Self.name(number) }

    /// Makes the directory (and the one it is in) when missing, lists the segments, opens the last for appending
    /// (ending a line a crash cut short) and prunes.
    private func open(_ state: inout State) throws(SystemError) {
        let parent = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)])
        if !parent.isEmpty, mkdir(parent, 0o700) != 0, Errno.last != .fileExists { throw .errno("create the state directory", parent) }
        if mkdir(directory, 0o700) != 0, Errno.last != .fileExists { throw .errno("create the play log's directory", directory) }
        try SafeFile.checkDirectory(directory)
        state.segments = Self.list(directory)
        state.highest = state.segments?.last?.number ?? 0
        prune(&state)
        guard let last = state.segments?.last else { return }
        let fd = Glibc.open(path(last.number), O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw .errno("open", path(last.number)) }
        let file = OwnedDescriptor(fd)
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw SystemError("\(path(last.number)) is not a regular file; move it away", code: .invalidArgument)
        }
        var size = Int(info.st_size)
        var byte: UInt8 = 10
        if size > 0, pread(fd, &byte, 1, off_t(size - 1)) == 1, byte != 10 {
            logger.warning(
                "the play log's last line in \(path(last.number)) was cut short (the daemon stopped, or a write failed, in the middle of it); it is ended here and skipped when read"
            )
            guard write(fd, [10], 1) == 1 else { throw .errno("end the cut line of", path(last.number)) }
            size += 1
        }
        state.current = (last.number, file, size)
        state.segments![state.segments!.count - 1].size = size
    }

    private func startSegment(_ number: Int, _ state: inout State) throws(SystemError) {
        let fd = Glibc.open(path(number), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o640)
        guard fd >= 0 else { throw .errno("create", path(number)) }
        let directoryFD = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
        state.current = (number, OwnedDescriptor(fd), 0)
        state.segments!.append((number, 0))
        state.highest = number
        prune(&state)
    }

    /// Removes segments older than `keepSeconds` (by their last write), then the oldest
    /// while they hold more than `maxBytes`; the current one stays unless it is too old.
    private func prune(_ state: inout State) {
        state.lastPruned = EventLoop.monotonicSeconds
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let oldest = Double(now.tv_sec) - limits.keepSeconds
        var removed: [Int] = []
        for segment in state.segments ?? [] {
            var info = stat()
            if stat(path(segment.number), &info) == 0, Double(info.st_mtim.tv_sec) < oldest { removed.append(segment.number) }
        }
        var total = (state.segments ?? []).filter { !removed.contains($0.number) }.reduce(0) { $0 + $1.size }
        for segment in state.segments ?? [] where total > limits.maxBytes && !removed.contains(segment.number) {
            guard segment.number != state.current?.number else { break }
            removed.append(segment.number)
            total -= segment.size
        }
        guard !removed.isEmpty else { return }
        for number in removed {
            if unlink(path(number)) != 0, Errno.last != .noSuchFileOrDirectory {
                logger.warning("cannot remove the old play log \(path(number)): \(Errno.last)")
            }
        }
        logger.info(
            "play log: removed \(removed.count == 1 ? "1 old file" : "\(removed.count) old files") (older than \(Int(limits.keepSeconds / 86_400)) days or over \(limits.maxBytes >> 20) MiB)"
        )
        state.segments?.removeAll { removed.contains($0.number) }
        if let current = state.current, removed.contains(current.number) { state.current = nil }
    }

    /// The segments in `directory`, oldest first, with their sizes.
    static func list(_ directory: String) -> [(number: Int, size: Int)] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var found: [(number: Int, size: Int)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let number = number(name) else { continue }
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            found.append((number, Int(info.st_size)))
        }
        return found.sorted { $0.number < $1.number }
    }

    /// The bytes the segments in `directory` hold; blocking (for the metrics).
    public static func bytes(in directory: String) -> Int {
        list(directory).reduce(0) { $0 + $1.size }
    }

    // MARK: Reading

    /// The entries `query` asks for, with the lines of one item merged; blocking. Files
    /// are read without holding up writers: each up to the size its last whole write left.
    ///
    /// The files are read twice: first only the starts of the lines that match, to find
    /// the start by which `limit` entries have begun, then parsing the lines up to it, so
    /// that a query for the first few of a large log parses no more than those.
    public func read(_ query: PlayLogQuery) throws(SystemError) -> Answer {
        let snapshot = state.withLock { state in
            state.segments.map { segments in segments.map { ($0.number, $0.size) } } ?? Self.list(directory).map { ($0.number, $0.size) }
        }
        let needles = Self.needles(query)
        var starts: [Double] = []
        try scan(snapshot) { line, _ in
            if let start = Self.start(of: line), start >= query.from, start < query.to, needles.allSatisfy({ Self.find($0, in: line) }) {
                starts.append(start)
            }
            return true
        }
        var bounded = query
        let distinct = Set(starts).sorted()
        if distinct.count > query.limit { bounded.to = distinct[query.limit - 1].nextUp }
        var merged: [String: PlayEntry] = [:]
        var skipped = 0
        try scan(snapshot) { line, number in
            if let start = Self.start(of: line),
                start < bounded.from || start >= bounded.to || !needles.allSatisfy({ Self.find($0, in: line) })
            {
                return true
            }
            guard let entry = (try? JSONText.parse(line)).flatMap(PlayEntry.init(json:)) else {
                skipped += 1
                return false
            }
            merged[entry.id] = merged[entry.id].map { $0.merged(with: entry) } ?? entry
            return true
        }
        var entries = merged.values.filter(bounded.matches).sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        let more = entries.count > query.limit || bounded.to < query.to
        if entries.count > query.limit { entries.removeSubrange(query.limit...) }
        return Answer(entries: entries, more: more, skipped: skipped)
    }

    /// Calls `body` with every line of the segments in `snapshot` (up to each one's size)
    /// and its number; a line for which it returns false is warned of as no entry.
    private func scan(_ snapshot: [(Int, Int)], _ body: (UnsafeBufferPointer<UInt8>, Int) -> Bool) throws(SystemError) {
        for (number, size) in snapshot where size > 0 {
            let bytes: [UInt8]
            do { bytes = try SafeFile.read(path(number), limit: max(size, limits.segmentBytes) + (16 << 20)).bytes } catch {
                if error.code == .noSuchFileOrDirectory { continue }
                throw error
            }
            var bad: [Int] = []
            bytes.withUnsafeBufferPointer { all in
                Self.forEachLine(UnsafeBufferPointer(rebasing: all.prefix(size))) { line, index in
                    if !body(line, index) { bad.append(index) }
                }
            }
            if !bad.isEmpty { warn(about: bad, in: path(number)) }
        }
    }

    /// Calls `body` with each line of `bytes` that is not empty (without its newline; the
    /// last one too when it has none) and its number, counted from 1.
    static func forEachLine(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Int) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var start = 0
        var number = 0
        while start < bytes.count {
            let end =
                memchr(base + start, 10, bytes.count - start).map { $0.assumingMemoryBound(to: UInt8.self) - UnsafeMutablePointer(mutating: base) }
                ?? bytes.count
            number += 1
            if end > start { body(UnsafeBufferPointer(rebasing: bytes[start..<end]), number) }
            start = end + 1
        }
    }

    /// Whether `line` holds the bytes of `needle`.
    static func find(_ needle: [UInt8], in line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = needle.first, let base = line.baseAddress, needle.count <= line.count else { return needle.isEmpty }
        var at = 0
        while at + needle.count <= line.count, let hit = memchr(base + at, Int32(first), line.count - needle.count + 1 - at) {
            at = hit.assumingMemoryBound(to: UInt8.self) - UnsafeMutablePointer(mutating: base)
            if memcmp(base + at, needle, needle.count) == 0 { return true }
            at += 1
        }
        return false
    }

    /// The `start` a line written by `append` ends with (`…,"start":1796299200.5}`: keys
    /// are sorted), read without parsing the line; nil when it does not end so.
    static func start(of line: UnsafeBufferPointer<UInt8>) -> Double? {
        let key: StaticString = #""start":"#
        let count = line.count
        guard count > key.utf8CodeUnitCount + 1, line[count - 1] == UInt8(ascii: "}") else { return nil }
        var colon = count - 2
        while colon > 0, count - colon < 40, line[colon] != UInt8(ascii: ":") { colon -= 1 }
        let keyStart = colon + 1 - key.utf8CodeUnitCount
        guard line[colon] == UInt8(ascii: ":"), colon < count - 2, keyStart >= 0,
            memcmp(line.baseAddress! + keyStart, key.utf8Start, key.utf8CodeUnitCount) == 0
        else { return nil }
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &digits) { buffer -> Double? in
            let text = buffer.baseAddress!.assumingMemoryBound(to: CChar.self)
            memcpy(text, line.baseAddress! + colon + 1, count - 2 - colon)
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(text, &end)
            return end == text + (count - 2 - colon) ? value : nil
        }
    }

    /// What a line of an entry the query asks for must hold: `"item":"menu"` and so on,
    /// as `append` writes them.
    static func needles(_ query: PlayLogQuery) -> [[UInt8]] {
        [("output", query.output), ("playlist", query.playlist), ("item", query.item)].compactMap { key, value in
            guard let value else { return nil }
            var bytes = Array("\"\(key)\":".utf8)
            JSONText.write(.string(value), to: &bytes)
            return bytes
        }
    }

    private func warn(about lines: [Int], in file: String) {
        let new = state.withLock { state in lines.filter { state.warned.insert("\(file):\($0)").inserted } }
        guard !new.isEmpty else { return }
        let list = new.prefix(10).map(String.init).joined(separator: ", ") + (new.count > 10 ? ", …" : "")
        logger.warning(
            "the play log \(file) has \(new.count == 1 ? "a line" : "\(new.count) lines") that \(new.count == 1 ? "is" : "are") no entry (line \(list): cut short by a crash, or damaged); skipped"
        )
    }
}

extension PlayEntry {
    /// This entry with what `later` adds: an item's lines only ever add an end, its
    /// completion and the first frame's hash, so they merge in any order.
    public func merged(with later: PlayEntry) -> PlayEntry {
        var entry = self
        entry.end = end ?? later.end
        entry.completed = completed ?? later.completed
        entry.hash = hash ?? later.hash
        return entry
    }
}
