import Testing
@testable import VitrineRaster

/// The SIMD kernels against per-channel reference math, over random rows whose lengths
/// exercise both the 8-pixel blocks and the scalar tails.
@Suite struct KernelTests {
    static let lengths = [1, 7, 8, 9, 16, 23, 64, 101]

    @Test func solidOverMatchesReference() {
        var rng = SplitMix(seed: 1)
        for n in Self.lengths {
            for _ in 0..<40 {
                let src = rng.premultiplied()
                var dst = (0..<n).map { _ in rng.premultiplied() }
                let expected = dst.map { Reference.over(src, $0) }
                dst.withUnsafeMutableBufferPointer { Kernels.overSolid($0.baseAddress!, count: n, src) }
                #expect(dst == expected, "src \(src)")
            }
        }
    }

    /// Every length up to 80 at every alignment: the value in exactly those pixels.
    @Test func fillStoresValue() {
        for offset in 0..<8 {
            for count in 0...80 {
                var dst = [UInt32](repeating: 7, count: count + 16)
                dst.withUnsafeMutableBufferPointer { Kernels.fill($0.baseAddress! + offset, count: count, 0x8040_2010) }
                let inside = offset..<(offset + count)
                #expect(dst.indices.allSatisfy { inside.contains($0) ? dst[$0] == 0x8040_2010 : dst[$0] == 7 }, "offset \(offset), count \(count)")
            }
        }
    }

    /// Masks made of whole 8-pixel blocks of 0, of 255 and of mixed coverage, so that
    /// every block shortcut is taken, for opaque and translucent colours.
    @Test func maskedSolidOverWithUniformBlocksMatchesReference() {
        var rng = SplitMix(seed: 12)
        for n in Self.lengths {
            for trial in 0..<40 {
                var src = rng.premultiplied()
                if trial % 2 == 0 { src |= 0xFF00_0000 }
                let mask: [UInt8] = (0..<n).map { i in
                    switch (i / 8 + trial) % 3 {
                    case 0: 255
                    case 1: 0
                    default: rng.coverage()
                    }
                }
                expectMaskedSolidOverMatchesReference(src, mask: mask, over: (0..<n).map { _ in rng.premultiplied() })
            }
        }
    }

    @Test func maskedSolidOverMatchesReference() {
        var rng = SplitMix(seed: 2)
        for n in Self.lengths {
            for _ in 0..<40 {
                let src = rng.premultiplied()
                let mask = (0..<n).map { _ in rng.coverage() }
                expectMaskedSolidOverMatchesReference(src, mask: mask, over: (0..<n).map { _ in rng.premultiplied() })
            }
        }
    }

    /// `(src IN mask) OVER dst` by the kernel equals the reference, pixel for pixel.
    private func expectMaskedSolidOverMatchesReference(
        _ src: UInt32, mask: [UInt8], over dst: [UInt32], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let expected = dst.indices.map {
            mask[$0] == 0 ? dst[$0] : Reference.over(Reference.inn(src, Int(mask[$0])), dst[$0])
        }
        var dst = dst
        dst.withUnsafeMutableBufferPointer { d in
            mask.withUnsafeBufferPointer { Kernels.overSolidMasked(d.baseAddress!, $0.baseAddress!, count: d.count, src) }
        }
        #expect(dst == expected, sourceLocation: sourceLocation)
    }

    @Test func imageOverWithOpacityMatchesReference() {
        var rng = SplitMix(seed: 3)
        for n in Self.lengths {
            for opacity in [0, 1, 128, 254, 255] {
                let src = (0..<n).map { _ in rng.premultiplied() }
                var dst = (0..<n).map { _ in rng.premultiplied() }
                let expected = (0..<n).map {
                    opacity == 0 ? dst[$0] : Reference.over(Reference.inn(src[$0], opacity), dst[$0])
                }
                dst.withUnsafeMutableBufferPointer { d in
                    src.withUnsafeBufferPointer {
                        Kernels.overImage(d.baseAddress!, $0.baseAddress!, count: n, opacity: UInt32(opacity))
                    }
                }
                #expect(dst == expected, "opacity \(opacity)")
            }
        }
    }

    @Test func maskedImageOverMatchesReference() {
        var rng = SplitMix(seed: 4)
        for n in Self.lengths {
            for _ in 0..<40 {
                let src = (0..<n).map { _ in rng.premultiplied() }
                let mask = (0..<n).map { _ in rng.coverage() }
                var dst = (0..<n).map { _ in rng.premultiplied() }
                let expected = (0..<n).map { Reference.over(Reference.inn(src[$0], Int(mask[$0])), dst[$0]) }
                dst.withUnsafeMutableBufferPointer { d in
                    src.withUnsafeBufferPointer { s in
                        mask.withUnsafeBufferPointer {
                            Kernels.overImageMasked(d.baseAddress!, s.baseAddress!, $0.baseAddress!, count: n)
                        }
                    }
                }
                #expect(dst == expected)
            }
        }
    }

    @Test func premultipliedConversionRoundsAndKeepsInvariant() {
        let c = PremultipliedColor(Color(red: 1, green: 0.5, blue: 0, alpha: 0.5))
        #expect(c.argb == 0x8080_4000)
        #expect(PremultipliedColor(argb: 0x10FF_0000) == nil)
        var rng = SplitMix(seed: 5)
        for _ in 0..<500 {
            let color = Color(
                red: .random(in: 0...1, using: &rng), green: .random(in: 0...1, using: &rng),
                blue: .random(in: 0...1, using: &rng), alpha: .random(in: 0...1, using: &rng))
            let p = PremultipliedColor(color)
            #expect(PremultipliedColor(argb: p.argb) != nil)
            let back = PremultipliedColor(p.color)
            #expect(back == p)
        }
    }
}

import VitrineCore
