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
