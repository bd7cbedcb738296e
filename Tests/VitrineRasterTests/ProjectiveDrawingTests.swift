import Glibc
import Testing
import VitrineCore
@testable import VitrineRaster

@Suite struct ProjectiveDrawingTests {
    /// A 64×64 image whose pixel (x, y) has red 4x, green 4y, opaque.
    func ramp() -> Surface {
        let s = Surface(width: 64, height: 64)
        for y in 0..<64 {
            for x in 0..<64 { s.setPixel(x: x, y: y, PremultipliedColor(unchecked: 0xFF00_0000 | UInt32(4 * x) << 16 | UInt32(4 * y) << 8)) }
        }
        return s
    }

    /// The card turned 50° about its vertical centre line, seen from 300, centred at (100, 80).
    var card: ProjectiveTransform {
        Transform3D(translationX: -32, y: -32).concatenating(Transform3D(rotationAngle: 50 * .pi / 180, x: 0, y: 1, z: 0))
            .concatenating(Transform3D(perspective: 300)).concatenating(Transform3D(translationX: 100, y: 80)).flattened
    }

    @Test func eachPixelShowsTheImagePointItsCentreMapsBackTo() throws {
        let image = ramp(), target = Surface(width: 200, height: 160)
        target.draw(image: image, in: Rect(x: 0, y: 0, width: 64, height: 64), projection: card)
        let inverse = try #require(card.inverted)
        var checked = 0
        for y in 0..<160 {
            for x in 0..<200 {
                let p = try #require(inverse.apply(to: Point(x: Double(x) + 0.5, y: Double(y) + 0.5)))
                let got = target.pixel(x: x, y: y)
                if p.x < -1 || p.x > 65 || p.y < -1 || p.y > 65 {
                    #expect(got.alpha == 0, "\(x),\(y) outside")
                } else if p.x > 1, p.x < 63, p.y > 1, p.y < 63 {
                    // Bilinear of a linear ramp is the ramp at the sample point (centres at half-integers).
                    let red = Double(got.argb >> 16 & 0xFF), green = Double(got.argb >> 8 & 0xFF)
                    #expect(got.alpha == 255)
                    #expect(abs(red - 4 * (p.x - 0.5)) <= 2.5, "\(x),\(y) red \(red) at \(p)")
                    #expect(abs(green - 4 * (p.y - 0.5)) <= 2.5, "\(x),\(y) green \(green) at \(p)")
                    checked += 1
                }
            }
        }
        #expect(checked > 1500)
    }

    @Test func theProjectedCornersAreWhereTheyAreComputed() throws {
        let image = Surface(width: 64, height: 64)
        image.clear(PremultipliedColor(unchecked: 0xFFFF_FFFF))
        let target = Surface(width: 200, height: 160)
        target.draw(image: image, in: Rect(x: 0, y: 0, width: 64, height: 64), projection: card)
        // Right edge x = 32·cos 50° / (1 + 32·sin 50°/300) from the centre, left 32·cos 50° / (1 − …).
        let c = cos(50 * Double.pi / 180), s = sin(50 * Double.pi / 180)
        let right = 100 + 32 * c / (1 + 32 * s / 300), left = 100 - 32 * c / (1 - 32 * s / 300)
        let coveredColumns = (0..<200).filter { target.pixel(x: $0, y: 80).alpha > 0 }
        #expect(coveredColumns.first == Int(left.rounded(.down)))
        #expect(coveredColumns.last == Int(right.rounded(.down)))
        // The nearer (left) edge is taller: 32/(1 − 32·sin 50°/300) above the centre.
        let top = 80 - 32 / (1 - 32 * s / 300)
        let coveredRows = (0..<160).filter { target.pixel(x: Int(left) + 1, y: $0).alpha > 0 }
        #expect(abs(Double(coveredRows.first!) - top) < 2)
        #expect(target.pixel(x: Int(right.rounded(.down)), y: 80).alpha < 255)
    }

    @Test func withoutPerspectiveItDrawsAsTheAffinePath() {
        let image = ramp()
        let t = AffineTransform(rotationAngle: 0.3).concatenating(AffineTransform(translationX: 40.25, y: 20))
        let a = Surface(width: 160, height: 140), b = Surface(width: 160, height: 140)
        a.draw(image: image, in: Rect(x: 0, y: 0, width: 64, height: 64), transform: t, filter: .bilinear)
        b.draw(image: image, in: Rect(x: 0, y: 0, width: 64, height: 64), projection: ProjectiveTransform(t))
        #expect(a.hasSamePixels(as: b))
    }

    @Test func thePartBehindTheEyeIsNotDrawn() {
        let image = ramp(), target = Surface(width: 300, height: 200)
        // Turned nearly edge-on and seen from close, the left third passes behind the eye: the
        // part in front stretches to the left border, the part behind (drawn, it would land
        // mirrored on the right) is left out.
        let h = Transform3D(translationX: -32, y: -32).concatenating(Transform3D(rotationAngle: 1.4, x: 0, y: 1, z: 0))
            .concatenating(Transform3D(perspective: 20)).concatenating(Transform3D(translationX: 150, y: 100)).flattened
        target.draw(image: image, in: Rect(x: 0, y: 0, width: 64, height: 64), projection: h)
        #expect(target.pixel(x: 150, y: 100).alpha == 255)
        #expect((0..<148).allSatisfy { target.pixel(x: $0, y: 100).alpha == 255 })
        #expect((154..<300).allSatisfy { target.pixel(x: $0, y: 100).alpha == 0 })
    }
}
