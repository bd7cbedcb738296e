import CHarfBuzz

/// The bidirectional classes this module tells apart: a subset of UAX #9's.
enum BidiClass: Equatable {
    /// Strong left-to-right: letters of LTR scripts, LRM.
    case l
    /// Strong right-to-left: letters of RTL scripts (Hebrew, Arabic, …), RLM, ALM.
    case r
    /// European (ASCII and most other) digits.
    case en
    /// Arabic-Indic digits.
    case an
    /// Combining marks: they take the class of the character before them.
    case nsm
    /// Everything else: spaces, punctuation, symbols.
    case neutral

    init(_ scalar: Unicode.Scalar) {
        switch scalar.value {
        case 0x200E: self = .l
        case 0x200F, 0x061C: self = .r
        case 0x0660...0x0669, 0x066B, 0x066C: self = .an
        default:
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .spacingMark:
                self = scriptDirection(scalar) == .rightToLeft ? .r : .l
            case .nonspacingMark, .enclosingMark:
                self = .nsm
            case .decimalNumber:
                self = .en
            default:
                self = .neutral
            }
        }
    }
}

/// The script of `scalar` (Common for spaces and punctuation, Inherited for marks).
func script(of scalar: Unicode.Scalar) -> hb_script_t {
    hb_unicode_script(hb_unicode_funcs_get_default(), scalar.value)
}

/// The direction of the script `scalar` belongs to.
func scriptDirection(_ scalar: Unicode.Scalar) -> TextDirection {
    hb_script_get_horizontal_direction(script(of: scalar)) == HB_DIRECTION_RTL ? .rightToLeft : .leftToRight
}

/// Embedding levels for one paragraph: even levels run left to right, odd ones right to
/// left.
///
/// This is a deliberate subset of the Unicode Bidirectional Algorithm (UAX #9): the
/// paragraph level from the first strong character (P2–P3), combining marks (W1), digits
/// after left-to-right text (W7), neutrals between strong runs (N1–N2) and implicit levels
/// (I1–I2). It has no explicit embeddings, overrides or isolates (X1–X10), no number
/// separators or terminators (W4–W6), no bracket pairs (N0) and no character-by-character
/// bidi class table: letters take their script's direction and the rest is neutral.
struct BidiLevels {
    /// The paragraph's level: 0 left to right, 1 right to left.
    let paragraphLevel: UInt8
    /// One level per scalar of the paragraph.
    let levels: [UInt8]

    /// Resolves the levels of `scalars`; `direction` forces the paragraph direction.
    init<C: Collection>(_ scalars: C, direction: TextDirection? = nil) where C.Element == Unicode.Scalar {
        var classes = scalars.map(BidiClass.init)
        let firstStrong = classes.first { $0 == .l || $0 == .r }
        let base: UInt8 =
            switch direction {
            case .leftToRight?: 0
            case .rightToLeft?: 1
            case nil: firstStrong == .r ? 1 : 0
            }
        paragraphLevel = base
        let sos: BidiClass = base == 1 ? .r : .l

        var previous = sos
        for i in classes.indices {
            if classes[i] == .nsm { classes[i] = previous } else { previous = classes[i] }
        }
        var lastStrong = sos
        for i in classes.indices {
            switch classes[i] {
            case .l, .r: lastStrong = classes[i]
            case .en where lastStrong == .l: classes[i] = .l
            default: break
            }
        }
        // Neutrals take the direction around them when both sides agree (numbers count as
        // right to left here), else the paragraph's.
        func strongDirection(_ c: BidiClass) -> BidiClass? {
            switch c {
            case .l: .l
            case .r, .en, .an: .r
            default: nil
            }
        }
        var i = 0
        while i < classes.count {
            guard classes[i] == .neutral || classes[i] == .nsm else { i += 1; continue }
            var end = i
            while end < classes.count, classes[end] == .neutral || classes[end] == .nsm { end += 1 }
            let before = i > 0 ? strongDirection(classes[i - 1]) ?? sos : sos
            let after = end < classes.count ? strongDirection(classes[end]) ?? sos : sos
            let resolved = before == after ? before : sos
            for k in i..<end { classes[k] = resolved }
            i = end
        }
        levels = classes.map { c -> UInt8 in
            switch (base & 1, c) {
            case (0, .r): base + 1
            case (0, .en), (0, .an): base + 2
            case (1, .l), (1, .en), (1, .an): base + 1
            default: base
            }
        }
    }
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
