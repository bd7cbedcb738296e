import CLinuxEvents
import FoundationEssentials
import Glibc
import Logging
import SystemPackage
import VitrineOutputSet
import VitrineDecoderHelper
import VitrineImage
import VitrineProtocol
import VitrineRaster
import VitrineRender
import VitrineSystem

/// Loads layers' `contents`: only from the content roots, off the event
/// loop, into the renderer's `ImageStore`, and again when a file changes on disk.
///
/// A reference (the string a layer's `contents` holds) is resolved to its canonical path
/// (relative ones start in the scene's directory; links resolved) and must lie inside one
/// of the configured roots. Decoded images are known by the file's identity (device,
/// inode, size, modification time): every spelling of a path, and every hard link, shares
/// one image, and a file that changed is decoded again when it is set again. Its file is read (a regular file, size-capped, never a FIFO
/// or a device) and decoded by a worker (`ImageDecoder`: PNG, JPEG, WebP, GIF, SVG), at the
/// output's size until the size a layer shows it at is known, then again at that size when
/// the picture can be (`ImageStore.takeResizes`). Directories of loaded files are watched with
/// inotify: a rewritten or replaced file is decoded again and shown when it decodes; one
/// that no longer does keeps its old picture and is reported as `content.failed`.
final class ContentLoader {
    /// The canonical content roots.
    let roots: [String]
    let images: ImageStore
    /// Where relative references start.
    let directory: String
    /// The largest file read.
    static let fileLimit = ImageLimits.fileLimit
    private let outputSet: OutputSet
    private let workers: WorkerPool?
    /// Decodes in the helper processes.
    private let decoder: DecoderClient
    private let notify: (ContentLoader.Notice) -> Void
    private let logger: Logger
    /// The inotify instance, or why there is none.
    private let inotify: Result<OwnedDescriptor, Errno>
    private var inotifyFD: CInt? { try? inotify.get().rawValue }
    /// Watched directories by watch descriptor, and the other way round.
    private var watched: [CInt: String] = [:]
    private var watches: [String: CInt] = [:]
    /// References being loaded, and those whose last load failed (with the path they
    /// resolved to, retried when that path changes), so a miss is not retried every frame.
    private var loading: Set<String> = []
    private var failed: [String: String] = [:]
    /// The identity of the file each held image was decoded from, and the other way round.
    private var identities: [String: FileIdentity] = [:]
    private var heldPaths: [FileIdentity: String] = [:]

    /// A decoded file and the identity of what was read.
    struct Decoded: Sendable {
        let picture: Picture
        let identity: FileIdentity
    }

    /// What the loader says, on the loop.
    enum Notice {
        /// A picture arrived or changed: the next frame is drawn whole with it.
        case changed
        /// `reference` (at `path`) cannot be shown.
        case failed(reference: String, path: String, error: ProtocolError)
        /// The file at canonical `path` changed on disk and decoded; `old` is the picture
        /// it replaced, to fade from.
        case replaced(path: String, old: Picture)
    }

    /// A loader reading the files under `roots` (relative references start in
    /// `directory`) into `images`, decoded for the largest of `outputSet`'s outputs, by
    /// `workers` (in place without); files that change are noticed on `loop`.
    init(
        roots: [String], directory: String, images: ImageStore, outputSet: OutputSet, decoder: DecoderClient, workers: WorkerPool?, loop: EventLoop?,
        logger: Logger, notify: @escaping (Notice) -> Void
    ) {
        self.decoder = decoder
        self.roots = roots.compactMap { Self.canonical($0) }
        self.directory = directory
        self.images = images
        self.outputSet = outputSet
        self.workers = workers
        self.notify = notify
        self.logger = logger
        inotify = Result { () throws(Errno) in OwnedDescriptor(try valueOrErrno { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }) }
        for root in roots where Self.canonical(root) == nil {
            logger.debug("content root \(root) does not exist; nothing is read from it")
        }
        if let loop { attach(to: loop) }
    }

    /// Starts reading inotify events on `loop`.
    private func attach(to loop: EventLoop) {
        let fd: CInt
        switch inotify {
        case .success(let owner): fd = owner.rawValue
        case .failure(let code):
            logger.warning("inotify is unavailable (\(code)): changed content files are not shown until set again")
            return
        }
        do {
            try loop.watch(fd, for: .readable) { [unowned self] _ in readChanges() }
        } catch {
            logger.warning("changed content files are not noticed: \(error)")
        }
    }

    // MARK: Resolving

