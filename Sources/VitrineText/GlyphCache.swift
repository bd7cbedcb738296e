/// Rasterized glyph masks (colour glyphs with their premultiplied pixels, counted in the
/// same byte bound), kept in least-recently-used order and bounded in count and in bytes,
/// keyed by (face, size in 1/64 px, glyph, subpixel x offset in 1/4 px).
///
/// The same key returns the same `GlyphMask` object while it stays cached.
public final class GlyphCache {
    /// Horizontal positions are quantized to this many steps per pixel.
    public static let subpixelSteps = 4

    /// The most masks kept.
    public let capacity: Int
    /// The most bytes of mask data kept.
    public let byteLimit: Int
    /// How outlines are fitted before rendering.
    public let hinting: GlyphHinting

    /// Lookups that found a cached mask.
    public private(set) var hits = 0
    /// Lookups that had to render.
    public private(set) var misses = 0
    /// Bytes of mask data currently held.
    public private(set) var byteCount = 0

    /// What identifies one rendered mask.
    public struct Key: Hashable, Sendable {
        public var faceID: Int
        public var size64: Int
        public var glyph: UInt32
        public var subpixel: Int

        public init(faceID: Int, size64: Int, glyph: UInt32, subpixel: Int) {
            (self.faceID, self.size64, self.glyph, self.subpixel) = (faceID, size64, glyph, subpixel)
        }
    }

    private struct Node {
        var key: Key
        var mask: GlyphMask
        var newer: Int
        var older: Int
    }

    private var nodes: [Node] = []
    private var slots: [Key: Int] = [:]
    private var free: [Int] = []
    private var newest = -1
    private var oldest = -1

    /// A cache for at most `capacity` masks and `byteLimit` bytes.
    public init(capacity: Int = 4096, byteLimit: Int = 32 << 20, hinting: GlyphHinting = .light) {
        self.capacity = max(1, capacity)
        self.byteLimit = max(1, byteLimit)
        self.hinting = hinting
    }

    /// The number of masks held.
    public var count: Int { slots.count }

    /// The mask of `glyph` of `face` at `size64`/64 px, shifted by `subpixel` quarter
    /// pixels (clamped to 0…3), rendering it on a miss.
    public func mask(face: FontFace, size64: Int, glyph: UInt32, subpixel: Int) -> GlyphMask {
        let subpixel = min(max(subpixel, 0), Self.subpixelSteps - 1)
        let key = Key(faceID: face.id, size64: size64, glyph: glyph, subpixel: subpixel)
        if let slot = slots[key] {
            hits += 1
            touch(slot)
            return nodes[slot].mask
        }
        misses += 1
        let mask = face.renderMask(
            glyph: glyph, size64: size64, subpixel: subpixel, hinting: hinting, maximumColorBytes: byteLimit / 4)
        insert(key, mask)
        return mask
    }

    /// The cached mask for `key`, without rendering or changing the LRU order.
    public func cachedMask(for key: Key) -> GlyphMask? {
        slots[key].map { nodes[$0].mask }
    }

    /// Drops every mask.
    public func removeAll() {
        nodes.removeAll()
        slots.removeAll()
        free.removeAll()
        (newest, oldest, byteCount) = (-1, -1, 0)
    }

    private func insert(_ key: Key, _ mask: GlyphMask) {
        let node = Node(key: key, mask: mask, newer: -1, older: newest)
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if newest >= 0 { nodes[newest].newer = slot }
        newest = slot
        if oldest < 0 { oldest = slot }
        slots[key] = slot
        byteCount += mask.byteCount
        while slots.count > 1 && (slots.count > capacity || byteCount > byteLimit) { evictOldest() }
    }

    private func touch(_ slot: Int) {
        guard slot != newest else { return }
        unlink(slot)
        nodes[slot].older = newest
        nodes[slot].newer = -1
        nodes[newest].newer = slot
        newest = slot
        if oldest < 0 { oldest = slot }
    }

    private func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if newer >= 0 { nodes[newer].older = older } else { newest = older }
        if older >= 0 { nodes[older].newer = newer } else { oldest = newer }
    }

    private func evictOldest() {
        let slot = oldest
        unlink(slot)
        slots[nodes[slot].key] = nil
        byteCount -= nodes[slot].mask.byteCount
        nodes[slot].mask = .empty
        free.append(slot)
    }
}
