import Testing
import VitrineCore

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

    @Test func aPropertyWithTheCheckRefusesThemAndKeepsItsValue() throws {
        let scene = makeScene()
        let kind = LayerKind(name: "money", extraProperties: [
            PropertyDescriptor("currencyCode", .string("USD"), animatable: false, check: Formatting.currencyProblem),
        ])
        scene.register(kind)
        try commit(scene, at: 0) { $0.add(layer: "m", kind: "money", parent: rootID) }
        #expect(throws: CoreError.self) { try commit(scene, at: 0) { $0.set("m", "currencyCode", .string("€")) } }
        #expect(try scene.modelValue("currencyCode", of: "m") == .string("USD"))
        try commit(scene, at: 0) { $0.set("m", "currencyCode", .string("EUR")) }
        #expect(try scene.modelValue("currencyCode", of: "m") == .string("EUR"))
    }
}
