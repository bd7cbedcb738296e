import VitrineCore

/// A vector outline made of subpaths of lines and quadratic and cubic Béziers, filled with
/// the non-zero winding rule. Subpaths are implicitly closed when filled.
///
/// ```swift
/// var p = Path()
/// p.move(to: Point(x: 0, y: 0))
/// p.addLine(to: Point(x: 10, y: 0))
/// p.addQuadCurve(to: Point(x: 0, y: 10), control: Point(x: 10, y: 10))
/// p.close()
/// ```
public struct Path: Sendable, Hashable {
    /// One drawing command: `move`, `line`, `quad`, `cubic` or `close`.
    public typealias Element = PathData.Element

    /// The commands, in order.
    public private(set) var elements: [Element] = []

    /// An empty path.
    public init() {}

    public var isEmpty: Bool { elements.isEmpty }

    /// Starts a new subpath at `p`.
    public mutating func move(to p: Point) { elements.append(.move(p)) }
    /// A straight line from the current point.
    public mutating func addLine(to p: Point) { elements.append(.line(p)) }
    /// A quadratic Bézier from the current point.
    public mutating func addQuadCurve(to p: Point, control: Point) { elements.append(.quad(p, control: control)) }
    /// A cubic Bézier from the current point.
    public mutating func addCurve(to p: Point, control1: Point, control2: Point) {
        elements.append(.cubic(p, control1: control1, control2: control2))
    }
    /// Closes the subpath back to its start.
    public mutating func close() { elements.append(.close) }

    /// Appends every subpath of `other`.
    public mutating func addPath(_ other: Path) { elements += other.elements }

    /// The outline of SVG path data (a layer's `shadowPath`).
    public init(_ data: PathData) { elements = data.elements }

    /// The path with every point mapped through `t`.
    public func applying(_ t: AffineTransform) -> Path {
        var out = Path()
        out.elements = elements.map {
            switch $0 {
            case .move(let p): .move(t.apply(to: p))
            case .line(let p): .line(t.apply(to: p))
            case .quad(let p, let c): .quad(t.apply(to: p), control: t.apply(to: c))
            case .cubic(let p, let c1, let c2):
                .cubic(t.apply(to: p), control1: t.apply(to: c1), control2: t.apply(to: c2))
            case .close: .close
            }
        }
        return out
    }

    /// The bounding box of all points, control points included (`.null` when empty).
    public var controlBounds: Rect { elements.controlBounds }

    // MARK: Shapes

    /// A rectangle, clockwise on a y-down screen.
    public init(rect r: Rect) {
        guard !r.isNull else { return }
        move(to: Point(x: r.minX, y: r.minY))
        addLine(to: Point(x: r.maxX, y: r.minY))
        addLine(to: Point(x: r.maxX, y: r.maxY))
        addLine(to: Point(x: r.minX, y: r.maxY))
        close()
    }

    /// An ellipse inscribed in `r`.
    public init(ellipseIn r: Rect) {
        guard !r.isNull, r.width > 0, r.height > 0 else { return }
        let e = (r.width / 2, r.height / 2)
        self = Path.rounded(r, e, e, e, e)
    }

    /// A rounded rectangle as Core Animation draws `cornerRadius` with `maskedCorners`:
    /// each radius is clamped to half the shorter side; corners not in `corners` are square.
    ///
    /// - Parameters:
    ///   - r: The rectangle (y-down).
    ///   - radii: One radius per corner (the same for all with `CornerRadii(20)`).
    ///   - corners: The corners that are rounded.
    ///   - clockwise: Winding direction; a border's inner outline winds the other way.
    public init(roundedRect r: Rect, radii: CornerRadii, corners: MaskedCorners = .all, clockwise: Bool = true) {
        guard !r.isNull, r.width > 0, r.height > 0 else { return }
        let limit = min(r.width, r.height) / 2
        func radius(_ v: Double, _ mask: MaskedCorners) -> (Double, Double) {
            guard corners.contains(mask), v > 0 else { return (0, 0) }
            return (min(v, limit), min(v, limit))
        }
        let tl = radius(radii.minXMinY, .minXMinY), tr = radius(radii.maxXMinY, .maxXMinY)
        let br = radius(radii.maxXMaxY, .maxXMaxY), bl = radius(radii.minXMaxY, .minXMaxY)
        let p = Path.rounded(r, tl, tr, br, bl)
        self = clockwise ? p : p.reversed()
    }

