/// How the ends of an open stroke are drawn (CAShapeLayerLineCap).
public enum LineCap: String, CaseIterable, Sendable {
    /// Square, flush with the end.
    case butt
    /// A half disc past the end.
    case round
    /// Square, half the line width past the end.
    case square
}

/// How a stroke turns a corner (CAShapeLayerLineJoin).
public enum LineJoin: String, CaseIterable, Sendable {
    /// The outer edges meet in a point, cut to a bevel beyond the miter limit.
    case miter
    /// An arc around the corner.
    case round
    /// The outer corners joined by a straight line.
    case bevel
}

extension LayerKind {
    /// CAShapeLayer: `path` (SVG path data, in bounds space, not clipped to the bounds)
    /// filled with `fillColor` by `fillRule` and stroked with `strokeColor`, `lineWidth`,
    /// `lineCap`, `lineJoin`, `miterLimit` and `lineDashPattern` from `lineDashPhase`,
    /// between `strokeStart` and `strokeEnd` (fractions of the path's length).
    public static let shape = LayerKind(
        name: "shape",
        extraProperties: [
            PropertyDescriptor("path", .string(""), check: PathData.problem(in:), interpolation: .pathData),
            PropertyDescriptor("fillColor", .color(.black)),
            PropertyDescriptor("fillRule", .string("nonZero"), animatable: false, allowed: ["nonZero", "evenOdd"]),
            PropertyDescriptor("strokeColor", .color(.clear)),
            PropertyDescriptor("lineWidth", .number(1), range: 0...maximumMagnitude),
            PropertyDescriptor("lineCap", .string("butt"), animatable: false, allowed: LineCap.allCases.map(\.rawValue)),
            PropertyDescriptor("lineJoin", .string("miter"), animatable: false, allowed: LineJoin.allCases.map(\.rawValue)),
            PropertyDescriptor("miterLimit", .number(10), range: 0...maximumMagnitude),
            PropertyDescriptor("lineDashPattern", .array([]), element: .number, checkArray: ShapeStyle.dashProblem),
            PropertyDescriptor("lineDashPhase", .number(0)),
            PropertyDescriptor("strokeStart", .number(0), range: 0...1),
            PropertyDescriptor("strokeEnd", .number(1), range: 0...1),
        ],
        contentReach: ContentReach(properties: ["path", "strokeColor", "lineWidth", "lineCap", "lineJoin", "miterLimit"]) {
            ShapeStyle($0).reach
        })
}

/// A shape layer's values, decoded.
public struct ShapeStyle: Sendable {
    public var path: String
    public var fillColor: Color
    public var evenOdd: Bool
    public var strokeColor: Color
    public var lineWidth: Double
    public var lineCap: LineCap
    public var lineJoin: LineJoin
    public var miterLimit: Double
    public var dashPattern: [Double]
    public var dashPhase: Double
    public var strokeStart: Double
    public var strokeEnd: Double

    private static let first = LayerKind.shape.slot(of: "path")!

    /// The style held by the values of a shape layer.
    public init(_ v: PropertyValues) {
        let s = Self.first
        path = v[slot: s].string ?? ""
        fillColor = v[slot: s + 1].color ?? .clear
        evenOdd = v[slot: s + 2].string == "evenOdd"
        strokeColor = v[slot: s + 3].color ?? .clear
        lineWidth = max(0, v[slot: s + 4].number ?? 1)
        lineCap = LineCap(rawValue: v[slot: s + 5].string ?? "") ?? .butt
        lineJoin = LineJoin(rawValue: v[slot: s + 6].string ?? "") ?? .miter
        miterLimit = v[slot: s + 7].number ?? 10
        dashPattern = v[slot: s + 8].array?.compactMap(\.number) ?? []
        dashPhase = v[slot: s + 9].number ?? 0
        strokeStart = min(1, max(0, v[slot: s + 10].number ?? 0))
        strokeEnd = min(1, max(0, v[slot: s + 11].number ?? 1))
    }

    /// Whether the stroke draws anything.
    public var isStroked: Bool { strokeColor.alpha > 0 && lineWidth > 0 && strokeStart < strokeEnd }

    /// How far the stroke can reach from the path: half the line width, times the miter
    /// limit for miter joins, times √2 for square caps.
    public var strokeExtent: Double {
        guard isStroked else { return 0 }
        var k = 1.0
        if lineJoin == .miter { k = max(k, miterLimit) }
        if lineCap == .square { k = max(k, 2.0.squareRoot()) }
        return lineWidth / 2 * k
    }

    /// The area the fill and stroke can touch, in bounds space; nil for an empty path.
    public var reach: Rect? {
        guard !path.isEmpty, let data = try? PathData(parsing: path) else { return nil }
        let box = data.controlBounds
        guard !box.isNull else { return nil }
        let e = strokeExtent
        return box.insetBy(dx: -e, dy: -e)
    }

    /// What is wrong with a dash pattern: lengths must be ≥ 0.
    @Sendable public static func dashProblem(_ items: [Value]) -> String? {
        guard items.allSatisfy({ ($0.number ?? 0) >= 0 }) else { return "dash lengths must be 0 or more" }
        return nil
    }
}
