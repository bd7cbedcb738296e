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
        // A currency ICU does not know would print as a bare number: the mistake shows instead.
        #expect(TextTemplate("{price:currency:€} {price:currency:eur}").render(custom, locale: "de_DE").replacing("\u{a0}", with: " ") == "{?currency:€} 12,50 €")
        #expect(TextTemplate("It took {count} s, {price} €").keys == ["count", "price"])
    }

    @Test func aTextLayerDrawsItsTemplate() throws {
        var values = PropertyValues(slots: TextLayer.textLayerKind.properties.map(\.defaultValue), custom: ["count": .number(7)])
        var slots = values.slots
        slots[TextLayer.textLayerKind.slot(of: "template")!] = .string("It took {count} seconds")
        values.slots = slots
        #expect(try TextLayerContent(values).string == "It took 7 seconds")
    }
}
