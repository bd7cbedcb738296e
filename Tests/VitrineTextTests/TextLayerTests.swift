import Testing
import VitrineCore
@testable import VitrineText

@Suite struct TextLayerTests {
    @Test func kindHasCATextLayerPropertiesAndDefaults() throws {
        let kind = TextLayer.textLayerKind
        #expect(kind.name == "text")
        func descriptor(_ name: String) throws -> PropertyDescriptor {
            try #require(kind.slot(of: name).map { kind.properties[$0] })
        }
        #expect(try descriptor("string").defaultValue == .string(""))
        #expect(try descriptor("font").defaultValue == .string("DejaVu Sans"))
        #expect(try descriptor("fontSize").defaultValue == .number(36))
        #expect(try descriptor("foregroundColor").defaultValue == .color(.white))
        #expect(try descriptor("alignmentMode").defaultValue == .string("natural"))
        #expect(try descriptor("isWrapped").defaultValue == .bool(false))
        #expect(try descriptor("truncationMode").defaultValue == .string("none"))
        #expect(try descriptor("fontSize").isAnimatable)
        #expect(try descriptor("foregroundColor").isAnimatable)
        for name in ["string", "font", "alignmentMode", "isWrapped", "truncationMode"] {
            #expect(try !descriptor(name).isAnimatable)
        }
        #expect(try descriptor("alignmentMode").allowedStrings == ["natural", "left", "right", "center", "justified"])
        #expect(try descriptor("truncationMode").allowedStrings == ["none", "start", "middle", "end"])
        #expect(kind.slot(of: "bounds") == BaseProperty.bounds.slot)
    }

    @Test func layoutFromLayerValues() throws {
        let scene = Scene()
        scene.register(TextLayer.textLayerKind)
        try scene.addRoot(id: "root", output: "test", size: Size(width: 800, height: 600))
        var t = Transaction(disableActions: true)
        t.add(
            layer: "title", kind: "text", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 240, height: 100)),
                "string": .string("Hello wrapped world of kiosks"),
                "fontSize": .number(24),
                "isWrapped": .bool(true),
                "alignmentMode": .string("right"),
                "font": .string("DejaVu Serif:bold"),
            ])
        _ = try scene.commit(t, at: 0)
        let library = try fonts()
        let layout = try TextLayout(layer: scene.modelValues(of: "title"), library: library)
        #expect(layout.width == 240)
        #expect(layout.lines.count == 2)
        #expect(layout.lines.allSatisfy { abs($0.x + $0.width - 240) < 1e-9 })
        #expect(layout.font.primary.path.hasSuffix("DejaVuSerif-Bold.ttf"))
        let content = try TextLayerContent(scene.modelValues(of: "title"))
        #expect(content.foregroundColor == .white)
        #expect(content.style.fontSize == 24)

        var bad = Transaction(disableActions: true)
        bad.set("title", "font", .string("DejaVu Serif:heavyish"))
        _ = try scene.commit(bad, at: 1)
        #expect(throws: TextError.self) { try TextLayout(layer: scene.modelValues(of: "title"), library: library) }
        var wrongChoice = Transaction(disableActions: true)
        wrongChoice.set("title", "alignmentMode", .string("middle"))
        #expect(throws: CoreError.self) { try scene.commit(wrongChoice, at: 2) }
    }
}
