import VitrineCore

/// An animation as the wire and scene files describe it, decoded.
public struct AnimationDescription: Sendable {
    public var animation: Animation
    /// Seconds after the commit at which it begins (CA's `beginTime = now + delay`);
    /// nil to begin at once, or at `beginTime` when that was given.
    public var delay: Double?
    /// The key it is added under; nil picks a unique one.
    public var key: String?

    /// The fields an animation object may have.
    public static let fields: Set<String> = [
        "type", "keyPath", "key", "from", "to", "by", "duration", "delay", "beginTime", "speed",
        "timeOffset", "repeatCount", "repeatDuration", "autoreverses", "fillMode", "timing",
        "additive", "cumulative", "removedOnCompletion", "mass", "stiffness", "damping",
        "initialVelocity", "perceptualDuration", "bounce", "values", "keyTimes",
        "timingFunctions", "calculationMode", "path", "rotationMode", "animations", "transition", "subtype", "startProgress", "endProgress",
    ]

    /// Decodes an animation object. `typeOf` gives the value type at a key path of the
    /// target layer (nil when it has no such property). A spring's mass, stiffness,
    /// damping and initial velocity that the object leaves out come from `springDefaults`
    /// (the configuration's `[animation.spring]` in the daemon; Core Animation's own by
    /// default).
    ///
    /// ```json
    /// {"type": "spring", "keyPath": "position.y", "to": 500, "damping": 17, "duration": 1}
    /// ```
    public init(json: JSON, springDefaults: Spring = .coreAnimation, typeOf: (KeyPath) -> ValueType?) throws(ProtocolError) {
        try self.init(json: json, springDefaults: springDefaults, shapeOf: { path in typeOf(path).map { ($0, nil) } })
    }

    /// Decodes an animation object as `init(json:springDefaults:typeOf:)` does, with
    /// `shapeOf` giving the type and, for arrays, the element type at a key path (as
    /// `LayerKind.valueShape(at:)` gives them): `from`, `to`, `by` and `values` are then
    /// decoded as a property's value is, so that a gradient's `["red", "blue"]` are colours,
    /// not strings.
    public init(json: JSON, springDefaults: Spring = .coreAnimation, shapeOf: (KeyPath) -> (type: ValueType, element: ValueType?)?) throws(ProtocolError) {
        try self.init(template: AnimationTemplate(json: json), springDefaults: springDefaults, shapeOf: shapeOf)
    }

    /// Completes a template for the layer `shapeOf` describes (see
    /// `init(json:springDefaults:shapeOf:)`): checks that it has the property to animate,
    /// decodes the values by the property's type and makes the spring with
    /// `springDefaults` where the template leaves parameters out.
    public init(template t: AnimationTemplate, springDefaults: Spring = .coreAnimation, shapeOf: (KeyPath) -> (type: ValueType, element: ValueType?)?)
        throws(ProtocolError)
    {
        delay = t.delay
        var shape: (type: ValueType, element: ValueType?)?
        key = t.key
        if case .transition = t.kind {
            key = t.key ?? Animation.transitionKey
        } else if case .group = t.kind {
        } else if t.keyPath == nil {
            throw AnimationTemplate.missingKeyPath(t.typeName)
        }
        if let keyPath = t.keyPath {
            shape = shapeOf(keyPath)
            guard shape != nil else {
                throw ProtocolError(
                    .unknownKeyPath(keyPath.description, layer: ""), message: "the layer has no property '\(keyPath)' to animate (set a custom property first)")
            }
        }
        func value(_ json: JSON?, _ field: String) throws(ProtocolError) -> Value? {
            try json.map { j throws(ProtocolError) in try Value(json: j, shape: shape, at: t.keyPath!.description + " (" + field + ")") }
        }
        func endpoints() throws(ProtocolError) -> Animation.Endpoints {
            Animation.Endpoints(from: try value(t.from, "from"), to: try value(t.to, "to"), by: try value(t.by, "by"))
        }
        let kind: Animation.Kind
        switch t.kind {
        case .basic:
            kind = .basic(try endpoints())
        case .spring(let parameters):
            let spring = try parameters.spring(defaults: springDefaults)
            kind = .spring(try endpoints(), spring)
        case .keyframe(let items, let keyTimes, let functions, let mode, let path, let rotation):
            var values: [Value] = []
            for (i, item) in items.enumerated() {
                values.append(try Value(json: item, shape: shape, at: "\(t.keyPath!) (values[\(i)])"))
            }
            kind = .keyframe(
                Keyframes(values: values, keyTimes: keyTimes, timingFunctions: functions, calculationMode: mode, path: path, rotationMode: rotation))
        case .group(let templates):
            var children: [Animation] = []
            for child in templates { children.append(try AnimationDescription(template: child, springDefaults: springDefaults, shapeOf: shapeOf).animation) }
            kind = .group(children)
        case .transition(let transition):
            kind = .transition(transition)
        }
        var animation = Animation(kind: kind, keyPath: t.keyPath, timing: t.timing, timingFunction: t.timingFunction)
        animation.isAdditive = t.isAdditive
        animation.isCumulative = t.isCumulative
        animation.isRemovedOnCompletion = t.isRemovedOnCompletion
        self.animation = animation
    }

