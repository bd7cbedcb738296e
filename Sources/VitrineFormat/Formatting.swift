import FoundationEssentials
import FoundationInternationalization

/// What number formatting (a rolling number's `format`, a text template's `{x:currency}`)
/// accepts as a currency code and a locale: ISO ones, which ICU has data for. One it does
/// not know would not fail loudly — ICU prints the bare number, or formats as no language
/// at all — so a property is checked when it is set instead.
public enum Formatting {
    /// Nil when `code` is an ISO 4217 currency code (in any case); else what is wrong.
    public static func currencyProblem(_ code: String) -> String? {
        if Locale.Currency(code).isISOCurrency { return nil }
        return "'\(code)' is not an ISO 4217 currency code; give three letters such as EUR, USD, GBP or JPY"
    }

    /// Nil when `identifier` names an ISO 639 language, with an ISO 3166 region if it has
    /// one, such as `en_US`, `de-DE`, `fr_CH` or `de`; else what is wrong.
    public static func localeProblem(_ identifier: String) -> String? {
        let locale = Locale(identifier: identifier)
        if locale.language.languageCode?.isISOLanguage == true, locale.region?.isISORegion ?? true { return nil }
        return "'\(identifier)' is not a locale with formatting data; give a language and region such as en_US, de_DE or fr_CH"
    }

    /// The currency of `locale`'s region (EUR for de_DE), or nil when it has none.
    public static func currency(of locale: String) -> String? {
        Locale(identifier: locale).currency?.identifier
    }
}

/// Number formatting with Foundation's format styles: decimal, currency, percent or plain
/// digits. A rolling number's `format` and a text template's `{x:currency}`,
/// `{x:percent}` and `{x:decimal}` both come here.
public struct NumberFormat: Hashable, Sendable {
    public enum Style: String, CaseIterable, Sendable {
        case decimal, currency, percent, plain
    }

    public var style: Style
    public var currencyCode: String
    public var locale: String
    /// How many fraction digits to show: trailing zeros up to the lower bound are kept.
    /// Nil: the style's own, `ownFractionDigits` (a currency's minor units).
    public var fractionDigits: ClosedRange<Int>?
    /// Pads with leading zeros up to this many digits (fixed width); 0 drops the zero
    /// before a fraction.
    public var minimumIntegerDigits: Int
    /// Thousands separators (never for `plain`).
    public var usesGrouping: Bool

    public init(
        style: Style = .decimal, currencyCode: String = "USD", locale: String = "en_US", fractionDigits: ClosedRange<Int>? = nil,
        minimumIntegerDigits: Int = 1, usesGrouping: Bool = true
    ) {
        self.style = style
        self.currencyCode = currencyCode
        self.locale = locale
        self.fractionDigits = fractionDigits
        self.minimumIntegerDigits = minimumIntegerDigits
        self.usesGrouping = usesGrouping
    }

    /// The fraction digits the style shows when none are set: a number formatter's own
    /// (NumberFormatter's, which the original RollingNumbers used) — `decimal` 0…3,
    /// `percent` 0, `plain` 0 (NumberFormatter's `.none`), `currency` the currency's minor
    /// units from ICU's data (USD and EUR 2, JPY 0, BHD 3).
    public var ownFractionDigits: ClosedRange<Int> {
        switch style {
        case .decimal: return 0...3
        case .percent, .plain: return 0...0
        case .currency:
            let digits = Self.minorUnits(of: currencyCode)
            return digits...digits
        }
    }

    /// The fraction digits of a minimum and a maximum either of which may be unset (nil),
    /// as a number formatter takes them: an unset bound is the style's own
    /// (`ownFractionDigits`), and a minimum above the maximum raises it. Both unset: nil,
    /// the style's own.
    public func fractionDigits(minimum: Int?, maximum: Int?) -> ClosedRange<Int>? {
        switch (minimum, maximum) {
        case (nil, nil): return nil
        case (let minimum?, let maximum?): return minimum...max(minimum, maximum)
        case (let minimum?, nil): return minimum...max(minimum, ownFractionDigits.upperBound)
        case (nil, let maximum?): return min(ownFractionDigits.lowerBound, maximum)...maximum
        }
    }

    /// How many fraction digits ICU's currency style gives `code` (its minor units): the
    /// digits after the point of one unit formatted in English ("$1.00", "¥1", "BHD 1.000").
    static func minorUnits(of code: String) -> Int {
        let one = 1.0.formatted(FloatingPointFormatStyle<Double>.Currency(code: code, locale: Locale(identifier: "en")).grouping(.never))
        let digits = one.reversed().prefix { $0.isASCII && $0.isNumber }
        return one.dropLast(digits.count).last == "." ? digits.count : 0
    }

    /// `value` as text.
    public func string(for value: Double) -> String {
        englishWholeNumber(value) ?? icuString(for: value)
    }

    /// `value` as ICU writes it, for the common case of a counter — a whole number in
    /// decimal or plain digits, in English — written here: ICU's code and locale data
    /// (3 MB resident once touched) are then never paged in by a daemon that only counts.
    /// Nil for anything else, which ICU formats.
    func englishWholeNumber(_ value: Double) -> String? {
        guard style == .decimal || style == .plain, locale == "en_US" || locale == "en", value == value.rounded(), abs(value) < 1e15,
            value != 0 || value.sign == .plus, (1...20).contains(minimumIntegerDigits)
        else { return nil }
        let zeros = (fractionDigits ?? ownFractionDigits).lowerBound
        guard zeros <= 20 else { return nil }
        var digits = Array(String(Int64(abs(value))).utf8)
        if digits.count < minimumIntegerDigits {
            digits.insert(contentsOf: repeatElement(UInt8(ascii: "0"), count: minimumIntegerDigits - digits.count), at: 0)
        }
        var text: [UInt8] = value < 0 ? [UInt8(ascii: "-")] : []
        text.reserveCapacity(digits.count * 4 / 3 + zeros + 2)
        let grouped = usesGrouping && style != .plain
        for (index, digit) in digits.enumerated() {
            if grouped, index > 0, (digits.count - index) % 3 == 0 { text.append(UInt8(ascii: ",")) }
            text.append(digit)
        }
        if zeros > 0 {
            text.append(UInt8(ascii: "."))
            text.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: zeros))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `value` formatted by ICU (Foundation's format styles).
    func icuString(for value: Double) -> String {
        let locale = Locale(identifier: locale)
        let integers = max(minimumIntegerDigits, 0)
        // A currency without fraction digits is left to ICU, which gives its minor units.
        let fractions = fractionDigits ?? (style == .currency ? nil : ownFractionDigits)
        let precision: NumberFormatStyleConfiguration.Precision? =
            if let fractions { .integerAndFractionLength(integerLimits: integers..., fractionLimits: fractions) } else if integers != 1 {
                .integerLength(integers...)
            } else { nil }
        let grouping: NumberFormatStyleConfiguration.Grouping = usesGrouping && style != .plain ? .automatic : .never
        switch style {
        case .decimal, .plain:
            let format = FloatingPointFormatStyle<Double>(locale: locale).grouping(grouping)
            return value.formatted(precision.map { format.precision($0) } ?? format)
        case .currency:
            let format = FloatingPointFormatStyle<Double>.Currency(code: currencyCode, locale: locale).grouping(grouping)
            return value.formatted(precision.map { format.precision($0) } ?? format)
        case .percent:
            let format = FloatingPointFormatStyle<Double>.Percent(locale: locale).grouping(grouping)
            return value.formatted(precision.map { format.precision($0) } ?? format)
        }
    }
}
