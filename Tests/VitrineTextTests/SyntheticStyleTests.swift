import Testing
@testable import VitrineText

/// Synthetic bold and oblique, held to cairo's drawing of the same request through Pango.
@Suite(.serialized) struct SyntheticStyleTests {
    /// A family with a regular face only (fontconfig's synthetic rules apply to it).
    static let family = "DejaVu Math TeX Gyre"
    static let text = "Synthetic Hamburgefonstiv 0123"
    static let (width, height) = (480, 60)

    @Test func fontconfigRulesMarkFacesToSynthesize() throws {
        let library = try fonts()
        let bold = try library.font(for: FontDescriptor(family: Self.family, weight: .bold)).primary
        #expect(bold.synthetic == SyntheticStyle(embolden: true, shear: 0))
        let italic = try library.font(for: FontDescriptor(family: Self.family, style: .italic)).primary
        #expect(italic.synthetic.shear == 0.2)
        #expect(!italic.synthetic.embolden)
        let regular = try library.font(for: FontDescriptor(family: Self.family)).primary
        #expect(regular.synthetic == .none)
        #expect(bold !== regular && bold.path == regular.path)
        // A family with real bold and oblique faces is not synthesized.
        let real = try library.font(for: FontDescriptor(family: "DejaVu Sans", weight: .bold, style: .italic)).primary
        #expect(real.synthetic == .none)
        #expect(real.styleName == "Bold Oblique")
    }

    @Test func syntheticBoldAndObliqueDrawLikeCairo() throws {
        let pango = PangoReference()
        for (weight, style) in [(FontWeight.bold, FontStyle.normal), (.regular, .italic), (.bold, .italic)] {
            let ours = try render(FontDescriptor(family: Self.family, weight: weight, style: style))
            let cairo = pango.render(
                Self.text, family: Self.family, size: 24, width: Self.width, height: Self.height,
                weight: Int32(weight.rawValue), italic: style == .italic)
            let theirs = stride(from: 0, to: cairo.count, by: 4).map { cairo[$0] }
            let plain = try render(FontDescriptor(family: Self.family))
            let (ink, slant) = difference(ours, theirs)
            let (plainInk, plainSlant) = difference(plain, theirs)
            #expect(ink < 0.005, "\(weight) \(style): ink differs by \(ink) from cairo's")
            #expect(slant < 0.5, "\(weight) \(style): rows' ink centres differ by up to \(slant) px")
            // The plain face is far from cairo's synthetic drawing: the comparison sees it.
            #expect(plainInk > 0.2 || plainSlant > 2, "\(weight) \(style): plain \(plainInk) \(plainSlant)")
        }
    }

    /// `text` in `font` at 24 px, black on white, as gray bytes; its first baseline where
    /// Pango puts it.
    private func render(_ font: FontDescriptor) throws -> [UInt8] {
        let layout = try TextLayout(Self.text, style: TextStyle(font: font, fontSize: 24), width: Double(Self.width), library: fonts())
        let pangoBaseline = PangoReference().lines(Self.text, family: Self.family, size: 24, width: Double(Self.width))[0].glyphs[0].y
        let dy = Int((pangoBaseline - layout.lines[0].baseline).rounded())
        var pixels = [Double](repeating: 1, count: Self.width * Self.height)
        layout.forEachGlyph { mask, x, y in
            for row in 0..<mask.height {
                for column in 0..<mask.width {
                    let px = x + column, py = y + row + dy
                    guard px >= 0, px < Self.width, py >= 0, py < Self.height else { continue }
                    pixels[py * Self.width + px] *= 1 - Double(mask.bytes[row * mask.stride + column]) / 255
                }
            }
        }
        return pixels.map { UInt8(($0 * 255).rounded()) }
    }

    /// How far apart two gray images are: the relative difference of their total ink
    /// (emboldening adds about a third), and the largest horizontal distance between the
    /// ink centres of a row in both, over rows with ink (shearing moves them 0.2 px a
    /// row). cairo 1.16 puts glyphs at whole pixels, Vitrine at quarter pixels, so pixels
    /// at the glyphs' edges differ and are not compared one by one.
    private func difference(_ a: [UInt8], _ b: [UInt8]) -> (ink: Double, slant: Double) {
        func rows(_ image: [UInt8]) -> [(ink: Double, centre: Double)] {
            (0..<Self.height).map { y in
                var ink = 0.0, moment = 0.0
                for x in 0..<Self.width {
                    let v = Double(255 - Int(image[y * Self.width + x]))
                    ink += v
                    moment += v * Double(x)
                }
                return (ink, ink > 0 ? moment / ink : 0)
            }
        }
        let ra = rows(a), rb = rows(b)
        let inkA = ra.reduce(0) { $0 + $1.ink }, inkB = rb.reduce(0) { $0 + $1.ink }
        let threshold = 0.05 * (rb.map(\.ink).max() ?? 0)
        let slant = zip(ra, rb).filter { $0.ink > threshold && $1.ink > threshold }.map { abs($0.centre - $1.centre) }.max() ?? 0
        return (abs(inkA - inkB) / max(1, inkB), slant)
    }
}
