import FoundationEssentials
import Glibc
import Logging
import Synchronization
import SystemPackage
import VitrineOutputSet
import VitrineCore
import VitrineProtocol
import VitrineSceneHost
import VitrineSignage
import VitrineSystem

/// The scene journal: the whole scene in `scene.json` in the state directory, so that a
/// daemon killed in any way (SIGKILL, the OOM killer, a power cut) comes back showing it.
///
/// A change (a committed transaction, or the manual clock moving) marks the journal
/// dirty; it is written at most every `interval` seconds, one write at a time: the
/// snapshot is taken on the loop, encoded and written atomically (`SafeFile.write`: new
/// file, fsync, rename, directory fsync) by a worker. `writeFinal()` writes once more,
/// synchronously, when the daemon stops. The record holds the media time and the wall
/// clock at the snapshot, so a restored scene continues where wall-clock time says it is.
public final class SceneJournal {
    /// What one journal file holds.
    public struct Record: Sendable {
        public var scene: Scene.Snapshot
        /// The media time at the snapshot.
        public var mediaTime: Double
        /// CLOCK_REALTIME, in seconds since 1970, at the snapshot.
        public var wallClock: Double
        /// The scene host's counter for the animation keys it picks.
        public var animationKeys: Int
        /// The bindings, in the order they were added, each with its id.
        public var bindings: [BindingSpec]
        /// The playlists and schedules set over the socket (`SignageChanges.commands`).
        public var signage: [JSON] = []

        public init(scene: Scene.Snapshot, mediaTime: Double, wallClock: Double, animationKeys: Int, bindings: [BindingSpec] = [], signage: [JSON] = []) {
            (self.scene, self.mediaTime, self.wallClock, self.animationKeys) = (scene, mediaTime, wallClock, animationKeys)
            self.bindings = bindings
            self.signage = signage
        }

        /// The file's bytes: one JSON object, `{"format": 1, "mediaTime": …, "wallClock":
        /// …, "animationKeys": …, "scene": {…}}` (`Scene.Snapshot.json`), with
        /// `"bindings": […]` (as `binding.list` gives them) when there are any.
        public func encoded() -> [UInt8] {
            var object: [String: JSON] = [
                "format": .number(Double(SceneJournal.format)), "vitrine": .string(vitrineVersion), "mediaTime": .number(mediaTime),
                "wallClock": .number(wallClock), "animationKeys": .number(Double(animationKeys)), "scene": scene.json,
            ]
            if !bindings.isEmpty { object["bindings"] = .array(bindings.map { $0.described(id: $0.id ?? "") }) }
            if !signage.isEmpty { object["signage"] = .array(signage) }
            return Array(JSON.object(object).text.utf8) + [10]
        }

        /// Reads what `encoded()` writes; strict, with errors that say where.
        public init(decoding bytes: [UInt8]) throws(ProtocolError) {
            let json = try JSON(parsing: Data(bytes))
            guard let o = json.object else { throw ProtocolError(.wrongType, "the journal is a JSON object, not \(json.kindName)") }
            let known: Set = ["format", "vitrine", "mediaTime", "wallClock", "animationKeys", "scene", "bindings", "signage"]
            if let extra = o.keys.sorted().first(where: { !known.contains($0) }) { throw ProtocolError(.unknownField, "the journal has no field '\(extra)'") }
            guard o["format"] == .number(Double(SceneJournal.format)) else {
                throw ProtocolError(
                    .invalidValue, "the journal's format is \(o["format"]?.text ?? "missing"); this vitrined reads format \(SceneJournal.format)")
            }
            guard let media = o["mediaTime"]?.number, media >= 0, media <= 1e12 else {
                throw ProtocolError(.invalidValue, "mediaTime is a number of seconds within 0…1e12")
            }
            guard let wall = o["wallClock"]?.number else { throw ProtocolError(.invalidValue, "wallClock is a number of seconds") }
            guard let keys = o["animationKeys"]?.number, keys >= 0, keys < 1e15, keys == keys.rounded() else {
                throw ProtocolError(.invalidValue, "animationKeys is a whole number ≥ 0")
            }
            guard let scene = o["scene"] else { throw ProtocolError(.missingField, "the journal has no scene") }
            var bindings: [BindingSpec] = []
            for (i, item) in (o["bindings"]?.array ?? []).enumerated() {
                guard let object = item.object, object["binding"]?.string != nil else {
                    throw ProtocolError(.wrongType, "the journal's bindings[\(i)] is a binding with its id")
                }
                bindings.append(try BindingSpec(object: object, context: "the journal's bindings[\(i)]"))
            }
            guard o["signage"] == nil || o["signage"]?.array?.allSatisfy({ $0.object != nil }) == true else {
                throw ProtocolError(.wrongType, "the journal's signage is a list of playlist and schedule commands")
            }
            self.init(
                scene: try Scene.Snapshot(json: scene), mediaTime: media, wallClock: wall, animationKeys: Int(keys), bindings: bindings,
                signage: o["signage"]?.array ?? [])
        }
    }