    /// A timing function from a name (`"easeInEaseOut"`) or control points `[x1, y1, x2, y2]`.
    public static func timingFunction(_ json: JSON) throws(ProtocolError) -> TimingFunction {
        if let name = json.string {
            guard let f = TimingFunction.named[name] else {
                throw ProtocolError(
                    .invalidTiming("timing is one of \(TimingFunction.named.keys.sorted().joined(separator: ", ")) or [x1, y1, x2, y2], not '\(name)'"))
            }
            return f
        }
        guard let items = json.array, items.count == 4, case let v = items.compactMap(\.number), v.count == 4 else {
            throw ProtocolError(.wrongType, "timing is a name such as \"easeOut\" or four numbers [x1, y1, x2, y2]")
        }
        do { return try TimingFunction(controlPoints: v[0], v[1], v[2], v[3]) } catch { throw ProtocolError(error) }
    }
}

/// An animation object decoded as far as it can be without the layer it goes to: its
/// type, key path, timing, curve, spring and keyframe settings. `from`, `to`, `by` and
/// keyframe `values` stay JSON: their type is that of the property they animate, known
/// once the layer is (`AnimationDescription(template:springDefaults:shapeOf:)`).
public struct AnimationTemplate: Hashable, Sendable {
    /// The animation's type with its type's settings.
    public enum Kind: Hashable, Sendable {
        case basic
        case spring(SpringParameters)
        case keyframe(
            values: [JSON], keyTimes: [Double]?, timingFunctions: [TimingFunction]?, calculationMode: Keyframes.CalculationMode, path: PathData?,
            rotationMode: RotationMode?)
        case group([AnimationTemplate])
        /// A CATransition: no key path, no values.
        case transition(Transition)
    }

    /// A spring as the object gives it: a perceptual duration and bounce make the whole
    /// spring; mass, stiffness, damping and initial velocity left out come from the
    /// defaults where the animation is applied.
    public enum SpringParameters: Hashable, Sendable {
        case perceptual(Spring)
        case physical(mass: Double?, stiffness: Double?, damping: Double?, initialVelocity: Double?)

        /// The spring, with `defaults` for the parameters left out.
        public func spring(defaults: Spring) throws(ProtocolError) -> Spring {
            switch self {
            case .perceptual(let spring):
                return spring
            case .physical(let mass, let stiffness, let damping, let initialVelocity):
                do {
                    return try Spring(
                        mass: mass ?? defaults.mass, stiffness: stiffness ?? defaults.stiffness, damping: damping ?? defaults.damping,
                        initialVelocity: initialVelocity ?? defaults.initialVelocity)
                } catch { throw ProtocolError(error) }
            }
        }
    }

    public var kind: Kind
    /// nil for a group, and for a template whose key path is given where it is used.
    public var keyPath: KeyPath?
    public var key: String?
    /// Seconds after the commit at which it begins.
    public var delay: Double?
    public var timing: MediaTiming
    public var timingFunction: TimingFunction?
    public var isAdditive: Bool
    public var isCumulative: Bool
    public var isRemovedOnCompletion: Bool
    /// A basic or spring animation's endpoints, typed once the property is known.
    public var from: JSON?
    public var to: JSON?
    public var by: JSON?

