import FoundationEssentials
import Glibc
import VitrineCore

/// How values are written on the wire and in scene files.
///
/// | type | JSON |
/// |---|---|
/// | number | `12.5`, or an angle: `"90deg"`, `"1.2rad"`, `"0.25turn"` |
/// | point | `[x, y]` |
/// | size | `[width, height]` |
/// | rect | `[x, y, width, height]` |
/// | colour | `"#rrggbb"`, `"#rrggbbaa"`, `"#rgb"`, a CSS name, or `[r, g, b]` / `[r, g, b, a]` in 0…1 |
/// | transform | `[a, b, c, d, tx, ty]`, 16 numbers `[m11, m12, …, m44]` (CATransform3D, row by row), or `{"scale": s or [sx, sy] or [sx, sy, sz], "rotationX": angle, "rotationY": angle, "rotation": angle, "translation": [x, y] or [x, y, z], "m34": p}` (applied in that order, `m34` perspective last) |
/// | bool | `true` / `false` |
/// | string | `"text"` |
/// | dictionary | an object of values |
extension Value {
    /// Decodes `json` as a value of `type`; with no type (a new custom property) the type
    /// follows from the JSON: numbers and angles, booleans, strings ("#…" colours are
    /// colours), `[x, y]` points, `[x, y, w, h]` rects, objects dictionaries.
    public init(json: JSON, as type: ValueType?, at keyPath: String) throws(ProtocolError) {
        try self.init(json: json, as: type, element: nil, at: keyPath)
    }

    /// Decodes `json` as a value of a type and, for arrays, an element type (as
    /// `LayerKind.valueShape(at:)` gives them); with no shape the type is inferred.
    public init(json: JSON, shape: (type: ValueType, element: ValueType?)?, at keyPath: String) throws(ProtocolError) {
        try self.init(json: json, as: shape?.type, element: shape?.element, at: keyPath)
    }

    private init(json: JSON, as type: ValueType?, element: ValueType?, at keyPath: String) throws(ProtocolError) {
        func wrong(_ expected: String) -> ProtocolError {
            ProtocolError(.wrongType, "'\(keyPath)' takes \(expected), not \(json.kindName) \(json.text.prefix(60))")
        }
        guard let type else {
            self = try Self.inferred(json, at: keyPath)
            return
        }
        switch type {
        case .number:
            guard let v = Self.number(json) else { throw wrong(type.phrase + " or an angle such as \"90deg\"") }
            self = .number(v)
        case .point:
            guard let v = Self.numbers(json, count: 2) else { throw wrong(type.phrase) }
            self = .point(Point(x: v[0], y: v[1]))
        case .size:
            guard let v = Self.numbers(json, count: 2) else { throw wrong(type.phrase) }
            self = .size(Size(width: v[0], height: v[1]))
        case .rect:
            guard let v = Self.numbers(json, count: 4) else { throw wrong(type.phrase) }
            self = .rect(Rect(x: v[0], y: v[1], width: v[2], height: v[3]))
        case .color:
            guard let c = Self.color(json) else { throw wrong(type.phrase) }
            self = .color(c)
        case .transform:
            guard let t = try Self.transform(json, at: keyPath) else {
                throw wrong(
                    "a transform: [a, b, c, d, tx, ty], 16 numbers m11…m44, or {\"translation\": [x, y], \"rotation\": angle, \"rotationY\": angle, \"scale\": s, \"m34\": p}"
                )
            }
            self = .transformValue(t)
        case .bool:
            guard let b = json.bool else { throw wrong(type.phrase) }
            self = .bool(b)
        case .string:
            if let list = json.array, !list.isEmpty, Self.takesJSONText(keyPath) {
                self = .string(json.text)
                return
            }
            guard let s = json.string else { throw wrong(type.phrase) }
            self = .string(s)
        case .dictionary:
            guard json.object != nil else { throw wrong(type.phrase) }
            self = try Self.inferred(json, at: keyPath)
        case .array:
            guard let items = json.array else { throw wrong(type.phrase) }
            var values: [Value] = []
            for (i, item) in items.enumerated() {
                values.append(try Value(json: item, as: element, element: nil, at: "\(keyPath)[\(i)]"))
            }
            self = .array(values)
        }
    }

    /// String properties that also take a JSON list, kept as its JSON text: a text
    /// layer's `attributedString` written as runs.
    static let jsonTextProperties = ["attributedString"]

    private static func takesJSONText(_ keyPath: String) -> Bool {
        jsonTextProperties.contains { keyPath == $0 || keyPath.hasSuffix("." + $0) }
    }

