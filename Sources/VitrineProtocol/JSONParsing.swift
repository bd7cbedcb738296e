import FoundationEssentials
@_exported import VitrineJSON

extension JSON {
    /// Parses one JSON text (RFC 8259: no trailing commas, no key twice in an object).
    public init(parsing data: Data) throws(ProtocolError) {
        let parsed = data.withUnsafeBytes { raw in
            Result { () throws(ProtocolError) in try JSON(parsing: raw.bindMemory(to: UInt8.self)) }
        }
        self = try parsed.get()
    }

    /// Parses one JSON text from the bytes where they lie; it parses only if they are
    /// valid UTF-8.
    public init(parsing bytes: UnsafeBufferPointer<UInt8>) throws(ProtocolError) {
        do {
            self = try JSONText.parse(bytes)
        } catch {
            switch error {
            case .numberOutOfRange(let path):
                let place = path.isEmpty ? "" : " at \"\(path.joined(separator: "."))\""
                throw ProtocolError(.invalidValue, "the number\(place) is out of range: numbers must be finite and within ±1e9")
            case .syntax(let reason, let offset):
                throw ProtocolError(.malformedJSON, "the text is not valid JSON (\(reason), at byte \(offset))")
            }
        }
    }
}

/// Whether `bytes` are valid UTF-8, read where they lie.
func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    !transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true, into: { _ in })
}