    /// Decodes an animation object (`AnimationDescription.fields`); `keyPathRequired`
    /// false lets an animation other than a group leave its key path to where it is used.
    public init(json: JSON, keyPathRequired: Bool = true) throws(ProtocolError) {
        guard let o = json.object else { throw ProtocolError(.wrongType, "an animation is an object, not \(json.kindName)") }
        if let extra = o.keys.sorted().first(where: { !AnimationDescription.fields.contains($0) }) {
            throw ProtocolError(
                .unknownField, "an animation has no field '\(extra)'; the fields are \(AnimationDescription.fields.sorted().joined(separator: ", "))")
        }
        let reader = FieldReader(object: o, context: "animation")
        let type =
            try reader.string("type")
            ?? (o["values"] != nil || o["path"] != nil ? "keyframe" : o["animations"] != nil ? "group" : o["transition"] != nil ? "transition" : "basic")
        key = try reader.string("key")
        delay = try reader.number("delay")
        timing = MediaTiming()
        timing.duration = try reader.number("duration") ?? 0
        timing.beginTime = try reader.number("beginTime") ?? 0
        timing.speed = try reader.number("speed") ?? 1
        timing.timeOffset = try reader.number("timeOffset") ?? 0
        if o["repeatCount"]?.string == "infinity" { timing.repeatCount = .infinity } else { timing.repeatCount = try reader.number("repeatCount") ?? 0 }
        timing.repeatDuration = try reader.number("repeatDuration") ?? 0
        timing.autoreverses = try reader.bool("autoreverses") ?? false
        if let fill = try reader.string("fillMode") {
            guard let mode = FillMode(rawValue: fill) else {
                throw ProtocolError(.invalidValue, "fillMode is one of \(FillMode.allCases.map(\.rawValue).joined(separator: ", ")), not '\(fill)'")
            }
            timing.fillMode = mode
        }
        timingFunction = try o["timing"].map { j throws(ProtocolError) in try AnimationDescription.timingFunction(j) }

        if type == "transition" {
            if let extra = ["keyPath", "from", "to", "by", "additive", "cumulative", "values", "animations"].first(where: { o[$0] != nil }) {
                throw ProtocolError(.unknownField, "a transition has no field '\(extra)': it animates the layer's whole rendering")
            }
        } else if let extra = ["transition", "subtype", "startProgress", "endProgress"].first(where: { o[$0] != nil }) {
            throw ProtocolError(.unknownField, "'\(extra)' belongs to a transition (\"type\": \"transition\"), not to a \(type) animation")
        }
        if type != "group" && type != "transition" {
            if let path = try reader.string("keyPath") {
                do { keyPath = try KeyPath(parsing: path) } catch { throw ProtocolError(error) }
            } else if keyPathRequired {
                throw Self.missingKeyPath(type)
            }
        }
        (from, to, by) = (o["from"], o["to"], o["by"])
        switch type {
        case "basic":
            kind = .basic
        case "spring":
            if let d = try reader.number("perceptualDuration") {
                let bounce = try reader.number("bounce") ?? 0
                do { kind = .spring(.perceptual(try Spring(perceptualDuration: d, bounce: bounce))) } catch { throw ProtocolError(error) }
            } else {
                kind = .spring(
                    .physical(
                        mass: try reader.number("mass"), stiffness: try reader.number("stiffness"), damping: try reader.number("damping"),
                        initialVelocity: try reader.number("initialVelocity")))
            }
        case "keyframe":
            var path: PathData?
            if let text = try reader.string("path") {
                do throws(PathData.ParseError) {
                    path = try PathData(parsing: text)
                } catch {
                    throw ProtocolError(.invalidValue, "path is SVG path data: \(error)")
                }
            }
            let items = o["values"]?.array ?? []
            guard !items.isEmpty || path != nil else {
                throw ProtocolError(.missingField, "a keyframe animation needs \"values\": [ … ] or a \"path\"")
            }
            var mode = Keyframes.CalculationMode.linear
            if let m = try reader.string("calculationMode") {
                guard let given = Keyframes.CalculationMode(rawValue: m) else {
                    throw ProtocolError(.invalidValue, "calculationMode is one of linear, discrete, paced, cubic, cubicPaced, not '\(m)'")
                }
                mode = given
            }
            var rotation: RotationMode?
            if let r = try reader.string("rotationMode") {
                guard let given = RotationMode(rawValue: r) else { throw ProtocolError(.invalidValue, "rotationMode is auto or autoReverse, not '\(r)'") }
                rotation = given
            }
            let keyTimes = try reader.numbers("keyTimes")
            var functions: [TimingFunction]?
            if let list = o["timingFunctions"] {
                guard let items = list.array else { throw ProtocolError(.wrongType, "timingFunctions is an array of timing names or [x1, y1, x2, y2]") }
                functions = []
                for item in items { functions!.append(try AnimationDescription.timingFunction(item)) }
            }
            kind = .keyframe(values: items, keyTimes: keyTimes, timingFunctions: functions, calculationMode: mode, path: path, rotationMode: rotation)
        case "group":
            guard let items = o["animations"]?.array else { throw ProtocolError(.missingField, "a group needs \"animations\": [ … ]") }
            var children: [AnimationTemplate] = []
            for item in items { children.append(try AnimationTemplate(json: item)) }
            kind = .group(children)
        case "transition":
            let styleName = try reader.string("transition") ?? "fade", directionName = try reader.string("subtype") ?? "fromLeft"
            guard let style = Transition.Style(rawValue: styleName) else {
                throw ProtocolError(.invalidValue, "transition is one of fade, moveIn, push, reveal, not '\(styleName)'")
            }
            guard let direction = Transition.Direction(rawValue: directionName) else {
                throw ProtocolError(.invalidValue, "subtype is one of fromLeft, fromRight, fromTop, fromBottom, not '\(directionName)'")
            }
            let start = try reader.number("startProgress") ?? 0, end = try reader.number("endProgress") ?? 1
            guard (0...1).contains(start), (0...1).contains(end), start <= end else {
                throw ProtocolError(.invalidValue, "startProgress and endProgress lie within 0…1, the start not after the end (got \(start), \(end))")
            }
            kind = .transition(Transition(style, direction: direction, startProgress: start, endProgress: end))
        default:
            throw ProtocolError(.invalidValue, "animation type is one of basic, spring, keyframe, group, transition, not '\(type)'")
        }
        isAdditive = try reader.bool("additive") ?? false
        isCumulative = try reader.bool("cumulative") ?? false
        isRemovedOnCompletion = try reader.bool("removedOnCompletion") ?? true
    }

