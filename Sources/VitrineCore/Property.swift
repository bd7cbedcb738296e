/// Describes one property of a layer kind: its type, default and how it behaves.
public struct PropertyDescriptor: Sendable {
    public let name: String
    public let type: ValueType
    public let defaultValue: Value
    /// Animations may target it.
    public let isAnimatable: Bool
    /// A change animates implicitly (CA's default action) unless actions are disabled.
    public let hasImplicitAction: Bool
    /// For string properties that take one of a fixed set of names.
    public let allowedStrings: [String]?
    /// For numbers: the accepted range.
    public let range: ClosedRange<Double>?
    /// For numbers: only whole numbers are accepted.
    public let isInteger: Bool
    /// For arrays: the type of every element.
    public let elementType: ValueType?
    /// Other names the property answers to (a rolling number's `foregroundColor` is its
    /// `textColor`).
    public let aliases: [String]
    /// For string properties whose values are checked against more than a list (a
    /// currency code, a locale): what is wrong with a value and what to give instead, or
    /// nil when the value is acceptable.
    public let checkString: (@Sendable (String) -> String?)?
    /// For arrays: what is wrong with a list (a dash pattern with a negative length), or
    /// nil when it is acceptable.
    public let checkArray: (@Sendable ([Value]) -> String?)?
    /// How animations find the values between two of this property's.
    public let interpolation: Interpolation

    /// How animations interpolate a property.
    public enum Interpolation: Sendable {
        /// `Value.interpolate`: numbers, colours and transforms blend; strings switch halfway.
        case values
        /// Strings holding SVG path data blend point by point when their commands match
        /// (a shape's `path`), and switch halfway otherwise.
        case pathData
    }

    public init(
        _ name: String, _ defaultValue: Value, animatable: Bool = true, implicit: Bool? = nil,
        allowed: [String]? = nil, range: ClosedRange<Double>? = nil, integer: Bool = false, element: ValueType? = nil,
        aliases: [String] = [], check: (@Sendable (String) -> String?)? = nil, checkArray: (@Sendable ([Value]) -> String?)? = nil,
        interpolation: Interpolation = .values
    ) {
        self.name = name
        self.type = defaultValue.type
        self.defaultValue = defaultValue
        self.isAnimatable = animatable
        self.hasImplicitAction = implicit ?? animatable
        self.allowedStrings = allowed
        self.range = range
        self.isInteger = integer
        self.elementType = element ?? defaultValue.array?.first?.type
        self.aliases = aliases
        self.checkString = check
        self.checkArray = checkArray
        self.interpolation = interpolation
    }

    /// Throws unless `value` is acceptable for the part `path` of this property.
    func validate(_ value: Value, at path: KeyPath) throws(CoreError) {
        let isWhole = path.components.count == 1
        let expected = isWhole ? defaultValue : defaultValue.component(path.subpath)
        guard let expected else { throw .invalidKeyPath(path.description, "\(name) has no part '\(path.subpath.joined(separator: "."))'") }
        guard value.type == expected.type else {
            throw .typeMismatch(keyPath: path.description, expected: expected.type.phrase, got: value.type.phrase)
        }
        if isWhole, let element = elementType, let items = value.array, let bad = items.first(where: { $0.type != element }) {
            throw .typeMismatch(keyPath: path.description, expected: "an array of \(element)s", got: "an array holding \(bad.type.phrase)")
        }
        let limit = range.map { max(maximumMagnitude, abs($0.lowerBound), abs($0.upperBound)) } ?? maximumMagnitude
        try validateNumbers(value, at: path, limit: limit.isFinite ? limit : maximumMagnitude)
        guard isWhole else { return }
        if let allowed = allowedStrings, let s = value.string, !allowed.contains(s) {
            throw .invalidValue(keyPath: path.description, "'\(s)' is not one of \(allowed.joined(separator: ", "))")
        }
        if let check = checkString, let s = value.string, let problem = check(s) {
            throw .invalidValue(keyPath: path.description, problem)
        }
        if let check = checkArray, let items = value.array, let problem = check(items) {
            throw .invalidValue(keyPath: path.description, problem)
        }
        if let range, let v = value.number, !range.contains(v) {
            throw .invalidValue(
                keyPath: path.description, "\(v.shortDescription) is outside \(range.lowerBound.shortDescription)…\(range.upperBound.shortDescription)")
        }
        if isInteger, let v = value.number, v != v.rounded() {
            throw .invalidValue(keyPath: path.description, "\(v) is not a whole number")
        }
    }
}

/// The largest magnitude accepted for any number: beyond it a value is a mistake
/// (or an attempt to overflow the rasterizer), not a layout.
public let maximumMagnitude = 1e9

