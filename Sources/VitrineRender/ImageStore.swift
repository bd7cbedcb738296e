import VitrineCore
import VitrineRaster

/// Decoded images for layers' `contents`, within a byte budget.
///
/// Layers name an image by the string they were given (`contents`); the store maps each
/// such reference to a decoded file, and each file — by its canonical path, so that two
/// spellings of one path share one image — to its pixels. It does no I/O of its own in the
/// daemon: a reference the renderer asks for and does not find is remembered as a miss
/// (`takeMisses`), and the daemon loads it off the frame loop and `store`s it. Programs
/// without a loop (`vitrined render`, tests) set `loader`, and misses load in place.
///
/// Files are evicted least recently drawn first when a new one needs the room; a file
/// drawn in the current frame is never evicted, so what is on screen stays.
public final class ImageStore {
    /// Where relative references start (for `loader`).
    public var directory: String
    /// Bytes of decoded pixels the store may hold.
    public var budget: Int
    /// Loads a reference in place, for programs without a worker pool; nil in the daemon.
    public var loader: ((_ path: String) throws -> Surface)?
    /// Why references failed to load in place, for `vitrined render` to report.
    public private(set) var failures: [String: String] = [:]
    /// Bytes of decoded pixels held.
    public private(set) var usedBytes = 0

    private struct File {
        var surface: Surface
        var lastUse: Int
        var references: Set<String>
        var bytes: Int { surface.width * surface.height * 4 }
    }

    private var files: [String: File] = [:]
    /// Reference → canonical path of its file.
    private var aliases: [String: String] = [:]
    private var misses: Set<String> = []
    /// Counts frames (`beginFrame`), for least-recently-drawn eviction.
    private var frame = 1
    /// The tree of the frame being drawn: what is on screen, read only when room is made.
    private var shown: RenderTree?

    public init(directory: String = ".", budget: Int = 256 << 20, loader: ((String) throws -> Surface)? = ImageStore.readPNG) {
        self.directory = directory
        self.budget = budget
        self.loader = loader
    }

    /// Reads a PNG file in place: the default loader of programs without a loop.
    public static func readPNG(_ path: String) throws -> Surface { try Surface(contentsOfPNG: path) }

    /// The image layers that say `reference` show, or nil (and a miss, or an in-place
    /// load) when it is not loaded.
    public func image(_ reference: String) -> Surface? {
        if let canonical = aliases[reference], let file = files[canonical] {
            files[canonical]?.lastUse = frame
            return file.surface
        }
        guard let loader else {
            misses.insert(reference)
            return nil
        }
        guard failures[reference] == nil else { return nil }
        let path = reference.hasPrefix("/") ? reference : directory + "/" + reference
        do {
            _ = store(try loader(path), path: path, for: reference)
            return files[path]?.surface
        } catch {
            failures[reference] = "\(error)"
            return nil
        }
    }

    /// References asked for and not found since the last call.
    public func takeMisses() -> Set<String> {
        defer { misses.removeAll() }
        return misses
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

    /// Keeps `surface` as the file at canonical `path`, which `reference` names, making
    /// room by evicting the least recently drawn files. Returns false, keeping nothing,
    /// when even then it does not fit the budget.
    @discardableResult
    public func store(_ surface: Surface, path: String, for reference: String) -> Bool {
        let bytes = surface.width * surface.height * 4
        let replaced = files[path]?.bytes ?? 0
        if usedBytes - replaced + bytes > budget { markShown() }
        while usedBytes - replaced + bytes > budget {
            guard let victim = files.filter({ $0.key != path && $0.value.lastUse < frame }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key else {
                return false
            }
            evict(victim)
        }
        var file = files[path] ?? File(surface: surface, lastUse: 0, references: [])
        file.surface = surface
        file.references.insert(reference)
        files[path] = file
        usedBytes += bytes - replaced
        aliases[reference] = path
        failures[reference] = nil
        return true
    }

    /// Makes `reference` name the file held at canonical `path` (another spelling of it, or
    /// a hard link); false when no such file is held.
    public func alias(_ reference: String, to path: String) -> Bool {
        guard files[path] != nil else { return false }
        files[path]?.references.insert(reference)
        aliases[reference] = path
        return true
    }

    /// Replaces the pixels of a file that changed on disk; false when it is not held or
    /// the new pixels do not fit.
    @discardableResult
    public func replace(path: String, with surface: Surface) -> Bool {
        guard let reference = files[path]?.references.first else { return false }
        return store(surface, path: path, for: reference)
    }

    /// Canonical paths of the files held.
    public var paths: [String] { Array(files.keys) }

    private func evict(_ path: String) {
        guard let file = files.removeValue(forKey: path) else { return }
        usedBytes -= file.bytes
        for reference in file.references { aliases[reference] = nil }
    }
}