    /// The journal's format version, `"format"` in the file.
    public static let format = 1
    /// The file's name in the state directory.
    public static let fileName = "scene.json"
    /// The shortest time between two writes, in seconds.
    public static let interval = 0.25
    /// The largest journal read back, in bytes.
    public static let sizeLimit = 256 << 20

    /// The journal file's path.
    public let path: String
    private let logger: Logger
    private let sceneHost: SceneHost
    /// The bindings in force, journaled with the scene.
    private let bindings: () -> BindingTable
    /// The playlists and schedules set over the socket, journaled with the scene.
    private let signage: () -> SignageChanges
    private let loop: EventLoop?
    private let workers: WorkerPool?
    /// The scene's and the bindings' revisions and the manual time the last snapshot saw.
    private var captured: (revision: UInt64, bindings: UInt64, time: Double, signage: Int)?
    private var dirty = false
    private var writing = false
    private var scheduled = false
    private var lastWrite = -Double.infinity
    private var sequence: UInt64 = 0
    /// The highest sequence number on disk: a write that finds a newer one there skips.
    private let onDisk = Shared()
    private var failing = false
    /// The layers left out of the journal with their trees (the identification screen's).
    var leftOut: () -> Set<String> = { [] }
    /// Journal files written, for tests and `stats`.
    public private(set) var writes = 0

    private final class Shared: Sendable {
        let written = Mutex<UInt64>(0)
    }

    /// A journal in `directory` of `sceneHost`'s scene and clock and of `bindings`,
    /// written by `workers` (in place without) at most every `interval` seconds on `loop`
    /// (only by `writeFinal` without one).
    init(
        directory: String, sceneHost: SceneHost, bindings: @escaping () -> BindingTable, signage: @escaping () -> SignageChanges = { SignageChanges() },
        loop: EventLoop?, workers: WorkerPool?, logger: Logger
    ) {
        self.signage = signage
        path = (directory.hasSuffix("/") ? String(directory.dropLast()) : directory) + "/" + Self.fileName
        self.sceneHost = sceneHost
        self.bindings = bindings
        self.loop = loop
        self.workers = workers
        self.logger = logger
    }