/// Throws when `value` holds NaN, an infinity or a number beyond ±`limit`.
func validateNumbers(_ value: Value, at path: KeyPath, limit: Double = maximumMagnitude) throws(CoreError) {
    guard value.isFinite else {
        throw .invalidValue(keyPath: path.description, "numbers must be finite (no NaN or infinity)")
    }
    switch value {
    case .dictionary(let d):
        for (key, v) in d { try validateNumbers(v, at: KeyPath(components: path.components + [key]), limit: limit) }
        return
    case .array(let items):
        for v in items { try validateNumbers(v, at: path, limit: limit) }
        return
    default:
        break
    }
    if !value.allComponents({ abs($0) <= limit }) {
        throw .invalidValue(keyPath: path.description, "numbers must lie within ±\(limit == maximumMagnitude ? "1e9" : limit.shortDescription)")
    }
}

extension ValueType {
    /// How error messages name the type: "a number", "a point [x, y]", …
    public var phrase: String {
        switch self {
        case .number: "a number"
        case .point: "a point [x, y]"
        case .size: "a size [width, height]"
        case .rect: "a rect [x, y, width, height]"
        case .color: "a colour (\"#rrggbb\", \"#rrggbbaa\", a CSS name or [r, g, b, a])"
        case .transform: "a transform"
        case .bool: "true or false"
        case .string: "a string"
        case .dictionary: "an object"
        case .array: "an array"
        }
    }
}

/// A kind of layer: the base CALayer properties plus the kind's own.
///
/// Kinds are values; the scene holds a registry of them by name. Other modules define
/// their kinds (text, gradient, rolling number) with `LayerKind(name:extraProperties:)`.
public struct LayerKind: Sendable {
    public let name: String
    /// All properties, the base ones first in `BaseProperty` order.
    public let properties: [PropertyDescriptor]
    let slots: [String: Int]

    /// Changes of any custom property redraw layers of this kind (their content reads
    /// custom properties, as a text template does).
    public let customPropertiesAffectDisplay: Bool

    /// Where the kind's content can draw beyond the layer's bounds (a shape's path and
    /// stroke), for damage; nil when it draws inside them.
    public let contentReach: ContentReach?

    /// The type of custom key paths the kind's content gives a meaning to before they are
    /// set (a text layer's `runs.NAME.foregroundColor` is a colour), nil for the others:
    /// a value set at such a path, or an implicit animation of it, is typed by it. An
    /// explicit animation still needs the path set first, as any custom key path.
    public let customShape: (@Sendable (KeyPath) -> ValueType?)?

    /// A kind with the base properties followed by `extraProperties`.
    public init(
        name: String, extraProperties: [PropertyDescriptor] = [], customPropertiesAffectDisplay: Bool = false, contentReach: ContentReach? = nil,
        customShape: (@Sendable (KeyPath) -> ValueType?)? = nil
    ) {
        self.name = name
        self.customShape = customShape
        self.customPropertiesAffectDisplay = customPropertiesAffectDisplay
        self.contentReach = contentReach
        properties = BaseProperty.descriptors + extraProperties
        var slots: [String: Int] = [:]
        for (i, p) in properties.enumerated() {
            slots[p.name] = i
            for alias in p.aliases where slots[alias] == nil { slots[alias] = i }
        }
        self.slots = slots
    }

    /// The plain layer.
    public static let layer = LayerKind(name: "layer")

    /// The slot of the property `name` in a layer's value array.
    public func slot(of name: String) -> Int? { slots[name] }
}

/// Where a kind's content can draw, in bounds space, as a function of some of its own
/// properties.
public struct ContentReach: Sendable {
    /// The names of the properties the area depends on.
    public let properties: [String]
    /// The area (bounds space) that values can draw in; nil for none beyond the bounds.
    public let area: @Sendable (PropertyValues) -> Rect?

    public init(properties: [String], area: @escaping @Sendable (PropertyValues) -> Rect?) {
        self.properties = properties
        self.area = area
    }
}

/// Core Animation's layer properties, by slot. Defaults are CALayer's.
public enum BaseProperty: Int, CaseIterable, Sendable {
    case bounds, position, anchorPoint, zPosition, transform, sublayerTransform
    case opacity, hidden, backgroundColor, cornerRadius, maskedCorners, borderWidth, borderColor
    case masksToBounds, shadowColor, shadowOpacity, shadowOffset, shadowRadius, shadowPath
    case contents, contentsGravity, contentsRect, contentsCenter, contentsScale, allowsGroupOpacity
    /// CALayer.mask: the id of a layer outside the tree whose composited alpha clips this
    /// one; "" for none.
    case mask
    /// UIView's isUserInteractionEnabled: false makes hit testing pass over the layer and
    /// its sublayers.
    case userInteractionEnabled
    /// CALayer.doubleSided: false leaves the layer and its sublayers out while it faces
    /// away from its parent's plane (its bounds appear mirrored there, turned past 90°).
    case doubleSided
    /// CALayer.shouldRasterize: true draws the layer and its sublayers once into a bitmap
    /// that is composited while only their place or opacity changes (a panel that slides).
    /// The bitmap is placed on whole pixels while the layer's transform to the screen
    /// is a translation; otherwise the layer is drawn as usual.
    case shouldRasterize
    case beginTime, speed, timeOffset, duration, repeatCount, repeatDuration, autoreverses, fillMode

