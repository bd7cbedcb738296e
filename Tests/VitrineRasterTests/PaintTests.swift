import Foundation
import Testing
import VitrineCore
@testable import VitrineRaster
import VitrineTestSupport

@Suite struct GradientTests {
    let red = Color(red: 1, green: 0, blue: 0), blue = Color(red: 0, green: 0, blue: 1)

    @Test func axialEndpointsAndMiddle() {
        let s = Surface(width: 101, height: 4)
        let g = Gradient(colors: [red, blue], startPoint: Point(x: 0, y: 0.5), endPoint: Point(x: 1, y: 0.5))
        s.fill(Rect(x: 0, y: 0, width: 101, height: 4), gradient: g)
        let first = s.pixel(x: 0, y: 1), last = s.pixel(x: 100, y: 1), mid = s.pixel(x: 50, y: 1)
        #expect(first.red >= 252 && first.blue <= 3, "\(first)")
        #expect(last.blue >= 252 && last.red <= 3, "\(last)")
        #expect(abs(Int(mid.red) - 128) <= 2 && abs(Int(mid.blue) - 128) <= 2, "\(mid)")
        #expect(mid.alpha == 255)
    }

    @Test func defaultDirectionIsTopToBottom() {
        let s = Surface(width: 4, height: 100)
        s.fill(Rect(x: 0, y: 0, width: 4, height: 100), gradient: Gradient(colors: [red, blue]))
        #expect(s.pixel(x: 2, y: 0).red > 250)
        #expect(s.pixel(x: 2, y: 99).blue > 250)
    }

    @Test func locationsHoldEndColoursBeyondTheirStops() {
        let g = Gradient(colors: [red, blue], locations: [0.25, 0.75])
        #expect(g.color(at: 0.1) == red)
        #expect(g.color(at: 0.9) == blue)
        #expect(abs(g.color(at: 0.5).red - 0.5) < 1e-9)
    }

    @Test func interpolatesPremultipliedSoFadesKeepTheirHue() {
        let g = Gradient(colors: [.clear, red])
        let c = g.color(at: 0.5)
        #expect(abs(c.red - 1) < 1e-9 && abs(c.alpha - 0.5) < 1e-9)
    }

    @Test func radialReachesLastColourAtTheEllipse() {
        let s = Surface(width: 200, height: 100)
        let g = Gradient(colors: [red, blue], startPoint: Point(x: 0.5, y: 0.5), endPoint: Point(x: 1, y: 1), kind: .radial)
        s.fill(Rect(x: 0, y: 0, width: 200, height: 100), gradient: g)
        #expect(s.pixel(x: 100, y: 50).red > 250)
        // (100 ± 100, 50) and (100, 50 ± 50) lie on the ellipse.
        #expect(s.pixel(x: 199, y: 50).blue > 250)
        #expect(s.pixel(x: 100, y: 99).blue > 250)
        #expect(abs(Int(s.pixel(x: 150, y: 50).red) - 128) <= 3)
    }
}

@Suite struct ImageTests {
    static func pattern(_ w: Int, _ h: Int) -> Surface {
        let s = Surface(width: w, height: h)
        var rng = SplitMix(seed: 9)
        for y in 0..<h { for x in 0..<w { s.setPixel(x: x, y: y, PremultipliedColor(unchecked: rng.premultiplied())) } }
        return s
    }

    @Test func pngRoundTripIsLossless() throws {
        let s = Self.pattern(37, 21)
        let path = outputDirectory.appendingPathComponent("roundtrip.png").path
        try s.writePNG(to: path)
        let back = try Surface(contentsOfPNG: path)
        try GoldenImage.expectSamePixels(back, as: s, name: "png-round-trip", "the PNG read back")
    }

