import CFriBidi
import CHarfBuzz

/// The script of `scalar` (Common for spaces and punctuation, Inherited for marks).
func script(of scalar: Unicode.Scalar) -> hb_script_t {
    hb_unicode_script(hb_unicode_funcs_get_default(), scalar.value)
}

/// Embedding levels for one paragraph by the Unicode Bidirectional Algorithm (UAX #9),
/// resolved by GNU FriBidi: explicit embeddings, overrides and isolates (X1–X10), weak
/// and neutral types with bracket pairs (W1–W7, N0–N2) and implicit levels (I1–I2).
/// Even levels run left to right, odd ones right to left.
///
/// Mirroring (L4) is HarfBuzz's: it mirrors brackets and the like in right-to-left runs
/// when shaping. Reordering (L2) is per line, `visualOrder(levels:)` over the line's runs.
struct BidiLevels {
    /// The paragraph's level: 0 left to right, 1 right to left.
    let paragraphLevel: UInt8
    /// One level per scalar of the paragraph.
    let levels: [UInt8]

    /// Resolves the levels of `scalars`. `direction` forces the paragraph direction; nil
    /// takes it from the first strong character outside isolates (P2–P3), and from
    /// `neutral` when there is none.
    init<C: Collection>(_ scalars: C, direction: TextDirection? = nil, neutral: TextDirection = .leftToRight)
    where C.Element == Unicode.Scalar {
        let text = scalars.map { FriBidiChar($0.value) }
        let count = FriBidiStrIndex(text.count)
        var types = [FriBidiCharType](repeating: FriBidiCharType(rawValue: 0), count: text.count)
        var brackets = [FriBidiBracketType](repeating: 0, count: text.count)
        var levels = [FriBidiLevel](repeating: 0, count: text.count)
        var base: FriBidiParType =
            switch direction {
            case .leftToRight?: FriBidiParType(rawValue: FriBidiDirection.ltr)
            case .rightToLeft?: FriBidiParType(rawValue: FriBidiDirection.rtl)
            case nil: FriBidiParType(rawValue: neutral == .rightToLeft ? FriBidiDirection.weakRTL : FriBidiDirection.weakLTR)
            }
        fribidi_get_bidi_types(text, count, &types)
        fribidi_get_bracket_types(text, count, types, &brackets)
        let maximum = fribidi_get_par_embedding_levels_ex(types, brackets, count, &base, &levels)
        if maximum == 0 {
            let fallback: FriBidiLevel = direction == .rightToLeft || (direction == nil && neutral == .rightToLeft) ? 1 : 0
            levels = [FriBidiLevel](repeating: fallback, count: text.count)
            paragraphLevel = UInt8(fallback)
        } else {
            paragraphLevel = base.rawValue & FriBidiDirection.rtlMask != 0 ? 1 : 0
        }
        self.levels = levels.map { UInt8(bitPattern: $0) }
    }
}

/// FriBidi's paragraph types and masks (`FRIBIDI_PAR_*`, macros Swift does not import).
private enum FriBidiDirection {
    static let rtlMask: UInt32 = 0x0000_0001
    private static let strong: UInt32 = 0x0000_0010
    private static let weak: UInt32 = 0x0000_0020
    private static let letter: UInt32 = 0x0000_0100
    static let ltr = strong | letter
    static let rtl = strong | letter | rtlMask
    static let weakLTR = weak
    static let weakRTL = weak | rtlMask
}

/// The visual order of items with the given levels (UAX #9 rule L2): from the highest
/// level down to the lowest odd one, every maximal sequence at or above that level is
/// reversed. Returns the item indices left to right.
func visualOrder(levels: [UInt8]) -> [Int] {
    var order = Array(levels.indices)
    guard let highest = levels.max(), let lowestOdd = levels.filter({ $0 & 1 == 1 }).min() else { return order }
    var level = highest
    while level >= lowestOdd {
        var i = 0
        while i < order.count {
            guard levels[order[i]] >= level else { i += 1; continue }
            var end = i
            while end < order.count, levels[order[end]] >= level { end += 1 }
            order[i..<end].reverse()
            i = end
        }
        level -= 1
    }
    return order
}