    /// The state directory ready for the journal (made when missing, `mustExist` aside),
    /// or why not. Leftover temporary files of writes cut short are removed.
    static func prepare(directory: String, mustExist: Bool) -> String? {
        var info = stat()
        if stat(directory, &info) != 0 {
            guard !mustExist else { return "\(directory) does not exist" }
            guard mkdir(directory, 0o700) == 0 || Errno.last == .fileExists else {
                return "cannot create \(directory): \(Errno.last)"
            }
        }
        do { try SafeFile.checkDirectory(directory) } catch { return error.message }
        if let dir = opendir(directory) {
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name.hasPrefix("." + fileName + "."), name.hasSuffix(".tmp") { unlink(directory + "/" + name) }
            }
        }
        return nil
    }

    // MARK: Reading

    /// The journal's record; nil when there is none. A file that cannot be read or
    /// decoded is moved aside (`scene.json.corrupt-TIME`) with a warning, and nil returned.
    func load() -> Record? {
        let bytes: [UInt8]
        do {
            bytes = try SafeFile.read(path, limit: Self.sizeLimit).bytes
        } catch {
            if error.code == .noSuchFileOrDirectory { return nil }
            moveAside("corrupt", because: "cannot be read (\(error.message))")
            return nil
        }
        do {
            return try Record(decoding: bytes)
        } catch {
            moveAside("corrupt", because: "is not a scene journal this vitrined reads (\(error.message))")
            return nil
        }
    }

    /// Renames the journal file `scene.json.LABEL-TIME` (whatever it is: a file, a
    /// directory, a FIFO), logging why.
    func moveAside(_ label: String, because reason: String) {
        var now = time(nil), parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        strftime(&buffer, buffer.count, "%Y%m%dT%H%M%SZ", &parts)
        let stamp = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var target = "\(path).\(label)-\(stamp)"
        var n = 1
        var info = stat()
        while lstat(target, &info) == 0 {
            n += 1
            target = "\(path).\(label)-\(stamp)-\(n)"
        }
        if rename(path, target) == 0 {
            let level: Logger.Level = label == "corrupt" ? .warning : .info
            logger.log(level: level, "scene journal \(path) \(reason); moved aside to \(target)")
        } else if Errno.last != .noSuchFileOrDirectory {
            logger.warning("scene journal \(path) \(reason), and it cannot be moved aside (\(Errno.last)); it is not used")
        }
    }

    // MARK: Writing

    /// Notes the scene's revision and the manual clock: when either changed since the
    /// last snapshot, a write is due.
    func noteChanges() {
        let stamp = self.stamp
        guard captured.map({ $0 != stamp }) ?? true else { return }
        captured = stamp
        dirty = true
        scheduleWrite()
    }

    /// Treats the scene as written: what was restored is on disk already.
    func markClean() {
        captured = stamp
        dirty = false
    }

    /// The scene's and the bindings' revisions, and the time when the clock is manual.
    private var stamp: (revision: UInt64, bindings: UInt64, time: Double, signage: Int) {
        (sceneHost.scene.revision, bindings().revision, sceneHost.clock.mode == .manual ? sceneHost.now : 0, signage().revision)
    }

    private func scheduleWrite() {
        guard dirty, !writing, !scheduled else { return }
        scheduled = true
        let wait = max(0, lastWrite + Self.interval - EventLoop.monotonicSeconds)
        loop?.schedule(after: wait) { [weak self] in
            self?.scheduled = false
            self?.writeSoon()
        }
    }

    private func writeSoon() {
        guard dirty, !writing else { return }
        let record = capture()
        dirty = false
        writing = true
        sequence += 1
        let (seq, path, onDisk) = (sequence, path, onDisk)
        let queued = workers.offload({ Self.write(record, sequence: seq, to: path, order: onDisk) }) { [weak self] failure in
            guard let self else { return }
            writing = false
            lastWrite = EventLoop.monotonicSeconds
            report(failure)
            scheduleWrite()
        }
        if !queued {
            writing = false
            dirty = true
            lastWrite = EventLoop.monotonicSeconds
            scheduleWrite()
        }
    }

    /// Writes the scene now, on this thread: at stop, after the loop has ended.
    func writeFinal() {
        sequence += 1
        report(Self.write(capture(), sequence: sequence, to: path, order: onDisk))
    }

    private func capture() -> Record {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let bindings = bindings().entries.map { entry in
            var spec = entry.spec
            spec.id = entry.id
            return spec
        }
        return Record(
            scene: sceneHost.scene.snapshot().leavingOut(leftOut()), mediaTime: sceneHost.now,
            wallClock: Double(now.tv_sec) + Double(now.tv_nsec) / 1e9, animationKeys: sceneHost.animationKeys, bindings: bindings,
            signage: signage().commands)
    }

    private func report(_ failure: String?) {
        if let failure {
            if !failing { logger.warning("cannot write the scene journal \(path): \(failure); the scene will not survive a restart until it can") }
            failing = true
        } else {
            writes += 1
            if failing { logger.info("scene journal \(path) written again") }
            failing = false
        }
    }

    /// Encodes and writes `record` unless a newer one is on disk already; the failure, or nil.
    private static func write(_ record: Record, sequence: UInt64, to path: String, order: Shared) -> String? {
        let bytes = record.encoded()
        return order.written.withLock { written -> String? in
            guard sequence > written else { return nil }
            do throws(SystemError) { try SafeFile.write(bytes, to: path, mode: 0o640) } catch { return error.message }
            written = sequence
            return nil
        }
    }
}

