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

    @Test func languageDirectionAndAnimatedLetterSpacing() throws {
        let scene = Scene()
        scene.register(TextLayer.textLayerKind)
        try scene.addRoot(id: "root", output: "test", size: Size(width: 800, height: 600))
        var t = Transaction(disableActions: true)
        t.add(
            layer: "board", kind: "text", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 600, height: 100)), "string": .string("Platform 7"),
                "fontSize": .number(24), "locale": .string("de_CH"),
            ])
        _ = try scene.commit(t, at: 0)
        let library = try fonts()
        let plain = try TextLayerContent(scene.modelValues(of: "board"))
        #expect(plain.style.language == "de_CH")
        #expect(plain.style.direction == nil)
        #expect(plain.style.letterSpacing == 0)
        let plainWidth = try TextLayout(layer: scene.modelValues(of: "board"), library: library).lines[0].width

        var change = Transaction(animationDuration: 1)
        change.set("board", "letterSpacing", .number(10))
        change.set("board", "language", .string("sr-Latn"))
        change.set("board", "direction", .string("rtl"))
        _ = try scene.commit(change, at: 1)
        let midway = try TextLayerContent(scene.presentationValues(of: "board", at: 1.5))
        #expect(midway.style.letterSpacing > 0 && midway.style.letterSpacing < 10)
        #expect(midway.style.language == "sr-Latn")
        #expect(midway.style.direction == .rightToLeft)
        let done = try TextLayout(layer: scene.presentationValues(of: "board", at: 3), library: library)
        // Nine gaps between the ten characters, 10 px each; a right-to-left paragraph aligns right.
        #expect(abs(done.lines[0].width - plainWidth - 90) < 1e-6)
        #expect(abs(done.lines[0].x + done.lines[0].width - 600) < 1e-6)

        let bad: [(KeyPath, Value)] = [("language", .string("not a tag!")), ("direction", .string("up")), ("letterSpacing", .string("wide"))]
        for (key, value) in bad {
            var refused = Transaction(disableActions: true)
            refused.set("board", key, value)
            #expect(throws: CoreError.self) { try scene.commit(refused, at: 4) }
        }
    }
}