    /// The canonical path of `reference` if it is a regular file inside a content root.
    /// - Throws: `path_not_allowed` outside the roots, `content_failed` when there is no
    ///   such file or it is no regular file.
    func resolve(_ reference: String) throws(ProtocolError) -> String {
        let path = reference.hasPrefix("/") ? reference : directory + "/" + reference
        guard let canonical = Self.canonical(path) else {
            throw ProtocolError(.contentFailed, "contents '\(reference)': \(Errno.last) (\(path))")
        }
        guard roots.contains(where: { canonical == $0 || canonical.hasPrefix($0 == "/" ? "/" : $0 + "/") }) else {
            let list = roots.isEmpty ? "none exists" : roots.joined(separator: ", ")
            throw ProtocolError(
                .pathNotAllowed,
                "contents '\(reference)' is \(canonical), outside the content roots (\(list)); put the file under one of them or add its directory to [content] roots"
            )
        }
        var info = stat()
        guard stat(canonical, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw ProtocolError(.contentFailed, "contents '\(reference)' (\(canonical)) is not a regular file")
        }
        return canonical
    }

    static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    // MARK: Loading

    /// Loads every reference in `references` whose file is not held as it is on disk now;
    /// `done` gets nil once all are in the store, or the first error (none is kept then).
    /// Errors known at once (outside the roots, no such file) come before any work starts.
    func load(_ references: [String], done: @escaping (ProtocolError?) -> Void) {
        var paths: [(String, String)] = []
        do throws(ProtocolError) {
            for reference in Set(references) {
                let path = try resolve(reference)
                if let identity = FileIdentity(path: path), let held = heldPaths[identity], images.alias(reference, to: held) { continue }
                paths.append((reference, path))
            }
        } catch {
            return done(error)
        }
        guard !paths.isEmpty else { return done(nil) }
        var remaining = paths.count
        var firstError: ProtocolError?
        var loaded: [(String, String, Decoded)] = []
        for (reference, path) in paths {
            decode(reference, path) { [unowned self] result in
                switch result {
                case .success(let decoded): loaded.append((reference, path, decoded))
                case .failure(let error): firstError = firstError ?? error
                }
                remaining -= 1
                guard remaining == 0 else { return }
                if firstError == nil {
                    for (reference, path, decoded) in loaded where !keep(decoded, path: path, for: reference) {
                        firstError = budgetError(path, decoded.picture)
                        break
                    }
                }
                done(firstError)
            }
        }
    }

    /// Loads the references a frame asked for and did not find (a scene restored or read
    /// at start, an image evicted and shown again), at the size the layer asking shows
    /// them; reports those that fail. Decodes again the pictures shown at another size than
    /// they were decoded for.
    func loadMisses() {
        resize()
        for (reference, target) in images.takeMisses() where !loading.contains(reference) && failed[reference] == nil {
            let path: String
            do { path = try resolve(reference) } catch {
                fail(reference, path: reference.hasPrefix("/") ? reference : directory + "/" + reference, error)
                continue
            }
            loading.insert(reference)
            decode(reference, path, target: target) { [unowned self] result in
                loading.remove(reference)
                switch result {
                case .success(let decoded):
                    if keep(decoded, path: path, for: reference) {
                        notify(.changed)
                    } else {
                        fail(reference, path: path, budgetError(path, decoded.picture))
                    }
                case .failure(let error):
                    fail(reference, path: path, error)
                }
            }
        }
    }

    /// Decodes again, on a worker, the pictures shown at a size they should be decoded for
    /// (a JPEG shown larger than decoded, an SVG scaled); the picture held shows until the
    /// new one is kept. A failure leaves it, logged.
    private func resize() {
        for (reference, target) in images.takeResizes() where !loading.contains(reference) {
            guard let path = try? resolve(reference) else { continue }
            loading.insert(reference)
            decode(reference, path, target: target) { [unowned self] result in
                loading.remove(reference)
                switch result {
                case .success(let decoded):
                    if keep(decoded, path: path, for: reference) { notify(.changed) }
                case .failure(let error):
                    logger.info("contents '\(reference)' stays at the size it has: \(error.message)")
                }
            }
        }
    }

    /// The output's size: what a picture is decoded for before a layer shows it.
    private var outputSize: TargetSize {
        TargetSize(width: outputSet.backends.map(\.mode.width).max() ?? 0, height: outputSet.backends.map(\.mode.height).max() ?? 0)
    }

    /// Forgets failures: the references are tried again the next time they are shown.
    func retryFailures() { failed.removeAll() }

