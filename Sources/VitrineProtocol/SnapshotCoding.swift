import VitrineCore

/// A scene snapshot as JSON: the body of the daemon's scene journal.
///
/// ```json
/// {"nextAnimation": 7, "nextTransaction": 12, "layers": [
///   {"id": "root", "kind": "layer", "properties": {"backgroundColor": {"color": [0, 0, 0, 1]}}},
///   {"id": "wipe", "kind": "layer", "detached": true},
///   {"id": "title", "kind": "text", "parent": "root",
///    "properties": {"string": "Hello", "position": {"point": [640, 80]}},
///    "animations": [{"id": 6, "key": "opacity", "transaction": 11, "started": true, "finished": false,
///                    "animation": {"type": "basic", "keyPath": "opacity", "from": 0, "to": 1,
///                                  "timing": {"beginTime": 3.5, "duration": 0.25, …}}}]}]}
/// ```
///
/// Unlike the wire's values, every value names its type (`{"point": [x, y]}`, `{"color":
/// [r, g, b, a]}`; numbers, booleans and strings as they are), so that custom properties
/// keep their types and colours their exact components: a restored scene draws the same
/// pixels. Decoding is strict — unknown fields, missing fields and wrong types are errors
/// that name where they are (`layers[3].animations[0].timing.speed`).
extension Scene.Snapshot {
    /// The snapshot as JSON.
    public var json: JSON {
        .object([
            "nextAnimation": .number(Double(nextAnimationID)), "nextTransaction": .number(Double(nextTransactionID)),
            "layers": .array(layers.map(Self.json)),
        ])
    }

    /// Decodes `json` as `json` writes it.
    public init(json: JSON) throws(ProtocolError) {
        let r = try StrictObject(json, at: "scene", fields: ["nextAnimation", "nextTransaction", "layers"])
        var layers: [LayerState] = []
        for (i, item) in try r.array("layers").enumerated() {
            layers.append(try Self.layer(item, at: "scene.layers[\(i)]"))
        }
        self.init(layers: layers, nextAnimationID: try r.count("nextAnimation"), nextTransactionID: try r.count("nextTransaction"))
    }

    private static func json(_ layer: LayerState) -> JSON {
        var o: [String: JSON] = ["id": .string(layer.id), "kind": .string(layer.kind)]
        if let parent = layer.parent { o["parent"] = .string(parent) }
        if layer.isDetached { o["detached"] = .bool(true) }
        if !layer.properties.isEmpty { o["properties"] = .object(layer.properties.mapValues(\.taggedJSON)) }
        if !layer.custom.isEmpty { o["custom"] = .object(layer.custom.mapValues(\.taggedJSON)) }
        if !layer.actions.isEmpty {
            o["actions"] = .object(
                layer.actions.mapValues { rule in
                    switch rule {
                    case .none: .null
                    case .animation(let a): a.journalJSON
                    }
                })
        }
        if let from = layer.actionsFrom { o["actionsFrom"] = .string(from) }
        if layer.actionPolicy != .implicit { o["policy"] = .string(layer.actionPolicy.rawValue) }
        if !layer.displayKeys.isEmpty { o["displayKeys"] = .array(layer.displayKeys.sorted().map(JSON.string)) }
        if !layer.animations.isEmpty {
            o["animations"] = .array(
                layer.animations.map { a in
                    var fields: [String: JSON] = [
                        "id": .number(Double(a.id)), "key": .string(a.key), "animation": a.animation.journalJSON,
                        "started": .bool(a.hasStarted), "finished": .bool(a.hasFinished),
                    ]
                    if let tx = a.transaction { fields["transaction"] = .number(Double(tx)) }
                    return .object(fields)
                })
        }
        return .object(o)
    }

