import Foundation
import Testing
import VitrineRaster
import VitrineTestSupport
@testable import VitrineText

/// Emoji drawn by us against the same emoji drawn by Pango and cairo (`pango-view`, from
/// Debian's pango1.0-tools) with the same font at the same pixel size, both on white: the
/// inked boxes are compared after aligning their top-left corners.
@Suite struct PangoEmojiTests {
    /// Per-channel mean and worst difference, and the ink boxes' sizes.
    struct Comparison: CustomStringConvertible {
        var mean: Double
        var worst: Int
        var ours: PixelRect
        var pango: PixelRect
        var description: String {
            "mean \(String(format: "%.2f", mean))/255, worst \(worst)/255, ink \(ours.width)x\(ours.height) vs \(pango.width)x\(pango.height)"
        }
    }

    static func pango(_ text: String, size: Int) throws -> Surface {
        let path = GoldenImage.failuresDirectory.appendingPathComponent("pango-\(size)-\(text.unicodeScalars.first!.value).png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pango-view")
        process.arguments = ["-q", "--pixels", "--font=DejaVu Sans \(size)px", "--margin=8", "--background=white", "--text=\(text)", "-o", path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return try Surface(contentsOfPNG: path)
    }

    static func ours(_ text: String, size: Int, in library: FontLibrary) throws -> Surface {
        let layout = try TextLayout(text, style: TextStyle(fontSize: Double(size)), library: library)
        let surface = Surface(width: Int(layout.size.width) + 16, height: Int(layout.size.height) + 16)
        surface.clear(.white)
        layout.forEachGlyph { mask, x, y in
            if let image = mask.image { surface.composite(image, x: x + 8, y: y + 8) }
        }
        return surface
    }

    /// The box of pixels that are not white.
    static func ink(_ s: Surface) -> PixelRect {
        var box = PixelRect.empty
        for y in 0..<s.height {
            for x in 0..<s.width where s.pixel(x: x, y: y).argb & 0xFFFFFF != 0xFFFFFF {
                box = box.isEmpty ? PixelRect(x: x, y: y, width: 1, height: 1) : box.union(PixelRect(x: x, y: y, width: 1, height: 1))
            }
        }
        return box
    }

    static func compare(_ a: Surface, _ b: Surface) -> Comparison {
        let (ia, ib) = (ink(a), ink(b))
        let (w, h) = (max(ia.width, ib.width), max(ia.height, ib.height))
        var total = 0, worst = 0, count = 0
        func channels(_ s: Surface, _ x: Int, _ y: Int) -> [Int] {
            guard x < s.width, y < s.height else { return [255, 255, 255] }
            let p = s.pixel(x: x, y: y)
            return [Int(p.red), Int(p.green), Int(p.blue)]
        }
        for y in 0..<h {
            for x in 0..<w {
                for (u, v) in zip(channels(a, ia.x + x, ia.y + y), channels(b, ib.x + x, ib.y + y)) {
                    total += abs(u - v)
                    worst = max(worst, abs(u - v))
                    count += 1
                }
            }
        }
        return Comparison(mean: Double(total) / Double(max(1, count)), worst: worst, ours: ia, pango: ib)
    }

    @Test(arguments: [16, 32, 48, 96])
    func emojiLikePango(_ size: Int) throws {
        let library = try fonts()
        for text in ["😀", "👍🏽", "🇫🇷", "👨‍👩‍👧"] {
            let comparison = Self.compare(try Self.ours(text, size: size, in: library), try Self.pango(text, size: size))
            print("pango \(size)px \(text): \(comparison)")
            #expect(abs(comparison.ours.width - comparison.pango.width) <= 1 && abs(comparison.ours.height - comparison.pango.height) <= 1, "\(comparison)")
            #expect(comparison.mean < 1 && comparison.worst <= 24, "\(text) at \(size) px: \(comparison)")
        }
    }
}
