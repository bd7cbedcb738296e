import FoundationEssentials
import FoundationInternationalization

/// What number formatting (a rolling number's `format`, a text template's `{x:currency}`)
/// accepts as a currency code and a locale: those ICU has data for. A code or locale it
/// does not know would not fail loudly — ICU prints the bare number, or formats as no
/// language at all — so a property is checked when it is set instead.
public enum Formatting {
    private static let currencies = Set(Locale.Currency.isoCurrencies.map { $0.identifier.uppercased() })
    private static let languages = Set(Locale.availableIdentifiers.compactMap { Locale(identifier: $0).language.languageCode?.identifier })
    private static let regions = Set(Locale.Region.isoRegions.map(\.identifier))

    /// Nil when `code` is an ISO 4217 currency code (in any case); else what is wrong.
    public static func currencyProblem(_ code: String) -> String? {
        if currencies.contains(code.uppercased()) { return nil }
        return "'\(code)' is not an ISO 4217 currency code; give three letters such as EUR, USD, GBP or JPY"
    }

    /// Nil when `identifier` names a language (and region) the formatter has data for,
    /// such as `en_US`, `de-DE`, `fr_CH` or `de`; else what is wrong.
    public static func localeProblem(_ identifier: String) -> String? {
        let locale = Locale(identifier: identifier)
        if let language = locale.language.languageCode?.identifier, languages.contains(language),
           locale.region.map({ regions.contains($0.identifier) }) ?? true {
            return nil
        }
        return "'\(identifier)' is not a locale with formatting data; give a language and region such as en_US, de_DE or fr_CH"
    }
}