    /// The slot index.
    @inline(__always) public var slot: Int { rawValue }

    /// CA's contentsGravity names.
    public static let gravities = [
        "center", "top", "bottom", "left", "right", "topLeft", "topRight", "bottomLeft",
        "bottomRight", "resize", "resizeAspect", "resizeAspectFill",
    ]

    static let descriptors: [PropertyDescriptor] = allCases.map(\.descriptor)

    var descriptor: PropertyDescriptor {
        let name = String(describing: self)
        switch self {
        case .bounds: return .init(name, .rect(.zero))
        case .position: return .init(name, .point(.zero))
        case .anchorPoint: return .init(name, .point(Point(x: 0.5, y: 0.5)))
        case .zPosition: return .init(name, .number(0))
        case .transform, .sublayerTransform: return .init(name, .transform(.identity))
        case .opacity: return .init(name, .number(1), range: 0...1)
        case .hidden: return .init(name, .bool(false))
        case .backgroundColor: return .init(name, .color(.clear))
        case .cornerRadius: return .init(name, .number(0), range: 0...maximumMagnitude)
        case .maskedCorners: return .init(name, .number(15), animatable: false, range: 0...15, integer: true)
        case .borderWidth: return .init(name, .number(0), range: 0...maximumMagnitude)
        case .borderColor, .shadowColor: return .init(name, .color(.black))
        case .masksToBounds: return .init(name, .bool(false), animatable: false)
        case .shadowOpacity: return .init(name, .number(0), range: 0...1)
        case .shadowOffset: return .init(name, .size(Size(width: 0, height: -3)))
        case .shadowRadius: return .init(name, .number(3), range: 0...10_000)
        case .shadowPath: return .init(name, .string(""), animatable: false, check: PathData.problem(in:))
        case .contents, .mask: return .init(name, .string(""), animatable: false)
        case .contentsGravity: return .init(name, .string("resize"), animatable: false, allowed: Self.gravities)
        case .contentsRect, .contentsCenter: return .init(name, .rect(Rect(x: 0, y: 0, width: 1, height: 1)))
        case .contentsScale: return .init(name, .number(1), range: 0.01...1000)
        case .allowsGroupOpacity: return .init(name, .bool(true), animatable: false)
        case .userInteractionEnabled: return .init(name, .bool(true), animatable: false)
        case .doubleSided: return .init(name, .bool(true), animatable: false)
        case .shouldRasterize: return .init(name, .bool(false), animatable: false)
        case .beginTime, .timeOffset: return .init(name, .number(0), animatable: false)
        case .speed: return .init(name, .number(1), animatable: false, range: -1000...1000)
        case .duration, .repeatDuration: return .init(name, .number(0), animatable: false, range: 0...maximumMagnitude)
        case .repeatCount: return .init(name, .number(0), animatable: false, range: 0...maximumMagnitude)
        case .autoreverses: return .init(name, .bool(false), animatable: false)
        case .fillMode: return .init(name, .string("removed"), animatable: false, allowed: FillMode.allCases.map(\.rawValue))
        }
    }
}

extension LayerKind {
    /// The type of the value at `keyPath` for a built-in property of this kind (or a part
    /// of one); nil for custom keys.
    public func valueType(at keyPath: KeyPath) -> ValueType? {
        valueShape(at: keyPath)?.type
    }

    /// The type (and for arrays the element type) a value at `keyPath` must have, for a
    /// built-in property or a part of one; nil for custom keys.
    public func valueShape(at keyPath: KeyPath) -> (type: ValueType, element: ValueType?)? {
        guard let slot = slot(of: keyPath.property) else { return nil }
        let descriptor = properties[slot]
        guard let part = descriptor.defaultValue.component(keyPath.subpath) else { return nil }
        return (part.type, keyPath.components.count == 1 ? descriptor.elementType : nil)
    }
}

extension LayerKind {
    /// CAGradientLayer: `colors` drawn along `startPoint` → `endPoint` (unit coordinates of
    /// the bounds) at `locations` (evenly spaced when empty); `type` axial, radial or conic.
    public static let gradient = LayerKind(
        name: "gradient",
        extraProperties: [
            PropertyDescriptor("colors", .array([]), element: .color),
            PropertyDescriptor("locations", .array([]), element: .number),
            PropertyDescriptor("startPoint", .point(Point(x: 0.5, y: 0))),
            PropertyDescriptor("endPoint", .point(Point(x: 0.5, y: 1))),
            PropertyDescriptor("type", .string("axial"), animatable: false, allowed: ["axial", "radial", "conic"]),
        ])
}