extension Coordinator {
    /// Opens the journal in `directory` and restores its scene; false when there is
    /// none to show (no file, a file moved aside, `fresh`), and the initial scene is due.
    func openJournal(directory: String, mustExist: Bool, fresh: Bool, loop: EventLoop?) -> Bool {
        if let problem = SceneJournal.prepare(directory: directory, mustExist: mustExist) {
            logger.log(level: mustExist ? .info : .warning, "the scene is not journaled: \(problem)")
            return false
        }
        let journal = SceneJournal(
            directory: directory, sceneHost: sceneHost, bindings: { [unowned input] in input.bindings }, signage: { [unowned self] in signageChanges },
            loop: loop, workers: workers, logger: logger)
        self.journal = journal
        if fresh {
            journal.moveAside("fresh", because: "is not restored (--fresh)")
            return false
        }
        guard let record = journal.load(), !record.holdsNothing else { return false }
        do {
            try restore(record)
        } catch {
            journal.moveAside("corrupt", because: "cannot be restored: \(error.message)")
            return false
        }
        logger.info("scene restored from \(journal.path): \(scene.layerCount - 1) layers, media time \(now)")
        journal.markClean()
        return true
    }

    /// Shows `record`'s scene, with the clock where it says: the manual clock at its
    /// media time, the real-time one at its media time plus the wall-clock time since.
    /// The trees of roots whose outputs are not here now are left out, with a warning.
    func restore(_ record: SceneJournal.Record) throws(CoreError) {
        let (snapshot, leftOut) = record.scene.keeping(roots: Set(scene.rootIDs))
        for (root, count) in leftOut.sorted(by: { $0.key < $1.key }) {
            logger.warning("the journal's root '\(root)' has no output now: \(count == 1 ? "1 layer" : "\(count) layers") under it not restored")
        }
        try scene.restore(snapshot)
        signageChanges = SignageChanges(commands: record.signage)
        sceneHost.animationKeys = max(sceneHost.animationKeys, record.animationKeys)
        input.bindings = BindingTable()
        for binding in record.bindings {
            do { _ = try input.addBinding(binding, limits: settings.limits) } catch {
                logger.warning("the journal's binding '\(binding.id ?? "")' is not restored: \(error.message)")
            }
        }
        switch clock.mode {
        case .manual:
            clock.set(record.mediaTime)
        case .realtime:
            var wall = timespec()
            clock_gettime(CLOCK_REALTIME, &wall)
            let since = Double(wall.tv_sec) + Double(wall.tv_nsec) / 1e9 - record.wallClock
            clock.resume(at: record.mediaTime + max(0, since))
        }
    }
}

extension Coordinator {
    /// `scene.reset`: removes every layer and animation (the animations stop unfinished,
    /// with their events), puts the root back as the configuration has it and shows the
    /// configured initial scene again. The journal takes the change as any other.
    func resetScene() throws(ProtocolError) -> JSON {
        let removed = scene.layerCount - scene.rootIDs.count
        var clear = Transaction(disableActions: true)
        for id in scene.rootIDs {
            for sub in try core({ () throws(CoreError) in try scene.sublayers(of: id) }) { clear.remove(layer: sub) }
            clear.operations.append(.removeAllAnimations(layer: id))
        }
        try sceneHost.commit(clear, owner: nil)
        let blank = Scene.Snapshot(layers: scene.rootIDs.map { Scene.Snapshot.LayerState(id: $0, parent: nil) })
        try core { () throws(CoreError) in try scene.restore(blank) }
        var setup = Transaction(disableActions: true)
        for head in outputSet.heads { setup.set(head.root, "backgroundColor", .color(settings.background)) }
        try sceneHost.commit(setup, owner: nil)
        input.bindings.remove { _ in true }
        do { try showInitialScene() } catch { throw ProtocolError(.invalidConfig, error.message) }
        afterReply.frame = true
        return .object(["removed": .number(Double(removed)), "layers": .number(Double(scene.layerCount - scene.rootIDs.count))])
    }
}
