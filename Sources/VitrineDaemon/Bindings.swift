import VitrineCore
import VitrineProtocol

/// The bindings in force: reactions to gestures on layers and to keys, in the order they
/// were added, each with its id. Part of the scene: journaled with it, removed with their
/// layer, cleared by `scene.reset` (which adds the configured ones again).
struct BindingTable {
    /// One binding and its id.
    struct Entry {
        let id: String
        let spec: BindingSpec
        /// What it costs to hold: the size of its JSON.
        let bytes: Int
    }

    private(set) var entries: [Entry] = []
    /// Counts every change, so that the journal knows to write.
    private(set) var revision: UInt64 = 0
    /// Bindings per layer, so that a gesture on a layer without any costs a lookup.
    private var perLayer: [String: Int] = [:]
    private var keyCount = 0
    private var totalBytes = 0
    /// The last number used in a made id (`binding-N`).
    private var made = 0

    var isEmpty: Bool { entries.isEmpty }
    var count: Int { entries.count }
    /// Whether any binding reacts to keys.
    var hasKeyBindings: Bool { keyCount > 0 }

    /// Adds `spec` under its id (or a new `binding-N`) unless that would make more than
    /// `maximumCount` bindings or `maximumBytes` of them; returns the id.
    mutating func add(_ spec: BindingSpec, maximumCount: Int, maximumBytes: Int) throws(ProtocolError) -> String {
        if let id = spec.id, entries.contains(where: { $0.id == id }) {
            throw ProtocolError(
                CoreError.duplicateLayer(id), message: "a binding '\(id)' exists already; choose another id or remove it first (binding.remove)")
        }
        guard entries.count < maximumCount else {
            throw ProtocolError(
                .limitExceeded, "the scene holds its maximum of \(maximumCount) bindings (as many as limits.layers allows layers); remove some first")
        }
        let bytes = JSON.object(spec.json).text.utf8.count
        guard totalBytes + bytes <= maximumBytes else {
            throw ProtocolError(
                .limitExceeded,
                "the bindings would hold \((totalBytes + bytes) >> 10) KB of commands, over limits.scene_mb (\(maximumBytes >> 20) MB); remove some first")
        }
        let id = spec.id ?? nextID()
        entries.append(Entry(id: id, spec: spec, bytes: bytes))
        if let layer = spec.layer { perLayer[layer, default: 0] += 1 }
        if spec.trigger == .key { keyCount += 1 }
        totalBytes += bytes
        revision += 1
        return id
    }

    /// A made id no binding has.
    private mutating func nextID() -> String {
        while true {
            made += 1
            let id = "binding-\(made)"
            if !entries.contains(where: { $0.id == id }) { return id }
        }
    }

    /// Removes the bindings `remove` picks; returns their ids.
    @discardableResult
    mutating func remove(where remove: (Entry) -> Bool) -> [String] {
        var removed: [String] = []
        entries.removeAll { entry in
            guard remove(entry) else { return false }
            removed.append(entry.id)
            if let layer = entry.spec.layer {
                perLayer[layer]! -= 1
                if perLayer[layer] == 0 { perLayer[layer] = nil }
            }
            if entry.spec.trigger == .key { keyCount -= 1 }
            totalBytes -= entry.bytes
            return true
        }
        if !removed.isEmpty { revision += 1 }
        return removed
    }

    /// Removes every binding whose layer `exists` denies; returns their ids.
    mutating func prune(exists: (String) -> Bool) -> [String] {
        guard perLayer.keys.contains(where: { !exists($0) }) else { return [] }
        return remove { entry in entry.spec.layer.map { !exists($0) } ?? false }
    }

    /// Whether any binding belongs to `layer`.
    func hasBindings(on layer: String) -> Bool { perLayer[layer] != nil }

    /// The bindings of `layer` that `trigger` fires, in the order they were added.
    func matching(_ trigger: BindingSpec.Trigger, on layer: String) -> [Entry] {
        guard perLayer[layer] != nil else { return [] }
        return entries.filter { $0.spec.trigger == trigger && $0.spec.layer == layer }
    }

    /// The bindings `trigger` fires wherever they are (`idle`, `active`).
    func matching(_ trigger: BindingSpec.Trigger) -> [Entry] {
        entries.filter { $0.spec.trigger == trigger }
    }

    /// The key bindings of the keysym `name`.
    func matching(key name: String) -> [Entry] {
        guard keyCount > 0 else { return [] }
        return entries.filter { $0.spec.trigger == .key && $0.spec.key == name }
    }

    /// The bindings as `binding.list` shows them (and the journal keeps them).
    func described(layer: String? = nil) -> [JSON] {
        entries.filter { layer == nil || $0.spec.layer == layer }.map { $0.spec.described(id: $0.id) }
    }
}
