import VitrineCore
import VitrineImage
import VitrineRaster

/// Decoded images for layers' `contents`, within a byte budget.
///
/// Layers name an image by the string they were given (`contents`); the store maps each
/// such reference to a decoded file, and each file — by its canonical path, so that two
/// spellings of one path share one image — to its picture (a still, or an animation's
/// frames, every frame counted in the budget). It does no I/O of its own in the daemon: a
/// reference the renderer asks for and does not find is remembered as a miss
/// (`takeMisses`), and the daemon loads it off the frame loop and `store`s it. Programs
/// without a loop (`vitrined render`, tests) set `loader`, and misses load in place.
///
/// A picture that can be decoded at other sizes (a JPEG or still WebP decoded smaller, an
/// SVG) and is shown larger than it was decoded for (or, an SVG, much smaller) is asked
/// for again at the size shown (`takeResizes`); the one held is shown until the new one
/// arrives.
///
/// Files are evicted least recently drawn first when a new one needs the room; a file
/// drawn in the current frame is never evicted, so what is on screen stays.
public final class ImageStore {
    /// Where relative references start (for `loader`).
    public var directory: String
    /// Bytes of decoded pixels the store may hold.
    public var budget: Int
    /// Loads a reference in place for the pixel size it is shown at (nil: full size), for
    /// programs without a worker pool; nil in the daemon.
    public var loader: ((_ path: String, _ target: TargetSize?) throws -> Picture)?
    /// Why references failed to load in place, for `vitrined render` to report.
    public private(set) var failures: [String: String] = [:]
    /// Bytes of decoded pixels held.
    public private(set) var usedBytes = 0
    /// Counts changes of what references show (a file stored, replaced, aliased or
    /// evicted), so that what was drawn from images can tell it may be stale.
    public private(set) var generation = 0

    private struct File {
        var picture: Picture
        var lastUse: Int
        var references: Set<String>
        /// The size asked for again and not yet stored, so that it is asked for once.
        var pendingResize: TargetSize?
        var bytes: Int { picture.bytes }
    }

    private var files: [String: File] = [:]
    /// Reference → canonical path of its file.
    private var aliases: [String: String] = [:]
    /// References asked for and not found, with the pixel size of the layer asking (nil
    /// when its gravity does not scale the picture).
    private var misses: [String: TargetSize?] = [:]
    private var resizes: [String: TargetSize] = [:]
    /// Counts frames (`beginFrame`), for least-recently-drawn eviction.
    private var frame = 1
    /// The tree of the frame being drawn: what is on screen, read only when room is made.
    private var shown: RenderTree?

    /// A store of pictures whose relative references start in `directory`, holding at most
    /// `budget` bytes; `loader` reads a picture in place when it is first drawn (a decoder
    /// run in the calling process or a helper's), else it is a miss for the caller to load.
    public init(directory: String = ".", budget: Int = 256 << 20, loader: ((String, TargetSize?) throws -> Picture)? = nil) {
        self.directory = directory
        self.budget = budget
        self.loader = loader
    }

    /// The first frame of the picture layers that say `reference` show, or nil (and a
    /// miss, or an in-place load) when it is not loaded.
    public func image(_ reference: String) -> Surface? {
        picture(reference, shownIn: nil)?.frames[0]
    }

    /// The picture layers that say `reference` show, or nil (and a miss, or an in-place
    /// load) when it is not loaded. `shownIn` is the layer's bounds in pixels on screen
    /// and its gravity: a picture decoded for a smaller size (or an SVG for a much larger
    /// one) is asked for again at the size it is drawn at, and a miss is loaded for it.
    public func picture(_ reference: String, shownIn: (size: Size, gravity: ContentsGravity)?) -> Picture? {
        if let canonical = aliases[reference], let file = files[canonical] {
            files[canonical]!.lastUse = frame
            guard file.picture.scaling != .fixed, let shownIn, let target = Self.resize(file.picture, shownIn), target != file.pendingResize else {
                return file.picture
            }
            guard let loader else {
                files[canonical]!.pendingResize = target
                resizes[reference] = target
                return file.picture
            }
            if let resized = try? loader(canonical, target), store(resized, path: canonical, for: reference) { return resized }
            files[canonical]?.pendingResize = target
            return files[canonical]?.picture
        }
        let target = shownIn.flatMap { $0.gravity.scales ? TargetSize(covering: $0.size) : nil }
        guard let loader else {
            misses[reference] = target
            return nil
        }
        guard failures[reference] == nil else { return nil }
        let path = reference.hasPrefix("/") ? reference : directory + "/" + reference
        do {
            _ = store(try loader(path, target), path: path, for: reference)
            return files[path]?.picture
        } catch {
            failures[reference] = "\(error)"
            return nil
        }
    }

