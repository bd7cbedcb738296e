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
        "timingFunctions", "calculationMode", "animations",
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
        guard let o = json.object else { throw ProtocolError(.wrongType, "an animation is an object, not \(json.kindName)") }
        if let extra = o.keys.sorted().first(where: { !Self.fields.contains($0) }) {
            throw ProtocolError(.unknownField, "an animation has no field '\(extra)'; the fields are \(Self.fields.sorted().joined(separator: ", "))")
        }
        let reader = FieldReader(object: o, context: "animation")
        let type = try reader.string("type") ?? (o["values"] != nil ? "keyframe" : o["animations"] != nil ? "group" : "basic")
        key = try reader.string("key")
        delay = try reader.number("delay")
        var timing = MediaTiming()
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
        let timingFunction = try o["timing"].map { j throws(ProtocolError) in try Self.timingFunction(j) }

        var keyPath: KeyPath?
        var shape: (type: ValueType, element: ValueType?)?
        if type != "group" {
            guard let path = try reader.string("keyPath") else { throw ProtocolError(.missingField, "a \(type) animation needs a keyPath, e.g. \"position.x\"") }
            do { keyPath = try KeyPath(parsing: path) } catch { throw ProtocolError(error) }
            shape = shapeOf(keyPath!)
            guard shape != nil else {
                throw ProtocolError(.unknownKeyPath(path, layer: ""), message: "the layer has no property '\(path)' to animate (set a custom property first)")
            }
        }
        func value(_ field: String) throws(ProtocolError) -> Value? {
            try o[field].map { j throws(ProtocolError) in try Value(json: j, shape: shape, at: keyPath!.description + " (" + field + ")") }
        }
        let kind: Animation.Kind
        switch type {
        case "basic":
            kind = .basic(Animation.Endpoints(from: try value("from"), to: try value("to"), by: try value("by")))
        case "spring":
            let spring: Spring
            do {
                if let d = try reader.number("perceptualDuration") {
                    spring = try Spring(perceptualDuration: d, bounce: try reader.number("bounce") ?? 0)
                } else {
                    spring = try Spring(
                        mass: try reader.number("mass") ?? springDefaults.mass, stiffness: try reader.number("stiffness") ?? springDefaults.stiffness,
                        damping: try reader.number("damping") ?? springDefaults.damping,
                        initialVelocity: try reader.number("initialVelocity") ?? springDefaults.initialVelocity)
                }
            } catch let error as CoreError { throw ProtocolError(error) } catch let error as ProtocolError { throw error } catch { throw ProtocolError(.invalidValue, "\(error)") }
            kind = .spring(Animation.Endpoints(from: try value("from"), to: try value("to"), by: try value("by")), spring)
        case "keyframe":
            guard let items = o["values"]?.array, !items.isEmpty else { throw ProtocolError(.missingField, "a keyframe animation needs \"values\": [ … ]") }
            var values: [Value] = []
            for (i, item) in items.enumerated() {
                values.append(try Value(json: item, shape: shape, at: "\(keyPath!) (values[\(i)])"))
            }
            var modes = Keyframes.CalculationMode.linear
            if let m = try reader.string("calculationMode") {
                guard let mode = Keyframes.CalculationMode(rawValue: m) else {
                    throw ProtocolError(.invalidValue, "calculationMode is one of linear, discrete, paced, cubic, not '\(m)'")
                }
                modes = mode
            }
            let keyTimes = try reader.numbers("keyTimes")
            var functions: [TimingFunction]?
            if let list = o["timingFunctions"] {
                guard let items = list.array else { throw ProtocolError(.wrongType, "timingFunctions is an array of timing names or [x1, y1, x2, y2]") }
                functions = []
                for item in items { functions!.append(try Self.timingFunction(item)) }
            }
            kind = .keyframe(Keyframes(values: values, keyTimes: keyTimes, timingFunctions: functions, calculationMode: modes))
        case "group":
            guard let items = o["animations"]?.array else { throw ProtocolError(.missingField, "a group needs \"animations\": [ … ]") }
            var children: [Animation] = []
            for item in items { children.append(try AnimationDescription(json: item, springDefaults: springDefaults, shapeOf: shapeOf).animation) }
            kind = .group(children)
        default:
            throw ProtocolError(.invalidValue, "animation type is one of basic, spring, keyframe, group, not '\(type)'")
        }
        var animation = Animation(kind: kind, keyPath: keyPath, timing: timing, timingFunction: timingFunction)
        animation.isAdditive = try reader.bool("additive") ?? false
        animation.isCumulative = try reader.bool("cumulative") ?? false
        animation.isRemovedOnCompletion = try reader.bool("removedOnCompletion") ?? true
        self.animation = animation
    }

    /// A timing function from a name (`"easeInEaseOut"`) or control points `[x1, y1, x2, y2]`.
    public static func timingFunction(_ json: JSON) throws(ProtocolError) -> TimingFunction {
        if let name = json.string {
            guard let f = TimingFunction.named[name] else {
                throw ProtocolError(.invalidTiming("timing is one of \(TimingFunction.named.keys.sorted().joined(separator: ", ")) or [x1, y1, x2, y2], not '\(name)'"))
            }
            return f
        }
        guard let items = json.array, items.count == 4, case let v = items.compactMap(\.number), v.count == 4 else {
            throw ProtocolError(.wrongType, "timing is a name such as \"easeOut\" or four numbers [x1, y1, x2, y2]")
        }
        do { return try TimingFunction(controlPoints: v[0], v[1], v[2], v[3]) } catch { throw ProtocolError(error) }
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