    /// The type's name on the wire.
    public var typeName: String {
        switch kind {
        case .basic: "basic"
        case .spring: "spring"
        case .keyframe: "keyframe"
        case .group: "group"
        case .transition: "transition"
        }
    }

    static func missingKeyPath(_ type: String) -> ProtocolError {
        ProtocolError(.missingField, "a \(type) animation needs a keyPath, e.g. \"position.x\"")
    }
}

/// Reads typed optional fields of a JSON object with errors that name the field.
struct FieldReader {
    let object: [String: JSON]
    let context: String

    func number(_ key: String) throws(ProtocolError) -> Double? {
        guard let j = object[key] else { return nil }
        guard let v = Value.number(j) else { throw ProtocolError(.wrongType, "\(context) field '\(key)' takes a number, not \(j.kindName)") }
        return v
    }

    func numbers(_ key: String) throws(ProtocolError) -> [Double]? {
        guard let j = object[key] else { return nil }
        guard let items = j.array, case let v = items.compactMap(\.number), v.count == items.count else {
            throw ProtocolError(.wrongType, "\(context) field '\(key)' takes an array of numbers")
        }
        return v
    }

    func string(_ key: String) throws(ProtocolError) -> String? {
        guard let j = object[key] else { return nil }
        guard let v = j.string else { throw ProtocolError(.wrongType, "\(context) field '\(key)' takes a string, not \(j.kindName)") }
        return v
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool? {
        guard let j = object[key] else { return nil }
        guard let v = j.bool else { throw ProtocolError(.wrongType, "\(context) field '\(key)' takes true or false, not \(j.kindName)") }
        return v
    }
}
