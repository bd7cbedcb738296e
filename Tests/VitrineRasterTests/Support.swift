import Foundation
import Testing
import VitrineCore
@testable import VitrineRaster
import VitrineTestSupport

/// The raster tests' name for the shared seeded generator.
typealias SplitMix = SeededGenerator

/// Reference math written channel by channel, the way pixman's C reads.
enum Reference {
    static func div255(_ x: Int, _ a: Int) -> Int {
        let t = x * a + 0x80
        return (t + (t >> 8)) >> 8
    }

    static func channels(_ p: UInt32) -> [Int] {
        [Int(p >> 24), Int((p >> 16) & 0xFF), Int((p >> 8) & 0xFF), Int(p & 0xFF)]
    }

    static func pack(_ c: [Int]) -> UInt32 {
        UInt32(c[0]) << 24 | UInt32(c[1]) << 16 | UInt32(c[2]) << 8 | UInt32(c[3])
    }

    static func inn(_ s: UInt32, _ m: Int) -> UInt32 { pack(channels(s).map { div255($0, m) }) }

    static func over(_ s: UInt32, _ d: UInt32) -> UInt32 {
        let sc = channels(s), dc = channels(d)
        let ia = 255 - sc[0]
        return pack((0..<4).map { min(255, sc[$0] + div255(dc[$0], ia)) })
    }
}

extension RandomNumberGenerator {
    /// A random premultiplied pixel, biased towards the special alphas 0 and 255.
    mutating func premultiplied() -> UInt32 {
        let pick = Int.random(in: 0..<8, using: &self)
        let a: Int = pick == 0 ? 0 : pick == 1 ? 255 : Int.random(in: 0...255, using: &self)
        let c = (0..<3).map { _ in Int.random(in: 0...a, using: &self) }
        return Reference.pack([a] + c)
    }

    mutating func coverage() -> UInt8 {
        let pick = Int.random(in: 0..<6, using: &self)
        return pick == 0 ? 0 : pick == 1 ? 255 : UInt8.random(in: 0...255, using: &self)
    }
}

/// Sum of alpha over a region divided by 255: covered area in pixels for an opaque paint.
func coveredArea(_ s: Surface, _ r: PixelRect? = nil) -> Double {
    let r = r ?? s.bounds
    var sum = 0
    for y in r.y..<r.maxY { for x in r.x..<r.maxX { sum += Int(s.pixel(x: x, y: y).alpha) } }
    return Double(sum) / 255
}

let outputDirectory: URL = {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-raster-tests")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}()
