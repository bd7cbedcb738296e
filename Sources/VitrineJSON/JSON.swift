/// Any JSON value, as it arrives on the wire or in a scene file. The wire reads and writes
/// it with `JSONText`; it is `Encodable` too, so that a library user's Codable types can
/// hold it. This module needs no Foundation, so that `vitrinectl` starts without it.
public enum JSON: Hashable, Sendable, Encodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): if n.isFinite { try c.encode(n) } else { try c.encodeNil() }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    /// Compact JSON text with sorted keys, so that output is stable. A number that is not
    /// finite has no JSON form and is written `null`, as JavaScript's `JSON.stringify` does.
    public var text: String {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        JSONText.write(self, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public var description: String { text }

    public var number: Double? { if case .number(let v) = self { v } else { nil } }
    public var string: String? { if case .string(let v) = self { v } else { nil } }
    public var bool: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var array: [JSON]? { if case .array(let v) = self { v } else { nil } }
    public var object: [String: JSON]? { if case .object(let v) = self { v } else { nil } }

    /// What kind of JSON value this is, for error messages.
    public var kindName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    public subscript(key: String) -> JSON? { object?[key] }
}

extension JSON {
    /// Parses one JSON text (RFC 8259: no trailing commas, no key twice in an object).
    public init(parsing text: String) throws(JSONText.Failure) {
        var text = text
        let parsed = text.withUTF8 { bytes in Result { () throws(JSONText.Failure) in try JSONText.parse(bytes) } }
        self = try parsed.get()
    }
}
