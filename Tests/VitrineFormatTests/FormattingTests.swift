import Testing
import VitrineCore
@testable import VitrineFormat

/// Currency codes and locales are checked against ICU's data when a property is set: one
/// it does not know would not fail, it would format the number wrongly.
@Suite struct FormattingTests {
    @Test(arguments: ["EUR", "USD", "JPY", "CHF", "GBP", "eur"])
    func knownCurrencies(code: String) {
        #expect(Formatting.currencyProblem(code) == nil)
    }

    @Test(arguments: ["XYZ", "€", "$", "", "EURO", "US"])
    func unknownCurrenciesSayWhatToGive(code: String) throws {
        let problem = try #require(Formatting.currencyProblem(code))
        #expect(problem.contains("'\(code)'") && problem.contains("EUR"))
    }

    @Test(arguments: ["en_US", "de_DE", "de-DE", "fr_CH", "de", "ja_JP", "en_US_POSIX", "de_DE@currency=EUR"])
    func knownLocales(identifier: String) {
        #expect(Formatting.localeProblem(identifier) == nil)
    }

    @Test(arguments: ["", "xx_YY", "C", "de_XX", "klingon", "1234"])
    func unknownLocalesSayWhatToGive(identifier: String) throws {
        let problem = try #require(Formatting.localeProblem(identifier))
        #expect(problem.contains("'\(identifier)'") && problem.contains("en_US"))
    }

    @Test func numberFormatsKeepTheStylesOwnFractionsUnlessTold() {
        // A currency's minor units: cents for the euro, none for the yen.
        #expect(NumberFormat(style: .currency, currencyCode: "EUR", locale: "de_DE").string(for: 1234.5).replacing("\u{a0}", with: " ") == "1.234,50 €")
        #expect(NumberFormat(style: .currency, currencyCode: "JPY", locale: "en_US").string(for: 1234.4) == "¥1,234")
        #expect(NumberFormat(style: .currency, currencyCode: "USD", fractionDigits: 0...0).string(for: 1234.25) == "$1,234")
        #expect(NumberFormat(minimumIntegerDigits: 4, usesGrouping: false).string(for: 42) == "0042")
        #expect(NumberFormat(fractionDigits: 1...3).string(for: 2) == "2.0")
        #expect(NumberFormat(style: .plain, fractionDigits: 0...0).string(for: 1_234_567) == "1234567")
    }

    /// Unset fraction digits are the formatter's own: a currency's minor units (ICU's
    /// data: 2 for the dollar and the euro, 0 for the yen, rounding half to even as a
    /// NumberFormatter does), none for a percentage, up to 3 for a decimal.
    @Test(arguments: [
        ("USD", "en_US", 1234.5, "$1,234.50"),
        ("EUR", "de_DE", 1234.5, "1.234,50\u{a0}€"),
        ("JPY", "ja_JP", 1234.5, "¥1,234"),
        ("JPY", "en_US", 1234.5, "¥1,234"),
        ("JPY", "en_US", 1234.6, "¥1,235"),
        ("BHD", "en_US", 1234.5, "BHD\u{a0}1,234.500"),
    ])
    func currenciesShowTheirMinorUnitsUnlessTold(code: String, locale: String, value: Double, expected: String) {
        #expect(NumberFormat(style: .currency, currencyCode: code, locale: locale).string(for: value) == expected)
    }

    @Test func minorUnitsComeFromTheFormatter() {
        #expect(NumberFormat(style: .currency, currencyCode: "USD").ownFractionDigits == 2...2)
        #expect(NumberFormat(style: .currency, currencyCode: "EUR").ownFractionDigits == 2...2)
        #expect(NumberFormat(style: .currency, currencyCode: "JPY").ownFractionDigits == 0...0)
        #expect(NumberFormat(style: .currency, currencyCode: "BHD").ownFractionDigits == 3...3)
        #expect(NumberFormat(style: .decimal).ownFractionDigits == 0...3)
        #expect(NumberFormat(style: .percent).ownFractionDigits == 0...0)
        #expect(NumberFormat(style: .plain).ownFractionDigits == 0...0)
    }

    @Test func percentAndDecimalKeepTheirStylesDefaults() {
        #expect(NumberFormat(style: .percent).string(for: 0.12345) == "12%")
        #expect(NumberFormat(style: .percent, locale: "de_DE").string(for: 0.5) == "50\u{a0}%")
        #expect(NumberFormat(style: .decimal).string(for: 1234.56789) == "1,234.568")
        #expect(NumberFormat(style: .decimal, locale: "de_DE").string(for: 1234.5) == "1.234,5")
        #expect(NumberFormat(style: .plain).string(for: 1234.5) == "1234")
    }

