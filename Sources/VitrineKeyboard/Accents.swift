/// The characters a long press on a letter offers: the letter and its accented forms,
/// lower case (upper case with Shift: `accents(of:)` maps them).
enum Accents {
    static let table: [String: [String]] = [
        "a": ["à", "á", "â", "ä", "æ", "ã", "å", "ā"], "c": ["ç", "ć", "č"], "d": ["ď", "ð"],
        "e": ["è", "é", "ê", "ë", "ē", "ę", "ě"], "g": ["ğ"], "i": ["ì", "í", "î", "ï", "ī"], "l": ["ł"], "n": ["ñ", "ń", "ň"],
        "o": ["ò", "ó", "ô", "ö", "õ", "ø", "œ", "ō"], "r": ["ř"], "s": ["ß", "ś", "š", "ş"], "t": ["ť", "þ"],
        "u": ["ù", "ú", "û", "ü", "ū", "ů"], "y": ["ý", "ÿ"], "z": ["ž", "ź", "ż"],
        "е": ["ё"], "ь": ["ъ"], "и": ["й"], "г": ["ґ"], "і": ["ї"],
        "0": ["°"], "-": ["–", "—"], "?": ["¿"], "!": ["¡"], "$": ["€", "£", "¥"], "'": ["‘", "’", "«", "»"],
    ]

    /// The choices for a key typing `text` with Shift `shifted`: the text first, then its
    /// accented forms; empty when there are none.
    static func accents(of text: String, shifted: Bool) -> [String] {
        guard let forms = table[text.lowercased()] else { return [] }
        let choices = [text] + forms
        return shifted ? choices.map { $0 == "ß" ? $0 : $0.uppercased() } : choices
    }
}