    private static func layer(_ json: JSON, at path: String) throws(ProtocolError) -> LayerState {
        let r = try StrictObject(
            json, at: path,
            fields: [
                "id", "kind", "parent", "detached", "properties", "custom", "actions", "actionsFrom", "policy", "displayKeys", "animations",
            ])
        var layer = LayerState(
            id: try r.string("id"), kind: try r.string("kind"), parent: try r.optionalString("parent"), isDetached: try r.optionalBool("detached") ?? false)
        layer.properties = try r.values("properties")
        layer.custom = try r.values("custom")
        for (key, rule) in try r.optionalObject("actions") ?? [:] {
            layer.actions[key] = rule == .null ? ActionRule.none : .animation(try Animation(journalJSON: rule, at: "\(path).actions.\(key)"))
        }
        layer.actionsFrom = try r.optionalString("actionsFrom")
        if let policy = try r.optionalString("policy") {
            guard let p = ActionPolicy(rawValue: policy) else { throw r.invalid("policy", "is implicit or explicitOnly, not '\(policy)'") }
            layer.actionPolicy = p
        }
        for (i, key) in (try r.optionalArray("displayKeys") ?? []).enumerated() {
            guard let k = key.string else { throw r.invalid("displayKeys[\(i)]", "is a string, not \(key.kindName)") }
            layer.displayKeys.insert(k)
        }
        for (i, item) in (try r.optionalArray("animations") ?? []).enumerated() {
            let at = "\(path).animations[\(i)]"
            let a = try StrictObject(item, at: at, fields: ["id", "key", "animation", "transaction", "started", "finished"])
            layer.animations.append(
                AnimationState(
                    id: try a.count("id"), key: try a.string("key"), animation: try Animation(journalJSON: try a.required("animation"), at: at + ".animation"),
                    transaction: try a.optionalCount("transaction"), hasStarted: try a.bool("started"), hasFinished: try a.bool("finished")))
        }
        return layer
    }
}

extension Animation {
    /// The animation with every field, as the scene journal stores it: values tagged with
    /// their types (`Value.taggedJSON`), timing whole.
    public var journalJSON: JSON {
        var o: [String: JSON] = [:]
        let t = timing
        o["timing"] = .object([
            "beginTime": .number(t.beginTime), "duration": .number(t.duration), "speed": .number(t.speed),
            "timeOffset": .number(t.timeOffset), "repeatCount": t.repeatCount.isFinite ? .number(t.repeatCount) : .string("infinity"),
            "repeatDuration": .number(t.repeatDuration), "autoreverses": .bool(t.autoreverses), "fillMode": .string(t.fillMode.rawValue),
        ])
        if let keyPath { o["keyPath"] = .string(keyPath.description) }
        if let f = timingFunction { o["timingFunction"] = .array([f.c1x, f.c1y, f.c2x, f.c2y].map(JSON.number)) }
        if isAdditive { o["additive"] = .bool(true) }
        if isCumulative { o["cumulative"] = .bool(true) }
        if !isRemovedOnCompletion { o["removedOnCompletion"] = .bool(false) }
        func endpoints(_ e: Endpoints) {
            if let v = e.from { o["from"] = v.taggedJSON }
            if let v = e.to { o["to"] = v.taggedJSON }
            if let v = e.by { o["by"] = v.taggedJSON }
        }
        switch kind {
        case .basic(let e):
            o["type"] = .string("basic")
            endpoints(e)
        case .spring(let e, let s):
            o["type"] = .string("spring")
            endpoints(e)
            o["spring"] = .object([
                "mass": .number(s.mass), "stiffness": .number(s.stiffness), "damping": .number(s.damping),
                "initialVelocity": .number(s.initialVelocity),
            ])
        case .keyframe(let k):
            o["type"] = .string("keyframe")
            o["values"] = .array(k.values.map(\.taggedJSON))
            if let times = k.keyTimes { o["keyTimes"] = .array(times.map(JSON.number)) }
            if let fs = k.timingFunctions { o["timingFunctions"] = .array(fs.map { .array([$0.c1x, $0.c1y, $0.c2x, $0.c2y].map(JSON.number)) }) }
            o["calculationMode"] = .string(k.calculationMode.rawValue)
            if let path = k.path { o["path"] = .string(path.svg) }
            if let r = k.rotationMode { o["rotationMode"] = .string(r.rawValue) }
        case .group(let children):
            o["type"] = .string("group")
            o["animations"] = .array(children.map(\.journalJSON))
        case .transition(let t):
            o["type"] = .string("transition")
            o["transition"] = .object([
                "style": .string(t.style.rawValue), "direction": .string(t.direction.rawValue), "startProgress": .number(t.startProgress),
                "endProgress": .number(t.endProgress),
            ])
        }
        return .object(o)
    }

