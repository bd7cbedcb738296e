import Foundation
import Testing
import VitrineCore
@testable import VitrineRaster

/// Golden scenes: a card with shadow, border and clipped gradient; gradients; a rotated,
/// clipped image. Each was inspected by eye when its reference was written.
@Suite struct GoldenScenes {
    @Test func card() throws {
        let s = Surface(width: 320, height: 240)
        s.clear(PremultipliedColor(Color(red: 0.93, green: 0.94, blue: 0.96)))
        let card = Rect(x: 60.5, y: 50.25, width: 200, height: 130)
        s.drawShadow(
            Shadow(color: .black, opacity: 0.5, offset: Size(width: 0, height: 8), radius: 16),
            of: .roundedRect(card, radii: CornerRadii(18), corners: .all))
        s.fillRoundedRect(card, radii: CornerRadii(18), color: .white)
        s.drawBorder(of: card, width: 4, radii: CornerRadii(18), color: PremultipliedColor(Color(red: 0.2, green: 0.4, blue: 0.9)))
        let pill = Rect(x: 90, y: 120, width: 140, height: 36)
        s.fill(
            pill,
            gradient: Gradient(
                colors: [Color(red: 1, green: 0.5, blue: 0), Color(red: 0.9, green: 0, blue: 0.5)],
                startPoint: Point(x: 0, y: 0.5), endPoint: Point(x: 1, y: 0.5)),
            clip: Clip(path: Path(roundedRect: pill, radii: CornerRadii(18)), within: s.bounds))
        try expectMatchesGolden(s, "card")
    }

    @Test func gradients() throws {
        let s = Surface(width: 300, height: 150)
        let colors = [Color(red: 0.1, green: 0.2, blue: 0.8), Color(red: 1, green: 1, blue: 1, alpha: 0), Color(red: 0.9, green: 0.1, blue: 0.1)]
        s.fill(Rect(x: 0, y: 0, width: 150, height: 150), gradient: Gradient(colors: colors, startPoint: Point(x: 0, y: 0), endPoint: Point(x: 1, y: 1)))
        s.fill(
            Rect(x: 150, y: 0, width: 150, height: 150),
            gradient: Gradient(colors: colors, locations: [0, 0.3, 1], startPoint: Point(x: 0.5, y: 0.5), endPoint: Point(x: 1, y: 0.8), kind: .radial))
        try expectMatchesGolden(s, "gradients")
    }

    @Test func rotatedImage() throws {
        let image = Surface(width: 64, height: 48)
        for y in 0..<48 {
            for x in 0..<64 {
                let check = (x / 8 + y / 8) % 2 == 0
                image.setPixel(x: x, y: y, PremultipliedColor(Color(red: check ? 1 : 0.1, green: Double(x) / 64, blue: Double(y) / 48)))
            }
        }
        let s = Surface(width: 300, height: 300)
        s.clear(PremultipliedColor(Color(red: 0.2, green: 0.2, blue: 0.2)))
        let t = AffineTransform(translationX: -80, y: -60)
            .concatenating(AffineTransform(rotationAngle: 0.5))
            .concatenating(AffineTransform(translationX: 150, y: 150))
        let roundClip = Clip(path: Path(roundedRect: Rect(x: 0, y: 0, width: 160, height: 120), radii: CornerRadii(24)), transform: t, within: s.bounds)
        s.draw(image: image, in: Rect(x: 0, y: 0, width: 160, height: 120), transform: t, opacity: 0.9, clip: roundClip)
        try expectMatchesGolden(s, "rotated-image")
    }
}

extension GoldenScenes {
    /// Per-corner radii, masked corners and borders at fractional positions, under a
    /// rotation, plus a group faded as one.
    @Test func cornersAndGroups() throws {
        let s = Surface(width: 320, height: 200)
        s.clear(.white)
        let blue = PremultipliedColor(Color(red: 0.15, green: 0.35, blue: 0.85))
        let orange = PremultipliedColor(Color(red: 1, green: 0.55, blue: 0.1, alpha: 0.8))
        let radii = CornerRadii(minXMinY: 4, maxXMinY: 30, minXMaxY: 12, maxXMaxY: 0)
        s.fillRoundedRect(Rect(x: 10.5, y: 10.5, width: 120, height: 80), radii: radii, color: orange)
        s.drawBorder(of: Rect(x: 10.5, y: 10.5, width: 120, height: 80), width: 6, radii: radii, color: blue)
        s.drawBorder(
            of: Rect(x: 150.3, y: 12.7, width: 150, height: 70), width: 10, radii: CornerRadii(35),
            corners: [.minXMinY, .maxXMaxY], color: blue)
        let spin = AffineTransform(translationX: -40, y: -25).concatenating(AffineTransform(rotationAngle: -0.35))
            .concatenating(AffineTransform(translationX: 80, y: 145))
        s.drawBorder(of: Rect(x: 0, y: 0, width: 80, height: 50), width: 3, radii: CornerRadii(10), color: blue, transform: spin)
        s.drawGroup(bounds: PixelRect(x: 160, y: 100, width: 150, height: 90), opacity: 0.5) { g, toGroup in
            g.fill(Path(ellipseIn: Rect(x: 170, y: 105, width: 80, height: 80)), color: blue, transform: toGroup)
            g.fill(Path(ellipseIn: Rect(x: 215, y: 105, width: 80, height: 80)), color: orange, transform: toGroup)
        }
        try expectMatchesGolden(s, "corners-and-groups")
    }
}