    private func keep(_ decoded: Decoded, path: String, for reference: String) -> Bool {
        guard images.store(decoded.picture, path: path, for: reference) else { return false }
        remember(decoded.identity, of: path)
        failed[reference] = nil
        watch(directoryOf: path)
        return true
    }

    private func budgetError(_ path: String, _ picture: Picture) -> ProtocolError {
        let frames = picture.frames.count > 1 ? " in \(picture.frames.count) frames" : ""
        return ProtocolError(
            .limitExceeded,
            "\(path) is \(picture.frames[0].width)×\(picture.frames[0].height)\(frames), \(picture.bytes >> 20) MB decoded; with the images on screen it does not fit limits.memory_mb (\(images.budget >> 20) MB of images, \(images.usedBytes >> 20) MB held)"
        )
    }

    private func fail(_ reference: String, path: String, _ error: ProtocolError) {
        failed[reference] = path
        watch(directoryOf: path)
        logger.warning("contents '\(reference)': \(error.message)")
        notify(.failed(reference: reference, path: path, error: error))
    }

    private func remember(_ identity: FileIdentity, of path: String) {
        if let old = identities.updateValue(identity, forKey: path) { heldPaths[old] = nil }
        heldPaths[identity] = path
    }

    /// Opens `path` on a worker (a file on a slow mount must not hold the loop up) and has
    /// the decoder helper decode it for `target`, the size a layer shows it at (nil: not
    /// known yet); `completion` on the loop.
    private func decode(_ reference: String, _ path: String, target: TargetSize? = nil, completion: @escaping (Result<Decoded, ProtocolError>) -> Void) {
        let budget = images.budget, output = outputSize
        let queued = workers.offload({ () -> Result<(CInt, FileIdentity), ProtocolError> in
            do throws(SystemError) {
                let (file, identity) = try SafeFile.open(path, limit: Self.fileLimit)
                return .success((file.release(), identity))
            } catch {
                return .failure(ProtocolError(.contentFailed, error.message))
            }
        }) { [unowned self] opened in
            switch opened {
            case .failure(let error):
                completion(.failure(error))
            case .success(let (fd, identity)):
                decoder.decode(file: OwnedDescriptor(fd), name: path, target: target, output: output, budget: budget) { result in
                    completion(result.map { Decoded(picture: $0, identity: identity) })
                }
            }
        }
        if !queued {
            completion(.failure(ProtocolError(.limitExceeded, "too many files are being read; try '\(reference)' again shortly")))
        }
    }

    // MARK: Changes on disk

    private func watch(directoryOf path: String) {
        guard let inotify = inotifyFD else { return }
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        guard watches[directory] == nil else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB)
        let wd = inotify_add_watch(inotify, directory.isEmpty ? "/" : directory, mask)
        guard wd >= 0 else { return }
        watched[wd] = directory
        watches[directory] = wd
    }

    private func readChanges() {
        guard let inotify = inotifyFD else { return }
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var changed: Set<String> = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            buffer.withUnsafeBytes { raw in
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = raw.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    let nameBytes = raw[nameStart..<min(nameStart + Int(event.len), count)].prefix { $0 != 0 }
                    if let directory = watched[event.wd], !nameBytes.isEmpty {
                        changed.insert(directory + "/" + String(decoding: nameBytes, as: UTF8.self))
                    }
                    if event.mask & UInt32(IN_IGNORED) != 0, let directory = watched.removeValue(forKey: event.wd) { watches[directory] = nil }
                    offset = nameStart + Int(event.len)
                }
            }
        }
        guard !changed.isEmpty else { return }
        for (reference, path) in failed where changed.contains(path) { failed[reference] = nil }
        for path in images.paths where changed.contains(path) { reload(path) }
    }

    /// Decodes a held file again after a change, at the size its picture was decoded for,
    /// and fades the new picture in over the old; keeps the old picture if it fails.
    private func reload(_ path: String) {
        let held = images.held(path: path)
        let target = held.flatMap { $0.scaling == .fixed ? nil : TargetSize(width: $0.frames[0].width, height: $0.frames[0].height) }
        decode(path, path, target: target) { [unowned self] result in
            switch result {
            case .success(let decoded):
                if images.replace(path: path, with: decoded.picture) {
                    if let held { notify(.replaced(path: path, old: held)) }
                    remember(decoded.identity, of: path)
                    logger.info("contents \(path) changed on disk: shown anew")
                    notify(.changed)
                }
            case .failure(let error):
                logger.warning("contents \(path) changed on disk and cannot be shown; the previous picture stays: \(error.message)")
                notify(.failed(reference: path, path: path, error: error))
            }
        }
    }
}
