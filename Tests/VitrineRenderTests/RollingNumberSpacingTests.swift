import Testing
import VitrineCore
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// `characterSpacing` sets the pitch between characters; the line still ends at the last
/// character's own advance, so aligned numbers keep their outer glyphs whole.
@Suite struct RollingNumberSpacingTests {
    static let size = (width: 400, height: 100)

    /// The number 123456 in a 360 × 80 layer with `spacing` and `alignment`, drawn alone on
    /// a dark background.
    func render(spacing: Double, alignment: String) throws -> Surface {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Size(width: Double(Self.size.width), height: Double(Self.size.height)))
        var tx = Transaction(disableActions: true)
        tx.set("root", "backgroundColor", .color(Color(css: "#102030")!))
        tx.add(
            layer: "n", kind: "rolling-number", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 360, height: 80)), "position": .point(Point(x: 200, y: 50)),
                "fontSize": .number(60), "value": .number(123456), "format": .string("plain"),
                "alignmentMode": .string(alignment), "characterSpacing": .number(spacing),
                "textColor": .color(Color(css: "#ffd166")!),
            ])
        try scene.commit(tx, at: 0)
        return try StandardKinds.renderer().snapshot(scene, root: "root", at: 0)
    }

    /// The columns `x` of `s`, whole height.
    func columns(_ s: Surface, _ x: Range<Int>) -> Surface {
        s.copy(PixelRect(x: x.lowerBound, y: 0, width: x.count, height: Self.size.height))
    }

    /// The layer's right edge is x = 380: pixels there and just inside it, on the last
    /// glyph's rows.
    func inkTouchesRightEdge(_ s: Surface) -> Bool {
        (10..<90).contains { s.pixel(x: 379, y: $0) != s.pixel(x: 379, y: 5) }
    }

    @Test(arguments: [0.6, 0.8, 1.5, 2])
    func aRightAlignedNumberEndsWhereItDoesAtSpacingOne(spacing: Double) throws {
        let reference = try render(spacing: 1, alignment: "right")
        let spaced = try render(spacing: spacing, alignment: "right")
        // The last digit's right half: nothing of the digit before it reaches there.
        try GoldenImage.expectSamePixels(
            columns(spaced, 362..<400), as: columns(reference, 362..<400), name: "rolling-spacing-right-\(spacing)",
            "the last digit moved or lost pixels at spacing \(spacing)")
        #expect(!inkTouchesRightEdge(spaced), "the last digit is cut at the layer's edge at spacing \(spacing)")
    }

    @Test(arguments: [0.6, 1.5])
    func aLeftAlignedNumberStartsWhereItDoesAtSpacingOne(spacing: Double) throws {
        let reference = try render(spacing: 1, alignment: "left")
        let spaced = try render(spacing: spacing, alignment: "left")
        try GoldenImage.expectSamePixels(
            columns(spaced, 0..<35), as: columns(reference, 0..<35), name: "rolling-spacing-left-\(spacing)",
            "the first digit moved or lost pixels at spacing \(spacing)")
    }

    @Test func aCenteredNumberAtTighterSpacingIsNarrowerOnBothSides() throws {
        func inkColumns(_ s: Surface) -> Range<Int> {
            let background = s.pixel(x: 0, y: 0)
            let inked = (0..<Self.size.width).filter { x in (0..<Self.size.height).contains { s.pixel(x: x, y: $0) != background } }
            return inked.first!..<(inked.last! + 1)
        }
        let wide = try inkColumns(render(spacing: 1, alignment: "center"))
        let tight = try inkColumns(render(spacing: 0.6, alignment: "center"))
        #expect(tight.lowerBound > wide.lowerBound && tight.upperBound < wide.upperBound)
        // Centred on the same middle, to within a pixel of rounding.
        #expect(abs((tight.lowerBound + tight.upperBound) - (wide.lowerBound + wide.upperBound)) <= 2)
    }
}
