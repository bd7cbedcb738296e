import FoundationEssentials
@_exported import VitrineJSON

extension JSON {
    /// Parses one JSON text (RFC 8259: no trailing commas, no key twice in an object).
    public init(parsing data: Data) throws(ProtocolError) {
        let parsed = data.withUnsafeBytes { raw in
            Result { () throws(JSONText.Failure) in try JSONText.parse(raw.bindMemory(to: UInt8.self)) }
        }
        switch parsed {
        case .success(let value):
            self = value
        case .failure(.numberOutOfRange(let path)):
            let place = path.isEmpty ? "" : " at \"\(path.joined(separator: "."))\""
            throw ProtocolError(.invalidValue, "the number\(place) is out of range: numbers must be finite and within ±1e9")
        case .failure(.syntax(let reason, let offset)):
            throw ProtocolError(.malformedJSON, "the text is not valid JSON (\(reason), at byte \(offset))")
        }
    }

}
