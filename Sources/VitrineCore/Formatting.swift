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
    /// Nil: the style's own (a currency's minor units).
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

    /// `value` as text.
    public func string(for value: Double) -> String {
        let locale = Locale(identifier: locale)
        let integers = max(minimumIntegerDigits, 0)
        let precision: NumberFormatStyleConfiguration.Precision? =
            if let fractionDigits { .integerAndFractionLength(integerLimits: integers..., fractionLimits: fractionDigits) }
            else if integers != 1 { .integerLength(integers...) }
            else { nil }
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
