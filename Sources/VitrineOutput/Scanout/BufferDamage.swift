import VitrineRaster

/// What each scan-out buffer lacks: the damage of every frame presented since the buffer
/// was last written. Copying it (and only it) makes the buffer equal the rendered picture.
///
/// A new buffer lacks everything. Rectangles inside another are dropped; past
/// `maximumRects` a buffer's list collapses into one bounding rectangle, which copies a
/// little more but keeps the bookkeeping small.
public struct BufferDamage: Sendable {
    private var pending: [[PixelRect]]
    private let bounds: PixelRect
    public let maximumRects: Int

    public init(buffers: Int, bounds: PixelRect, maximumRects: Int = 16) {
        self.bounds = bounds
        self.maximumRects = maximumRects
        pending = Array(repeating: [bounds], count: buffers)
    }

    /// A frame changed `damage`: every buffer now lacks it.
    public mutating func add(_ damage: [PixelRect]) {
        let clipped = damage.map { $0.intersection(bounds) }.filter { !$0.isEmpty }
        for i in pending.indices {
            var list = pending[i]
            for r in clipped where !list.contains(where: { $0.contains(r) }) {
                list.removeAll { r.contains($0) }
                list.append(r)
            }
            if list.count > maximumRects {
                list = [list.dropFirst().reduce(list[0]) { $0.union($1) }]
            }
            pending[i] = list
        }
    }

    /// Every buffer lacks everything (its contents were lost, e.g. after a VT switch).
    public mutating func invalidateAll() {
        for i in pending.indices { pending[i] = [bounds] }
    }

    /// What buffer `index` lacks.
    public func missing(in index: Int) -> [PixelRect] { pending[index] }

    /// Buffer `index` was brought up to date.
    public mutating func written(_ index: Int) { pending[index] = [] }
}

extension PixelRect {
    /// Whether every pixel of `other` is in this rectangle.
    func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }
}