    /// The size to decode `picture` at again for where it is shown, or nil when it is
    /// good as it is: more pixels when it has fewer than shown (by more than 10 %), and for
    /// an SVG fewer when it has more than 1.25 times as many.
    static func resize(_ picture: Picture, _ shownIn: (size: Size, gravity: ContentsGravity)) -> TargetSize? {
        let natural = picture.naturalSize
        let rect = shownIn.gravity.rect(contentSize: natural, bounds: Rect(origin: .zero, size: shownIn.size))
        guard rect.width.isFinite, rect.height.isFinite, rect.width >= 1, rect.height >= 1 else { return nil }
        var needed = max(rect.width / natural.width, rect.height / natural.height)
        let have = picture.resolution
        let side = Double(ImageLimits.maximumSide) / max(natural.width, natural.height)
        switch picture.scaling {
        case .fixed: return nil
        case .upToNatural:
            needed = min(needed, 1)
            guard needed > have * 1.1 else { return nil }
        case .vector:
            needed = min(needed, side)
            guard needed > have * 1.1 || needed * 1.25 < have else { return nil }
        }
        return TargetSize(width: Int((natural.width * needed).rounded(.up)), height: Int((natural.height * needed).rounded(.up)))
    }

    /// The picture `reference` names if it is held, without marking it used or recording
    /// a miss: for the renderer's bookkeeping of animations and fades.
    public func held(_ reference: String) -> Picture? {
        aliases[reference].flatMap { files[$0]?.picture }
    }

    /// References asked for and not found since the last call, with the pixel size of the
    /// layer that asked (nil: full size).
    public func takeMisses() -> [String: TargetSize?] {
        defer { misses.removeAll() }
        return misses
    }

    /// References shown at a size their picture should be decoded again for, since the
    /// last call.
    public func takeResizes() -> [String: TargetSize] {
        defer { resizes.removeAll() }
        return resizes
    }

    /// Marks the start of a frame: the images `tree` shows are in use, and are not
    /// evicted until a later frame no longer shows them. (The tree is read only when room
    /// has to be made, not every frame.)
    public func beginFrame(_ tree: RenderTree) {
        frame += 1
        shown = tree
    }

    /// Marks the files the frame's tree shows as in use, whether drawn yet or not.
    private func markShown() {
        guard let tree = shown else { return }
        for node in tree.nodes {
            let reference = node.values.string(.contents)
            if !reference.isEmpty, let canonical = aliases[reference] { files[canonical]?.lastUse = frame }
        }
    }

    /// Keeps `picture` as the file at canonical `path`, which `reference` names, making
    /// room by evicting the least recently drawn files. Returns false, keeping nothing,
    /// when even then it does not fit the budget.
    @discardableResult
    public func store(_ picture: Picture, path: String, for reference: String) -> Bool {
        let bytes = picture.bytes
        let replaced = files[path]?.bytes ?? 0
        if usedBytes - replaced + bytes > budget { markShown() }
        while usedBytes - replaced + bytes > budget {
            // A resize that does not fit stays pending: it is not asked for again every frame.
            guard let victim = files.filter({ $0.key != path && $0.value.lastUse < frame }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else {
                return false
            }
            evict(victim)
        }
        var file = files[path] ?? File(picture: picture, lastUse: 0, references: [])
        file.picture = picture
        file.pendingResize = nil
        file.references.insert(reference)
        files[path] = file
        usedBytes += bytes - replaced
        generation &+= 1
        aliases[reference] = path
        failures[reference] = nil
        return true
    }

    /// Keeps a still `surface` as the file at `path` (`store(_:path:for:)`).
    @discardableResult
    public func store(_ surface: Surface, path: String, for reference: String) -> Bool {
        store(Picture(still: surface, format: .png), path: path, for: reference)
    }

    /// Makes `reference` name the file held at canonical `path` (another spelling of it, or
    /// a hard link); false when no such file is held.
    public func alias(_ reference: String, to path: String) -> Bool {
        guard files[path] != nil else { return false }
        files[path]?.references.insert(reference)
        aliases[reference] = path
        generation &+= 1
        return true
    }

    /// Replaces the picture of a file that changed on disk; false when it is not held or
    /// the new one does not fit.
    @discardableResult
    public func replace(path: String, with picture: Picture) -> Bool {
        guard let reference = files[path]?.references.first else { return false }
        return store(picture, path: path, for: reference)
    }

    /// The picture held for canonical `path` (a file that changed on disk is decoded again
    /// at its size).
    public func held(path: String) -> Picture? { files[path]?.picture }

    /// The references that name the file held at canonical `path`.
    public func references(of path: String) -> Set<String> { files[path]?.references ?? [] }

    /// Canonical paths of the files held.
    public var paths: [String] { Array(files.keys) }

    private func evict(_ path: String) {
        guard let file = files.removeValue(forKey: path) else { return }
        usedBytes -= file.bytes
        generation &+= 1
        for reference in file.references { aliases[reference] = nil }
    }
}

extension ContentsGravity {
    /// Whether the picture is scaled to the bounds (the resize gravities), so that the
    /// bounds' size is the size it is shown at.
    var scales: Bool { self == .resize || self == .resizeAspect || self == .resizeAspectFill }
}

extension TargetSize {
    /// The whole pixels covering `size`.
    init(covering size: Size) {
        func side(_ v: Double) -> Int { v.isFinite && v > 1 ? Int(min(1e6, v).rounded(.up)) : 1 }
        self.init(width: side(size.width), height: side(size.height))
    }
}