    @Test func pngErrorsNameThePath() {
        let path = "/nonexistent/vitrine/missing.png"
        #expect {
            _ = try Surface(contentsOfPNG: path)
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("open")
        }
        let notPNG = outputDirectory.appendingPathComponent("not.png").path
        _ = FileManager.default.createFile(atPath: notPNG, contents: Data("hello".utf8))
        #expect(throws: PNGError.self) { _ = try Surface(contentsOfPNG: notPNG) }
    }

    @Test func bilinearIdentityEqualsCopy() throws {
        let image = Self.pattern(45, 30)
        let a = Surface(width: 45, height: 30), b = Surface(width: 45, height: 30)
        a.draw(image: image, in: Rect(x: 0, y: 0, width: 45, height: 30), filter: .bilinear)
        b.composite(image, x: 0, y: 0)
        try GoldenImage.expectSamePixels(a, as: b, name: "bilinear-identity", "bilinear at scale 1 against a composite")
        try GoldenImage.expectSamePixels(b, as: image, name: "bilinear-identity-composite", "the composite against the image")
    }

    @Test func integerTranslationIsAPlainCopy() throws {
        let image = Self.pattern(10, 10)
        let s = Surface(width: 30, height: 30)
        s.draw(image: image, in: Rect(x: 0, y: 0, width: 10, height: 10), transform: AffineTransform(translationX: 7, y: 12))
        try GoldenImage.expectSamePixels(
            s.copy(PixelRect(x: 7, y: 12, width: 10, height: 10)), as: image, name: "integer-translation", "the image moved by whole pixels")
        #expect(s.pixel(x: 6, y: 12) == .transparent)
    }

    @Test func scalingUpAConstantImageKeepsItConstant() {
        let image = Surface(width: 4, height: 4)
        image.clear(PremultipliedColor(unchecked: 0x8040_2010))
        let s = Surface(width: 40, height: 40)
        s.draw(image: image, in: Rect(x: 0, y: 0, width: 40, height: 40), transform: .identity)
        for y in 0..<40 { for x in 0..<40 { #expect(s.pixel(x: x, y: y).argb == 0x8040_2010) } }
    }

    @Test func opacityScalesTheImage() {
        let image = Surface(width: 8, height: 8)
        image.clear(.white)
        let s = Surface(width: 8, height: 8)
        s.draw(image: image, in: Rect(x: 0, y: 0, width: 8, height: 8), opacity: 0.5)
        #expect(s.pixel(x: 3, y: 3).argb == 0x8080_8080)
    }

    @Test func rotatedImageCoversItsArea() {
        let image = Surface(width: 20, height: 10)
        image.clear(.white)
        let s = Surface(width: 60, height: 60)
        let t = AffineTransform(rotationAngle: 0.7).concatenating(AffineTransform(translationX: 30, y: 20))
        s.draw(image: image, in: Rect(x: 0, y: 0, width: 20, height: 10), transform: t)
        #expect(abs(coveredArea(s) - 200) < 0.5)
    }
}

@Suite struct GravityTests {
    let content = Size(width: 200, height: 100)
    let bounds = Rect(x: 10, y: 20, width: 100, height: 100)

    @Test(arguments: [
        (ContentsGravity.resize, Rect(x: 10, y: 20, width: 100, height: 100)),
        (.resizeAspect, Rect(x: 10, y: 45, width: 100, height: 50)),
        (.resizeAspectFill, Rect(x: -40, y: 20, width: 200, height: 100)),
        (.center, Rect(x: -40, y: 20, width: 200, height: 100)),
        (.top, Rect(x: -40, y: 20, width: 200, height: 100)),
        (.bottom, Rect(x: -40, y: 20, width: 200, height: 100)),
        (.left, Rect(x: 10, y: 20, width: 200, height: 100)),
        (.right, Rect(x: -90, y: 20, width: 200, height: 100)),
        (.topLeft, Rect(x: 10, y: 20, width: 200, height: 100)),
        (.bottomRight, Rect(x: -90, y: 20, width: 200, height: 100)),
    ])
    func wideContent(_ gravity: ContentsGravity, _ expected: Rect) {
        #expect(gravity.rect(contentSize: content, bounds: bounds) == expected)
    }

    @Test func smallContentSitsWhereTheGravitySays() {
        let small = Size(width: 20, height: 10)
        #expect(ContentsGravity.top.rect(contentSize: small, bounds: bounds) == Rect(x: 50, y: 20, width: 20, height: 10))
        #expect(ContentsGravity.bottom.rect(contentSize: small, bounds: bounds) == Rect(x: 50, y: 110, width: 20, height: 10))
        #expect(ContentsGravity.bottomLeft.rect(contentSize: small, bounds: bounds) == Rect(x: 10, y: 110, width: 20, height: 10))
        #expect(ContentsGravity.topRight.rect(contentSize: small, bounds: bounds) == Rect(x: 90, y: 20, width: 20, height: 10))
        #expect(ContentsGravity.right.rect(contentSize: small, bounds: bounds) == Rect(x: 90, y: 65, width: 20, height: 10))
    }
}

@Suite struct ShadowTests {
    @Test func blurKeepsTotalCoverage() {
        let m = A8Mask(width: 80, height: 80)
        for y in 30..<50 { for x in 30..<50 { m[x, y] = 255 } }
        m.blur(sigma: 4)
        #expect(abs(m.totalCoverage - 400) < 4)
        #expect(m[40, 40] > 200 && m[40, 40] < 255 || m[40, 40] == 255)
        #expect(m[29, 40] > 60 && m[29, 40] < 200)
        #expect(m[10, 40] == 0)
    }

    @Test func stretchedRectShadowMatchesTheFullBlur() {
        let rect = Rect(x: 20.5, y: 30.25, width: 300, height: 200)
        let shadow = Shadow(color: .black, opacity: 1, offset: Size(width: 3, height: 5), radius: 12)
        let fast = Surface(width: 360, height: 280), slow = Surface(width: 360, height: 280)
        fast.drawShadow(shadow, of: .roundedRect(rect, radii: CornerRadii(16), corners: .all))
        slow.drawShadow(shadow, of: .path(Path(roundedRect: rect, radii: CornerRadii(16))))
        var worst = 0
        for y in 0..<280 {
            for x in 0..<360 {
                worst = max(worst, abs(Int(fast.pixel(x: x, y: y).alpha) - Int(slow.pixel(x: x, y: y).alpha)))
            }
        }
        #expect(worst <= 1)
        #expect(abs(coveredArea(fast) - coveredArea(slow)) < 1)
        #expect(abs(coveredArea(slow) - (300 * 200 - (4 - Double.pi) * 256)) < 80)
    }

    @Test func shadowIsOffset() {
        let s = Surface(width: 100, height: 100)
        s.drawShadow(Shadow(offset: Size(width: 20, height: 0), radius: 2), of: .rect(Rect(x: 20, y: 20, width: 40, height: 40)))
        #expect(s.pixel(x: 22, y: 40).alpha == 0)
        #expect(s.pixel(x: 70, y: 40).alpha > 250)
    }
}

@Suite struct GroupTests {
    @Test func groupOpacityFadesOverlapsAsOne() {
        let s = Surface(width: 30, height: 10)
        s.drawGroup(bounds: s.bounds, opacity: 0.5) { g, toGroup in
            g.fill(Rect(x: 0, y: 0, width: 20, height: 10), color: .white, transform: toGroup)
            g.fill(Rect(x: 10, y: 0, width: 20, height: 10), color: .white, transform: toGroup)
        }
        #expect(s.pixel(x: 5, y: 5).alpha == 128)
        #expect(s.pixel(x: 15, y: 5).alpha == 128)
    }

    @Test func groupOffsetsByItsBounds() {
        let s = Surface(width: 30, height: 30)
        s.drawGroup(bounds: PixelRect(x: 10, y: 10, width: 10, height: 10), opacity: 1) { g, toGroup in
            g.fill(Rect(x: 0, y: 0, width: 30, height: 30), color: .white, transform: toGroup)
        }
        #expect(coveredArea(s) == 100)
        #expect(s.pixel(x: 10, y: 10).alpha == 255)
    }
}

@Suite struct CopyTests {
    @Test func copyPixelsReplacesWithoutBlending() {
        let source = ImageTests.pattern(20, 20)
        let s = Surface(width: 10, height: 10)
        s.clear(.white)
        s.copyPixels(from: source, sourceRect: PixelRect(x: 5, y: 6, width: 8, height: 8), x: 4, y: 3)
        #expect(s.pixel(x: 4, y: 3) == source.pixel(x: 5, y: 6))
        #expect(s.pixel(x: 9, y: 9) == source.pixel(x: 10, y: 12))
        #expect(s.pixel(x: 3, y: 3) == .white)
    }
}

extension GradientTests {
    /// Core Animation maps the unit points onto the bounds and draws there, so on a wide
    /// layer a corner-to-corner ramp has bands perpendicular to the diagonal in pixels.
    @Test func axialBandsArePerpendicularInLayerSpace() {
        let s = Surface(width: 200, height: 50)
        let g = Gradient(colors: [.black, .white], startPoint: Point(x: 0, y: 0), endPoint: Point(x: 1, y: 1))
        s.fill(Rect(x: 0, y: 0, width: 200, height: 50), gradient: g)
        // Moving along (−50, 200)/|·|, perpendicular to the diagonal (200, 50), keeps the colour.
        let a = s.pixel(x: 100, y: 10), b = s.pixel(x: 97, y: 22)
        #expect(abs(Int(a.red) - Int(b.red)) <= 1, "\(a) vs \(b)")
        // The start and end corners hold the end colours.
        #expect(s.pixel(x: 0, y: 0).red <= 2)
        #expect(s.pixel(x: 199, y: 49).red >= 253)
    }
}

extension ImageTests {
    @Test func nearestScalingRepeatsPixels() {
        let image = Self.pattern(4, 3)
        let s = Surface(width: 8, height: 6)
        s.draw(image: image, in: Rect(x: 0, y: 0, width: 8, height: 6), filter: .nearest)
        for y in 0..<6 { for x in 0..<8 { #expect(s.pixel(x: x, y: y) == image.pixel(x: x / 2, y: y / 2)) } }
    }
}