    /// A rectangle with elliptical corners given as (horizontal, vertical) radii, clockwise.
    private static func rounded(
        _ r: Rect, _ tl: (Double, Double), _ tr: (Double, Double), _ br: (Double, Double), _ bl: (Double, Double)
    ) -> Path {
        let (x0, y0, x1, y1) = (r.minX, r.minY, r.maxX, r.maxY)
        // Control-point distance of a cubic approximating a quarter circle.
        let k = 0.552_284_749_830_793_4
        var p = Path()
        p.move(to: Point(x: x0 + tl.0, y: y0))
        p.addLine(to: Point(x: x1 - tr.0, y: y0))
        if tr.0 > 0 {
            p.addCurve(
                to: Point(x: x1, y: y0 + tr.1), control1: Point(x: x1 - tr.0 * (1 - k), y: y0),
                control2: Point(x: x1, y: y0 + tr.1 * (1 - k)))
        }
        p.addLine(to: Point(x: x1, y: y1 - br.1))
        if br.0 > 0 {
            p.addCurve(
                to: Point(x: x1 - br.0, y: y1), control1: Point(x: x1, y: y1 - br.1 * (1 - k)),
                control2: Point(x: x1 - br.0 * (1 - k), y: y1))
        }
        p.addLine(to: Point(x: x0 + bl.0, y: y1))
        if bl.0 > 0 {
            p.addCurve(
                to: Point(x: x0, y: y1 - bl.1), control1: Point(x: x0 + bl.0 * (1 - k), y: y1),
                control2: Point(x: x0, y: y1 - bl.1 * (1 - k)))
        }
        p.addLine(to: Point(x: x0, y: y0 + tl.1))
        if tl.0 > 0 {
            p.addCurve(
                to: Point(x: x0 + tl.0, y: y0), control1: Point(x: x0, y: y0 + tl.1 * (1 - k)),
                control2: Point(x: x0 + tl.0 * (1 - k), y: y0))
        }
        p.close()
        return p
    }

    /// A border drawn inside `r` as Core Animation draws `borderWidth`: the rounded
    /// rectangle minus the same rectangle inset by `width` with each radius reduced to
    /// `max(0, radius − width)`.
    public init(borderOf r: Rect, width: Double, radii: CornerRadii = CornerRadii(0), corners: MaskedCorners = .all) {
        self.init(roundedRect: r, radii: radii, corners: corners)
        guard width > 0 else { self = Path(); return }
        let inner = r.insetBy(dx: width, dy: width)
        guard !inner.isNull, inner.width > 0, inner.height > 0 else { return }
        func shrink(_ v: Double) -> Double { max(0, v - width) }
        let innerRadii = CornerRadii(
            minXMinY: shrink(radii.minXMinY), maxXMinY: shrink(radii.maxXMinY),
            minXMaxY: shrink(radii.minXMaxY), maxXMaxY: shrink(radii.maxXMaxY))
        addPath(Path(roundedRect: inner, radii: innerRadii, corners: corners, clockwise: false))
    }

    /// The same outline traversed backwards, subpath by subpath.
    public func reversed() -> Path {
        var out = Path()
        var start = 0
        while start < elements.count {
            guard case .move(let first) = elements[start] else { start += 1; continue }
            var end = start + 1
            while end < elements.count, !isMove(elements[end]) { end += 1 }
            var back: [Element] = []
            var current = first
            var closed = false
            for e in elements[(start + 1)..<end] {
                switch e {
                case .line(let p): back.append(.line(current)); current = p
                case .quad(let p, let c): back.append(.quad(current, control: c)); current = p
                case .cubic(let p, let c1, let c2):
                    back.append(.cubic(current, control1: c2, control2: c1)); current = p
                case .close: closed = true
                case .move: break
                }
            }
            out.move(to: current)
            out.elements += back.reversed()
            if closed { out.close() }
            start = end
        }
        return out
    }

    private func isMove(_ e: Element) -> Bool {
        if case .move = e { return true }
        return false
    }
}

/// One radius per corner, named as `CACornerMask` names them (y-down: `minY` is the top).
public struct CornerRadii: Hashable, Sendable {
    /// Radius of each corner, in layer units.
    public var minXMinY, maxXMinY, minXMaxY, maxXMaxY: Double

    public init(minXMinY: Double, maxXMinY: Double, minXMaxY: Double, maxXMaxY: Double) {
        (self.minXMinY, self.maxXMinY, self.minXMaxY, self.maxXMaxY) = (minXMinY, maxXMinY, minXMaxY, maxXMaxY)
    }

    /// The same radius at every corner.
    public init(_ radius: Double) { self.init(minXMinY: radius, maxXMinY: radius, minXMaxY: radius, maxXMaxY: radius) }

    /// The largest of the four radii.
    public var maximum: Double { max(max(minXMinY, maxXMinY), max(minXMaxY, maxXMaxY)) }
}

/// Which corners `cornerRadius` rounds (Core Animation's `maskedCorners`).
public struct MaskedCorners: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let minXMinY = MaskedCorners(rawValue: 1)
    public static let maxXMinY = MaskedCorners(rawValue: 2)
    public static let minXMaxY = MaskedCorners(rawValue: 4)
    public static let maxXMaxY = MaskedCorners(rawValue: 8)
    public static let all: MaskedCorners = [.minXMinY, .maxXMinY, .minXMaxY, .maxXMaxY]
}