    /// The value as JSON, in the forms `init(json:as:at:)` reads.
    public var json: JSON {
        switch self {
        case .number(let v): .number(v)
        case .point(let p): .array([.number(p.x), .number(p.y)])
        case .size(let s): .array([.number(s.width), .number(s.height)])
        case .rect(let r): .array([r.origin.x, r.origin.y, r.size.width, r.size.height].map(JSON.number))
        case .color(let c): .string(c.hexString)
        case .transform(let t): .array([t.a, t.b, t.c, t.d, t.tx, t.ty].map(JSON.number))
        case .transform3D(let t): .array(t.entries.map(JSON.number))
        case .bool(let b): .bool(b)
        case .string(let s): .string(s)
        case .dictionary(let d): .object(d.mapValues(\.json))
        case .array(let a): .array(a.map(\.json))
        }
    }

    private static func inferred(_ json: JSON, at keyPath: String) throws(ProtocolError) -> Value {
        switch json {
        case .number(let v):
            return .number(v)
        case .string where number(json) != nil:
            return .number(number(json)!)
        case .string(let s):
            if s.hasPrefix("#"), let c = Color(css: s) { return .color(c) }
            return .string(s)
        case .bool(let b):
            return .bool(b)
        case .array(let items):
            if let v = numbers(json, count: 2) { return .point(Point(x: v[0], y: v[1])) }
            if let v = numbers(json, count: 4) { return .rect(Rect(x: v[0], y: v[1], width: v[2], height: v[3])) }
            var values: [Value] = []
            for (i, item) in items.enumerated() { values.append(try inferred(item, at: "\(keyPath)[\(i)]")) }
            return .array(values)
        case .object(let o):
            var d: [String: Value] = [:]
            for (k, v) in o { d[k] = try inferred(v, at: keyPath + "." + k) }
            return .dictionary(d)
        case .null:
            throw ProtocolError(.wrongType, "'\(keyPath)' cannot be null")
        }
    }

    /// A number, or an angle string converted to radians.
    static func number(_ json: JSON) -> Double? {
        switch json {
        case .number(let v): return v
        case .string(let s):
            let t = s.trimmingWhitespace()
            for (suffix, factor) in [("deg", Double.pi / 180), ("rad", 1.0), ("turn", 2 * Double.pi)] where t.hasSuffix(suffix) {
                guard let v = Double(t.dropLast(suffix.count).trimmingWhitespace()), v.isFinite else { return nil }
                return v * factor
            }
            return nil
        default: return nil
        }
    }

    private static func numbers(_ json: JSON, count: Int) -> [Double]? {
        guard let items = json.array, items.count == count else { return nil }
        let values = items.compactMap(\.number)
        return values.count == count ? values : nil
    }

    private static func color(_ json: JSON) -> Color? {
        if let s = json.string { return Color(css: s) }
        guard let items = json.array, items.count == 3 || items.count == 4 else { return nil }
        let v = items.compactMap(\.number)
        guard v.count == items.count, v.allSatisfy({ (0...1).contains($0) }) else { return nil }
        return Color(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 1)
    }

    private static func transform(_ json: JSON, at keyPath: String) throws(ProtocolError) -> Transform3D? {
        if let v = numbers(json, count: 6) {
            return Transform3D(AffineTransform(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5]))
        }
        if let v = numbers(json, count: 16) { return Transform3D(v) }
        guard let o = json.object else { return nil }
        let known: Set = ["translation", "rotation", "rotationX", "rotationY", "scale", "m34"]
        if let extra = o.keys.first(where: { !known.contains($0) }) {
            throw ProtocolError(
                .unknownField, "'\(keyPath)': a transform object has translation, rotation, rotationX, rotationY, scale and m34, not '\(extra)'")
        }
        var t = Transform3D.identity
        if let s = o["scale"] {
            if let k = number(s) {
                t = Transform3D(scaleX: k, y: k)
            } else if let v = numbers(s, count: 2) {
                t = Transform3D(scaleX: v[0], y: v[1])
            } else if let v = numbers(s, count: 3) {
                t = Transform3D(scaleX: v[0], y: v[1], z: v[2])
            } else {
                return nil
            }
        }
        for (key, axis) in [("rotationX", (1.0, 0.0, 0.0)), ("rotationY", (0, 1, 0)), ("rotation", (0, 0, 1))] {
            guard let r = o[key] else { continue }
            guard let angle = number(r) else { return nil }
            t = t.concatenating(Transform3D(rotationAngle: angle, x: axis.0, y: axis.1, z: axis.2))
        }
        if let tr = o["translation"] {
            if let v = numbers(tr, count: 2) {
                t = t.concatenating(Transform3D(translationX: v[0], y: v[1]))
            } else if let v = numbers(tr, count: 3) {
                t = t.concatenating(Transform3D(translationX: v[0], y: v[1], z: v[2]))
            } else {
                return nil
            }
        }
        if let p = o["m34"] {
            guard let m34 = p.number else { return nil }
            var perspective = Transform3D.identity
            perspective.m34 = m34
            t = t.concatenating(perspective)
        }
        return t
    }
}
