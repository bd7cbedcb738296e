import VitrineCore

/// Blurred shadow masks kept from one frame to the next, so that a shadow whose shape did
/// not change is blurred once however often it is repainted, and once more only when the
/// shape, its scale or rotation, its sub-pixel position or the blur radius changes.
///
/// Masks are keyed by everything the blurred coverage depends on and nothing else: the
/// shape in device units (size, radii, corners — or the path and the transform's linear
/// part), the fraction of a pixel it is offset by, and σ. The whole-pixel position is not
/// part of the key, so a card moved by whole pixels reuses its shadow. At most `capacity`
/// masks and `byteLimit` bytes are kept; the least recently used go first, and a mask
/// larger than a quarter of `byteLimit` is never kept (such a shadow is blurred only
/// where the clip needs it).
///
/// ```swift
/// let shadows = ShadowCache()
/// surface.drawShadow(shadow, of: .roundedRect(card, radii: CornerRadii(16), corners: .all),
///                    transform: t, clip: Clip(rect: damage), cache: shadows)
/// ```
///
/// One cache serves one drawing thread at a time.
public final class ShadowCache {
    /// The most masks kept.
    public let capacity: Int
    /// The most bytes of mask data kept.
    public let byteLimit: Int
    /// Lookups that found a blurred mask.
    public private(set) var hits = 0
    /// Lookups that had to rasterize and blur.
    public private(set) var misses = 0
    /// Bytes of mask data currently held.
    public private(set) var byteCount = 0

    /// What a blurred mask depends on, in device space.
    struct Key: Hashable {
        enum Shape: Hashable {
            /// An axis-aligned rounded rectangle (radius 0: a rectangle), already scaled.
            case roundedRect(width: Double, height: Double, radii: CornerRadii, corners: MaskedCorners)
            /// A path in layer space under the linear part (a, b, c, d) of its transform.
            case path(Path, a: Double, b: Double, c: Double, d: Double)
            /// Rendered content: the one mask `owner` keeps (see `contentMask`).
            case content(owner: AnyHashable)
        }
        var shape: Shape
        /// The shape's offset from whole pixels, 0 ≤ x, y < 1.
        var fractionX, fractionY: Double
        var sigma: Double
    }

    private struct Entry {
        let mask: A8Mask
        var lastUse: UInt64
        /// For rendered content: what the mask was made from.
        var content: AnyHashable?
    }

    private var entries: [Key: Entry] = [:]
    private var clock: UInt64 = 0

    /// A cache for at most `capacity` masks and `byteLimit` bytes.
    public init(capacity: Int = 64, byteLimit: Int = 16 << 20) {
        self.capacity = max(1, capacity)
        self.byteLimit = max(1, byteLimit)
    }

    /// The number of masks held.
    public var count: Int { entries.count }

    /// Drops every mask.
    public func removeAll() {
        entries.removeAll()
        byteCount = 0
    }

    /// True when a mask covering `frame` may be kept.
    public func admits(_ frame: PixelRect) -> Bool {
        !frame.isEmpty && frame.width <= 1 << 14 && frame.height <= 1 << 14
            && ((frame.width + 15) & ~15) * frame.height <= byteLimit / 4
    }

    /// The mask for `key`, made by `make` on a miss and kept.
    func mask(for key: Key, make: () -> A8Mask) -> A8Mask {
        clock &+= 1
        if let hit = entries[key] {
            hits += 1
            entries[key]!.lastUse = clock
            return hit.mask
        }
        misses += 1
        let mask = make()
        let bytes = mask.stride * mask.height
        guard bytes <= byteLimit / 4 else { return mask }
        entries[key] = Entry(mask: mask, lastUse: clock)
        byteCount += bytes
        while entries.count > capacity || byteCount > byteLimit { evictOldest() }
        return mask
    }

    /// The blurred mask of rendered content — a layer's shadow drawn from what it shows —
    /// that `owner` keeps, when it was made from `content`. Otherwise `make` is called;
    /// what it returns is kept as the owner's one mask in place of any other (a layer
    /// whose content changed has no use for the shadow of the old one), and nil drops the
    /// old one and keeps nothing. `content` must tell apart everything the mask depends
    /// on, its place included.
    public func contentMask(owner: AnyHashable, content: AnyHashable, make: () -> A8Mask?) -> A8Mask? {
        clock &+= 1
        let key = Key(shape: .content(owner: owner), fractionX: 0, fractionY: 0, sigma: 0)
        if let hit = entries[key], hit.content == content {
            hits += 1
            entries[key]!.lastUse = clock
            return hit.mask
        }
        misses += 1
        if let old = entries.removeValue(forKey: key) { byteCount -= old.mask.stride * old.mask.height }
        guard let mask = make() else { return nil }
        let bytes = mask.stride * mask.height
        guard bytes <= byteLimit / 4 else { return mask }
        entries[key] = Entry(mask: mask, lastUse: clock, content: content)
        byteCount += bytes
        while entries.count > capacity || byteCount > byteLimit { evictOldest() }
        return mask
    }

    /// Drops the least recently used mask: a scan, as the cache holds a few dozen.
    private func evictOldest() {
        guard let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return }
        byteCount -= oldest.value.mask.stride * oldest.value.mask.height
        entries[oldest.key] = nil
    }
}