    /// Decodes what `journalJSON` writes; errors name `path` and the field.
    public init(journalJSON json: JSON, at path: String) throws(ProtocolError) {
        let r = try StrictObject(
            json, at: path,
            fields: [
                "type", "keyPath", "timing", "timingFunction", "additive", "cumulative", "removedOnCompletion", "from", "to", "by",
                "spring", "values", "keyTimes", "timingFunctions", "calculationMode", "path", "rotationMode", "animations", "transition",
            ])
        let type = try r.string("type")
        let allowed: Set<String> =
            switch type {
            case "basic": ["from", "to", "by"]
            case "spring": ["from", "to", "by", "spring"]
            case "keyframe": ["values", "keyTimes", "timingFunctions", "calculationMode", "path", "rotationMode"]
            case "group": ["animations"]
            case "transition": ["transition"]
            default: throw r.invalid("type", "is basic, spring, keyframe, group or transition, not '\(type)'")
            }
        let kindFields: Set<String> = [
            "from", "to", "by", "spring", "values", "keyTimes", "timingFunctions", "calculationMode", "path", "rotationMode", "animations", "transition",
        ]
        if let stray = r.fields.keys.sorted().first(where: { kindFields.contains($0) && !allowed.contains($0) }) {
            throw ProtocolError(.unknownField, "\(path).\(stray): a \(type) animation has no such field")
        }
        let endpoints = { () throws(ProtocolError) -> Endpoints in
            Endpoints(from: try r.optionalValue("from"), to: try r.optionalValue("to"), by: try r.optionalValue("by"))
        }
        let kind: Kind
        switch type {
        case "basic":
            kind = .basic(try endpoints())
        case "spring":
            let s = try StrictObject(try r.required("spring"), at: path + ".spring", fields: ["mass", "stiffness", "damping", "initialVelocity"])
            let spring: Spring
            do {
                spring = try Spring(
                    mass: try s.number("mass"), stiffness: try s.number("stiffness"), damping: try s.number("damping"),
                    initialVelocity: try s.number("initialVelocity"))
            } catch let error as ProtocolError { throw error } catch let error as CoreError {
                throw ProtocolError(error, message: "\(path).spring: \(error.message)")
            } catch { throw ProtocolError(.invalidValue, "\(path).spring: \(error)") }
            kind = .spring(try endpoints(), spring)
        case "keyframe":
            var values: [Value] = []
            for (i, item) in try r.array("values").enumerated() { values.append(try Value(taggedJSON: item, at: "\(path).values[\(i)]")) }
            let keyTimes = try r.optionalArray("keyTimes").map { items throws(ProtocolError) in
                try items.enumerated().map { (i, item) throws(ProtocolError) in
                    guard let n = item.number else { throw r.invalid("keyTimes[\(i)]", "is a number, not \(item.kindName)") }
                    return n
                }
            }
            let functions = try r.optionalArray("timingFunctions").map { items throws(ProtocolError) in
                try items.enumerated().map { (i, item) throws(ProtocolError) in try Self.timingFunction(item, at: "\(path).timingFunctions[\(i)]") }
            }
            let modeName = try r.string("calculationMode")
            guard let mode = Keyframes.CalculationMode(rawValue: modeName) else {
                throw r.invalid("calculationMode", "is linear, discrete, paced, cubic or cubicPaced, not '\(modeName)'")
            }
            var pathData: PathData?
            if let text = r.fields["path"] {
                guard let s = text.string, let parsed = try? PathData(parsing: s) else { throw r.invalid("path", "is SVG path data") }
                pathData = parsed
            }
            var rotation: RotationMode?
            if let name = r.fields["rotationMode"] {
                guard let s = name.string, let mode = RotationMode(rawValue: s) else { throw r.invalid("rotationMode", "is auto or autoReverse") }
                rotation = mode
            }
            kind = .keyframe(
                Keyframes(values: values, keyTimes: keyTimes, timingFunctions: functions, calculationMode: mode, path: pathData, rotationMode: rotation))
        case "transition":
            let t = try StrictObject(try r.required("transition"), at: path + ".transition", fields: ["style", "direction", "startProgress", "endProgress"])
            let styleName = try t.string("style"), directionName = try t.string("direction")
            guard let style = Transition.Style(rawValue: styleName) else { throw t.invalid("style", "is fade, moveIn, push or reveal, not '\(styleName)'") }
            guard let direction = Transition.Direction(rawValue: directionName) else {
                throw t.invalid("direction", "is fromLeft, fromRight, fromTop or fromBottom, not '\(directionName)'")
            }
            kind = .transition(
                Transition(style, direction: direction, startProgress: try t.number("startProgress"), endProgress: try t.number("endProgress")))
        default:
            var children: [Animation] = []
            for (i, item) in try r.array("animations").enumerated() {
                children.append(try Animation(journalJSON: item, at: "\(path).animations[\(i)]"))
            }
            kind = .group(children)
        }
        var keyPath: KeyPath?
        if let text = try r.optionalString("keyPath") {
            do { keyPath = try KeyPath(parsing: text) } catch { throw ProtocolError(error, message: "\(path).keyPath: \(error.message)") }
        }
        let t = try StrictObject(
            try r.required("timing"), at: path + ".timing",
            fields: [
                "beginTime", "duration", "speed", "timeOffset", "repeatCount", "repeatDuration", "autoreverses", "fillMode",
            ])
        var timing = MediaTiming(
            beginTime: try t.number("beginTime"), duration: try t.number("duration"), speed: try t.number("speed"),
            timeOffset: try t.number("timeOffset"), repeatDuration: try t.number("repeatDuration"), autoreverses: try t.bool("autoreverses"))
        let repeatCount = try t.required("repeatCount")
        if repeatCount == .string("infinity") { timing.repeatCount = .infinity } else { timing.repeatCount = try t.number("repeatCount") }
        let fill = try t.string("fillMode")
        guard let fillMode = FillMode(rawValue: fill) else { throw t.invalid("fillMode", "is removed, forwards, backwards or both, not '\(fill)'") }
        timing.fillMode = fillMode
        self.init(
            kind: kind, keyPath: keyPath, timing: timing,
            timingFunction: try r.optional("timingFunction").map { j throws(ProtocolError) in
                try Self.timingFunction(j, at: path + ".timingFunction")
            })
        isAdditive = try r.optionalBool("additive") ?? false
        isCumulative = try r.optionalBool("cumulative") ?? false
        isRemovedOnCompletion = try r.optionalBool("removedOnCompletion") ?? true
    }

