import Testing
import VitrineCore
import VitrineText

@Suite struct TextTemplateTests {
    @Test func fillsPlaceholdersFromCustomProperties() {
        let custom: [String: Value] = ["count": .number(3.4), "price": .number(12.5), "touches": .dictionary(["a": .dictionary(["scale": .number(1.25)])])]
        #expect(TextTemplate("It took {count:%.0f} seconds").render(custom) == "It took 3 seconds")
        #expect(TextTemplate("{count}").render(custom) == "3.4")
        #expect(TextTemplate("{price:currency:EUR}").render(custom, locale: "de_DE").replacing("\u{a0}", with: " ") == "12,50 €")
        #expect(TextTemplate("scale {touches.a.scale:%.2f}").render(custom) == "scale 1.25")
        #expect(TextTemplate("{{literal}} {missing}").render(custom) == "{literal} {missing}")
        #expect(TextTemplate("{count:percent}").render(["count": .number(0.5)]) == "50%")
        // A field or precision past 64 would make megabytes of text: the mistake shows instead.
        #expect(TextTemplate("{count:%8.2f}|{count:%064d}").render(custom) == "    3.40|" + String(repeating: "0", count: 63) + "3")
        #expect(TextTemplate("{count:%99999999d} {count:%.65f} {count:%1.2.3f}").render(custom) == "{?%99999999d} {?%.65f} {?%1.2.3f}")
        // A currency ICU does not know would print as a bare number: the mistake shows instead.
        #expect(
            TextTemplate("{price:currency:€} {price:currency:eur}").render(custom, locale: "de_DE").replacing("\u{a0}", with: " ") == "{?currency:€} 12,50 €")
        #expect(TextTemplate("It took {count} s, {price} €").keys == ["count", "price"])
    }

    /// Templates are parsed once and their formats checked once, then reused: the same
    /// template still follows the locale and the values of each call.
    @Test func aReusedTemplateFollowsEachCallsLocaleAndValues() {
        let template = "{price:currency:EUR} {share:percent} {n:decimal:1} {n:%05.1f}"
        let a = TextTemplate(template).render(["price": .number(1234.5), "share": .number(0.25), "n": .number(1234.56)], locale: "en_US")
        let b = TextTemplate(template).render(["price": .number(1234.5), "share": .number(0.25), "n": .number(1234.56)], locale: "de_DE")
        let c = TextTemplate(template).render(["price": .number(2), "share": .number(1), "n": .number(2)], locale: "en_US")
        #expect(a == "€1,234.50 25% 1,234.6 1234.6")
        #expect(b.replacing("\u{a0}", with: " ") == "1.234,50 € 25 % 1.234,6 1234.6")
        #expect(c == "€2.00 100% 2.0 002.0")
    }

    /// Without a count of fraction digits a placeholder shows the formatter's own: the
    /// currency's minor units, no digits for a percentage, up to 3 for a decimal; a count
    /// wins.
    @Test func formatsWithoutDigitsFollowTheFormatter() {
        let custom: [String: Value] = ["price": .number(1234.5), "share": .number(0.12345), "n": .number(1234.56789)]
        #expect(TextTemplate("{price:currency:USD}").render(custom, locale: "en_US") == "$1,234.50")
        #expect(TextTemplate("{price:currency:EUR}").render(custom, locale: "de_DE") == "1.234,50\u{a0}€")
        #expect(TextTemplate("{price:currency:JPY}").render(custom, locale: "ja_JP") == "¥1,234")
        #expect(TextTemplate("{price:currency}").render(custom, locale: "ja_JP") == "¥1,234")
        #expect(TextTemplate("{share:percent} {n:decimal}").render(custom, locale: "en_US") == "12% 1,234.568")
        #expect(
            TextTemplate("{price:currency:EUR:0} {price:currency:JPY:2} {share:percent:1} {n:decimal:0}").render(custom, locale: "en_US")
                == "€1,234 ¥1,234.50 12.3% 1,235")
        #expect(TextTemplate("{price:currency:EUR:x} {price:currency:EUR:1:2}").render(custom) == "{?currency:EUR:x} {?currency:EUR:1:2}")
    }

    /// A template whose filled-in text outgrows what a text layer sets is cut, so that one
    /// script cannot make every frame lay out megabytes.
    @Test func aFilledInTemplateIsCutAtTheLayersMaximum() throws {
        var values = PropertyValues(slots: TextLayer.textLayerKind.properties.map(\.defaultValue), custom: ["count": .number(7)])
        var slots = values.slots
        slots[TextLayer.textLayerKind.slot(of: "template")!] = .string(String(repeating: "{count:%64d}", count: 300))
        values.slots = slots
        let string = try TextLayerContent(values).string
        #expect(string.count == TextLayer.maximumLength && string.hasSuffix("…") && string.hasPrefix("      "))
    }

    @Test func aTextLayerDrawsItsTemplate() throws {
        var values = PropertyValues(slots: TextLayer.textLayerKind.properties.map(\.defaultValue), custom: ["count": .number(7)])
        var slots = values.slots
        slots[TextLayer.textLayerKind.slot(of: "template")!] = .string("It took {count} seconds")
        values.slots = slots
        #expect(try TextLayerContent(values).string == "It took 7 seconds")
    }
}
