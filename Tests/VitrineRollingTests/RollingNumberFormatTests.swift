import Testing
import VitrineCore
import VitrineRolling

/// A rolling number's fraction digits, unset, are the formatter's own for its format: a
/// currency's minor units, none for a percentage; set, they win.
@Suite struct RollingNumberFormatTests {
    /// The text of a rolling number with the kind's defaults and `properties`.
    func text(_ properties: [String: Value]) -> String {
        let kind = RollingNumber.kind()
        var slots = kind.properties.map(\.defaultValue)
        for (name, value) in properties { slots[kind.slot(of: name)!] = value }
        return RollingNumberProperties(PropertyValues(slots: slots, custom: [:]), kind: kind).text
    }

    func currency(_ code: String, _ locale: String, _ extra: [String: Value] = [:]) -> [String: Value] {
        ["value": .number(1234.5), "format": .string("currency"), "currencyCode": .string(code), "locale": .string(locale)]
            .merging(extra) { $1 }
    }

    @Test func unsetFractionDigitsAreTheFormattersOwn() {
        #expect(text(currency("USD", "en_US")) == "$1,234.50")
        #expect(text(currency("EUR", "de_DE")) == "1.234,50\u{a0}€")
        #expect(text(currency("JPY", "ja_JP")) == "¥1,234")
        #expect(text(["value": .number(0.12345), "format": .string("percent")]) == "12%")
        #expect(text(["value": .number(1234.5678)]) == "1,234.568")
        #expect(text(["value": .number(1234.5), "format": .string("plain")]) == "1234")
    }

    @Test func setFractionDigitsWin() {
        let none: [String: Value] = ["minimumFractionDigits": .number(0), "maximumFractionDigits": .number(0)]
        #expect(text(currency("EUR", "de_DE", none)) == "1.234\u{a0}€")
        #expect(text(currency("JPY", "en_US", ["minimumFractionDigits": .number(2)])) == "¥1,234.50")
        // One bound alone: the other is the currency's own, moved to keep minimum ≤ maximum.
        #expect(text(currency("USD", "en_US", ["maximumFractionDigits": .number(0)])) == "$1,234")
        #expect(text(currency("USD", "en_US", ["minimumFractionDigits": .number(0)])) == "$1,234.5")
        #expect(text(["value": .number(0.12345), "format": .string("percent"), "maximumFractionDigits": .number(1)]) == "12.3%")
        // -1 unsets them again.
        #expect(text(currency("USD", "en_US", ["minimumFractionDigits": .number(-1), "maximumFractionDigits": .number(-1)])) == "$1,234.50")
    }
}
