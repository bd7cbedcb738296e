/// Near misses: a new custom key that is probably a misspelt built-in property.
///
/// Any key that is not a property of the layer's kind is a custom property (as in Core
/// Animation), so `backgroundColour` would silently become one. Before a commit creates a
/// new top-level custom key, the key is compared with the kind's property names (and
/// aliases): within a Damerau–Levenshtein distance of 2 (1 when either name is shorter than
/// 6 characters), ignoring case, it is refused with a suggestion. Keys that start with
/// `customKeyPrefix` are never checked: that is how a client keeps a name of its own that
/// happens to be close to a built-in one.
extension LayerKind {
    /// Keys that start with this are custom properties the client vouches for.
    public static let customKeyPrefix = "_"

    /// The built-in property name that `key` is probably a misspelling of, or nil when it
    /// is none (a built-in name itself, a key starting with `customKeyPrefix`, or far from
    /// every name).
    public func nearMiss(for key: String) -> String? {
        guard slot(of: key) == nil, !key.hasPrefix(Self.customKeyPrefix) else { return nil }
        let wanted = Array(key.lowercased().unicodeScalars)
        var best: (name: String, distance: Int)?
        for descriptor in properties {
            for name in [descriptor.name] + descriptor.aliases {
                let limit = min(wanted.count, name.unicodeScalars.count) >= 6 ? 2 : 1
                guard let d = nearMissDistance(wanted, Array(name.lowercased().unicodeScalars), limit: limit),
                    d < (best?.distance ?? .max)
                else { continue }
                best = (name, d)
            }
        }
        return best?.name
    }
}

/// The optimal-string-alignment (Damerau–Levenshtein with adjacent transpositions)
/// distance between `a` and `b` when it is at most `limit`, else nil.
func nearMissDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int? {
    guard abs(a.count - b.count) <= limit else { return nil }
    if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
    let width = b.count + 1
    var twoBack = [Int](repeating: 0, count: width)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: width)
    for i in 1...a.count {
        current[0] = i
        var rowMinimum = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, twoBack[j - 2] + 1) }
            current[j] = d
            rowMinimum = min(rowMinimum, d)
        }
        if rowMinimum > limit { return nil }
        (twoBack, previous, current) = (previous, current, twoBack)
    }
    return previous[b.count] <= limit ? previous[b.count] : nil
}

extension Layer {
    /// Throws `unknownProperty` when setting `path` would create a new top-level custom
    /// key that is a near miss of one of the kind's properties. Cheap for built-in and
    /// existing custom keys: only a key about to be created is compared.
    func checkNewCustomKey(_ path: KeyPath) throws(CoreError) {
        let key = path.property
        guard model.custom[key] == nil, let suggestion = kind.nearMiss(for: key) else { return }
        throw .unknownProperty(key, layer: id, kind: kindName, suggestion: suggestion)
    }
}