    @Test func explicitFractionDigitsWin() {
        #expect(NumberFormat(style: .currency, currencyCode: "EUR", locale: "de_DE", fractionDigits: 0...0).string(for: 1234.5) == "1.234\u{a0}€")
        #expect(NumberFormat(style: .currency, currencyCode: "JPY", locale: "en_US", fractionDigits: 2...2).string(for: 1234.5) == "¥1,234.50")
        #expect(NumberFormat(style: .currency, currencyCode: "USD", fractionDigits: 0...3).string(for: 1234.5) == "$1,234.5")
        #expect(NumberFormat(style: .percent, fractionDigits: 1...1).string(for: 0.12345) == "12.3%")
        #expect(NumberFormat(style: .decimal, fractionDigits: 0...0).string(for: 1234.56789) == "1,235")
        // Fixed width keeps the currency's own digits.
        #expect(NumberFormat(style: .currency, currencyCode: "EUR", locale: "de_DE", minimumIntegerDigits: 4).string(for: 12.5) == "0.012,50\u{a0}€")
    }

    /// A minimum or a maximum alone, as a number formatter takes it: the other bound is
    /// the style's own, and a minimum above it raises it.
    @Test func oneBoundAloneKeepsTheStylesOther() {
        let usd = NumberFormat(style: .currency, currencyCode: "USD")
        #expect(usd.fractionDigits(minimum: nil, maximum: nil) == nil)
        #expect(usd.fractionDigits(minimum: 0, maximum: nil) == 0...2)
        #expect(usd.fractionDigits(minimum: 3, maximum: nil) == 3...3)
        #expect(usd.fractionDigits(minimum: nil, maximum: 0) == 0...0)
        #expect(usd.fractionDigits(minimum: nil, maximum: 4) == 2...4)
        #expect(usd.fractionDigits(minimum: 3, maximum: 1) == 3...3)
        #expect(NumberFormat(style: .currency, currencyCode: "JPY").fractionDigits(minimum: nil, maximum: 2) == 0...2)
        #expect(NumberFormat(style: .decimal).fractionDigits(minimum: 1, maximum: nil) == 1...3)
    }

    @Test func aPropertyWithTheCheckRefusesThemAndKeepsItsValue() throws {
        let scene = Scene()
        try scene.addRoot(id: "screen", output: "TEST-1", size: Size(width: 800, height: 600))
        let kind = LayerKind(
            name: "money",
            extraProperties: [
                PropertyDescriptor("currencyCode", .string("USD"), animatable: false, check: Formatting.currencyProblem)
            ])
        scene.register(kind)
        func set(_ code: String) throws(CoreError) {
            var tx = Transaction()
            tx.set("m", "currencyCode", .string(code))
            try scene.commit(tx, at: 0)
        }
        var add = Transaction()
        add.add(layer: "m", kind: "money", parent: "screen")
        try scene.commit(add, at: 0)
        #expect(throws: CoreError.self) { try set("€") }
        #expect(try scene.modelValue("currencyCode", of: "m") == .string("USD"))
        try set("EUR")
        #expect(try scene.modelValue("currencyCode", of: "m") == .string("EUR"))
    }
}

@Suite struct CFormatTests {
    /// Short results are written on the stack, long ones on the heap: both whole.
    @Test func formatsShortAndLongResultsWhole() {
        #expect(cFormat("%.2f", 3.14159) == "3.14")
        #expect(cFormat("%05lld|%x", Int64(42), 255) == "00042|ff")
        #expect(cFormat("%127d", 7).count == 127)
        #expect(cFormat("%128d", 7) == String(repeating: " ", count: 127) + "7")
        #expect(cFormat("%500.3f", -1.5) == String(repeating: " ", count: 494) + "-1.500")
    }
}

/// A counter's numbers — whole, decimal or plain digits, in English — are written without
/// ICU; they must read exactly as ICU writes them, whatever the width, grouping and
/// fraction digits asked for.
@Suite struct EnglishWholeNumberTests {
    static let values: [Double] = [
        0, 1, 7, 42, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 10_000_000, 123_456_789, 2_147_483_648, 999_999_999_999_999,
        -1, -999, -1000, -123_456_789,
    ]

    @Test(arguments: [NumberFormat.Style.decimal, .plain], ["en_US", "en"])
    func wholeNumbersReadAsICUWritesThem(style: NumberFormat.Style, locale: String) throws {
        for grouping in [true, false] {
            for integers in [1, 2, 5, 12] {
                for fractions in [nil, 0...0, 0...3, 2...2, 1...4] as [ClosedRange<Int>?] {
                    let format = NumberFormat(
                        style: style, locale: locale, fractionDigits: fractions, minimumIntegerDigits: integers, usesGrouping: grouping)
                    for value in Self.values {
                        let own = try #require(format.englishWholeNumber(value), "\(format) \(value)")
                        #expect(own == format.icuString(for: value), "\(format) \(value)")
                    }
                }
            }
        }
    }

    @Test func fractionsOtherLocalesAndOtherStylesAreLeftToICU() {
        #expect(NumberFormat().englishWholeNumber(1.5) == nil)
        #expect(NumberFormat(locale: "de_DE").englishWholeNumber(1000) == nil)
        #expect(NumberFormat(style: .currency).englishWholeNumber(1000) == nil)
        #expect(NumberFormat(style: .percent).englishWholeNumber(1) == nil)
        #expect(NumberFormat().englishWholeNumber(-0.0) == nil)
        #expect(NumberFormat().englishWholeNumber(1e16) == nil)
        #expect(NumberFormat(minimumIntegerDigits: 0).englishWholeNumber(0) == nil)
        #expect(NumberFormat().string(for: 1234) == "1,234")
    }
}
