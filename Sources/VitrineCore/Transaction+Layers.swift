extension Transaction {
    /// Whether the transaction (or one nested in it) has an operation that `matches`.
    public func contains(where matches: (Operation) -> Bool) -> Bool {
        operations.contains { operation in
            if case .nested(let inner) = operation { inner.contains(where: matches) } else { matches(operation) }
        }
    }

    /// Whether the transaction (or one nested in it) adds a layer.
    public var addsLayers: Bool { contains { if case .addLayer = $0 { true } else { false } } }

    /// Whether the transaction (or one nested in it) removes a layer.
    public var removesLayers: Bool { contains { if case .removeLayer = $0 { true } else { false } } }
}