    private static func timingFunction(_ json: JSON, at path: String) throws(ProtocolError) -> TimingFunction {
        guard let items = json.array, items.count == 4, case let v = items.compactMap(\.number), v.count == 4 else {
            throw ProtocolError(.wrongType, "\(path): a timing function is four numbers [x1, y1, x2, y2], not \(json.kindName)")
        }
        do { return try TimingFunction(controlPoints: v[0], v[1], v[2], v[3]) } catch { throw ProtocolError(error, message: "\(path): \(error.message)") }
    }
}

extension Value {
    /// The value as JSON that names its type: numbers, booleans and strings as they are,
    /// and `{"point": [x, y]}`, `{"size": [w, h]}`, `{"rect": [x, y, w, h]}`, `{"color":
    /// [r, g, b, a]}`, `{"transform": [a, b, c, d, tx, ty]}`, `{"transform3D": [m11, …, m44]}`, `{"array": […]}`, `{"object":
    /// {…}}` for the rest. Lossless, unlike `json`, which writes colours as 8-bit hex.
    public var taggedJSON: JSON {
        switch self {
        case .number(let v): .number(v)
        case .bool(let b): .bool(b)
        case .string(let s): .string(s)
        case .point(let p): .object(["point": .array([.number(p.x), .number(p.y)])])
        case .size(let s): .object(["size": .array([.number(s.width), .number(s.height)])])
        case .rect(let r): .object(["rect": .array([r.origin.x, r.origin.y, r.size.width, r.size.height].map(JSON.number))])
        case .color(let c): .object(["color": .array([c.red, c.green, c.blue, c.alpha].map(JSON.number))])
        case .transform(let t): .object(["transform": .array([t.a, t.b, t.c, t.d, t.tx, t.ty].map(JSON.number))])
        case .transform3D(let t): .object(["transform3D": .array(t.entries.map(JSON.number))])
        case .array(let items): .object(["array": .array(items.map(\.taggedJSON))])
        case .dictionary(let d): .object(["object": .object(d.mapValues(\.taggedJSON))])
        }
    }

    /// Decodes what `taggedJSON` writes; errors name `path`.
    public init(taggedJSON json: JSON, at path: String) throws(ProtocolError) {
        switch json {
        case .number(let v): self = .number(v)
        case .bool(let b): self = .bool(b)
        case .string(let s): self = .string(s)
        case .object(let o) where o.count == 1:
            let (tag, body) = o.first!
            func numbers(_ count: Int) throws(ProtocolError) -> [Double] {
                guard let items = body.array, items.count == count, case let v = items.compactMap(\.number), v.count == count else {
                    throw ProtocolError(.wrongType, "\(path): a \(tag) is an array of \(count) numbers")
                }
                return v
            }
            switch tag {
            case "point": let v = try numbers(2); self = .point(Point(x: v[0], y: v[1]))
            case "size": let v = try numbers(2); self = .size(Size(width: v[0], height: v[1]))
            case "rect": let v = try numbers(4); self = .rect(Rect(x: v[0], y: v[1], width: v[2], height: v[3]))
            case "color": let v = try numbers(4); self = .color(Color(red: v[0], green: v[1], blue: v[2], alpha: v[3]))
            case "transform": let v = try numbers(6); self = .transform(AffineTransform(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5]))
            case "transform3D": self = .transform3D(Transform3D(try numbers(16)))
            case "array":
                guard let items = body.array else { throw ProtocolError(.wrongType, "\(path): an array value holds an array, not \(body.kindName)") }
                var values: [Value] = []
                values.reserveCapacity(items.count)
                for (i, item) in items.enumerated() { values.append(try Value(taggedJSON: item, at: "\(path)[\(i)]")) }
                self = .array(values)
            case "object":
                guard let members = body.object else { throw ProtocolError(.wrongType, "\(path): an object value holds an object, not \(body.kindName)") }
                var d: [String: Value] = [:]
                for (key, item) in members { d[key] = try Value(taggedJSON: item, at: "\(path).\(key)") }
                self = .dictionary(d)
            default:
                throw ProtocolError(
                    .wrongType,
                    "\(path): '\(tag)' is no value type; a value is a number, boolean, string or one of point, size, rect, color, transform, array, object")
            }
        default:
            throw ProtocolError(
                .wrongType,
                "\(path): a value is a number, boolean, string or an object with one of point, size, rect, color, transform, array, object; not \(json.kindName)"
            )
        }
    }
}

/// A JSON object read strictly: only `fields` may appear, and every error names the path.
struct StrictObject {
    let fields: [String: JSON]
    let path: String

    init(_ json: JSON, at path: String, fields allowed: Set<String>) throws(ProtocolError) {
        guard let o = json.object else { throw ProtocolError(.wrongType, "\(path) is an object, not \(json.kindName)") }
        if let extra = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw ProtocolError(.unknownField, "\(path) has no field '\(extra)'")
        }
        fields = o
        self.path = path
    }

    func invalid(_ key: String, _ what: String) -> ProtocolError { ProtocolError(.invalidValue, "\(path).\(key) \(what)") }

    private func wrong(_ key: String, _ expected: String, _ got: JSON) -> ProtocolError {
        ProtocolError(.wrongType, "\(path).\(key) is \(expected), not \(got.kindName)")
    }

    func required(_ key: String) throws(ProtocolError) -> JSON {
        guard let v = fields[key] else { throw ProtocolError(.missingField, "\(path) needs the field '\(key)'") }
        return v
    }

    func optional(_ key: String) -> JSON? { fields[key] }

    func number(_ key: String) throws(ProtocolError) -> Double {
        let j = try required(key)
        guard let v = j.number else { throw wrong(key, "a number", j) }
        return v
    }

    func string(_ key: String) throws(ProtocolError) -> String {
        let j = try required(key)
        guard let v = j.string else { throw wrong(key, "a string", j) }
        return v
    }

    func bool(_ key: String) throws(ProtocolError) -> Bool {
        let j = try required(key)
        guard let v = j.bool else { throw wrong(key, "true or false", j) }
        return v
    }

    func array(_ key: String) throws(ProtocolError) -> [JSON] {
        let j = try required(key)
        guard let v = j.array else { throw wrong(key, "an array", j) }
        return v
    }

    /// A whole number 0…2⁵³, as ids and counters are.
    func count(_ key: String) throws(ProtocolError) -> UInt64 {
        let v = try number(key)
        guard v >= 0, v <= 9_007_199_254_740_992, v == v.rounded() else { throw invalid(key, "is a whole number ≥ 0, not \(v)") }
        return UInt64(v)
    }

    func optionalCount(_ key: String) throws(ProtocolError) -> UInt64? { fields[key] == nil ? nil : try count(key) }
    func optionalString(_ key: String) throws(ProtocolError) -> String? { fields[key] == nil ? nil : try string(key) }
    func optionalBool(_ key: String) throws(ProtocolError) -> Bool? { fields[key] == nil ? nil : try bool(key) }
    func optionalArray(_ key: String) throws(ProtocolError) -> [JSON]? { fields[key] == nil ? nil : try array(key) }

    func optionalObject(_ key: String) throws(ProtocolError) -> [String: JSON]? {
        guard let j = fields[key] else { return nil }
        guard let o = j.object else { throw wrong(key, "an object", j) }
        return o
    }

    func optionalValue(_ key: String) throws(ProtocolError) -> Value? {
        try fields[key].map { j throws(ProtocolError) in try Value(taggedJSON: j, at: "\(path).\(key)") }
    }

    /// An object of tagged values, empty when absent.
    func values(_ key: String) throws(ProtocolError) -> [String: Value] {
        var out: [String: Value] = [:]
        for (name, j) in try optionalObject(key) ?? [:] { out[name] = try Value(taggedJSON: j, at: "\(path).\(key).\(name)") }
        return out
    }
}
