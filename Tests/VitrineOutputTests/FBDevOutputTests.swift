import Foundation
import CLinuxConsole
import Testing
@testable import VitrineOutput
import VitrineRaster

/// The framebuffer backend against a framebuffer in ordinary memory.
@Suite struct FBDevOutputTests {
    func screenInfo(width: Int, height: Int, bpp: Int = 32, redOffset: Int = 16) -> (fb_var_screeninfo, fb_fix_screeninfo) {
        var v = fb_var_screeninfo()
        v.xres = UInt32(width); v.yres = UInt32(height); v.bits_per_pixel = UInt32(bpp)
        if bpp == 16 {
            (v.red.offset, v.red.length, v.green.offset, v.green.length, v.blue.offset, v.blue.length) = (11, 5, 5, 6, 0, 5)
        } else {
            v.red.offset = UInt32(redOffset); v.green.offset = 8; v.blue.offset = UInt32(16 - redOffset)
            v.red.length = 8; v.green.length = 8; v.blue.length = 8
        }
        var f = fb_fix_screeninfo()
        f.line_length = UInt32(width * bpp / 8 + 16)
        f.smem_len = f.line_length * UInt32(height)
        return (v, f)
    }

    @Test func otherDepthsAndOrdersAreRefused() throws {
        var (v, f) = screenInfo(width: 8, height: 4, bpp: 32)
        v.bits_per_pixel = 8
        #expect(throws: DisplayError.unsupportedDepth(path: "/dev/fb0", bitsPerPixel: 8)) { try FramebufferLayout(path: "/dev/fb0", variable: v, fixed: f) }
        let (bgr, f2) = screenInfo(width: 8, height: 4, redOffset: 0)
        #expect(throws: DisplayError.self) { try FramebufferLayout(path: "/dev/fb0", variable: bgr, fixed: f2) }
        var (bgr565, f3) = screenInfo(width: 8, height: 4, bpp: 16)
        (bgr565.red.offset, bgr565.blue.offset) = (0, 11)
        #expect(throws: DisplayError.self) { try FramebufferLayout(path: "/dev/fb0", variable: bgr565, fixed: f3) }
        #expect(
            try FramebufferLayout(path: "/dev/fb0", variable: screenInfo(width: 8, height: 4, bpp: 24).0, fixed: screenInfo(width: 8, height: 4, bpp: 24).1)
                .format == .rgb888)
        #expect(
            try FramebufferLayout(path: "/dev/fb0", variable: screenInfo(width: 8, height: 4, bpp: 16).0, fixed: screenInfo(width: 8, height: 4, bpp: 16).1)
                .format == .rgb565)
    }

    /// The logical pixel physical (`px`, `py`) shows, as ScanoutCopy documents it.
    static func logicalPoint(_ rotation: ScreenRotation, _ px: Int, _ py: Int, _ w: Int, _ h: Int) -> (x: Int, y: Int) {
        switch rotation {
        case .none: (px, py)
        case .quarter: (py, h - 1 - px)
        case .half: (w - 1 - px, h - 1 - py)
        case .threeQuarters: (w - 1 - py, px)
        }
    }

    /// A picture of varied colours, presented into a `bpp` framebuffer with `damage`:
    /// each pixel in the damage holds the colour packed as the format says (RGB565 keeps
    /// the top 5, 6 and 5 bits), every other byte, row padding included, stays as it was.
    @Test(arguments: [24, 16], ScreenRotation.allCases) func narrowFormatsHoldTheDamagedPixels(_ bpp: Int, _ rotation: ScreenRotation) throws {
        let (v, f) = screenInfo(width: 7, height: 5, bpp: bpp)
        let layout = try FramebufferLayout(path: "/dev/fb0", variable: v, fixed: f)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: layout.length, alignment: 64)
        defer { memory.deallocate() }
        memset(memory, 0xEE, layout.length)
        let output = FBDevOutput(path: "/dev/fb0", device: nil, memory: memory, layout: layout, unmap: false, rotation: rotation, vt: nil, log: { _ in })
        let surface = try output.acquireBuffer().surface
        func colour(_ x: Int, _ y: Int) -> UInt32 { 0xFF00_0000 | UInt32(x * 37 + 5) << 16 | UInt32(y * 51 + 3) << 8 | UInt32((x * y * 29 + 200) & 0xFF) }
        for y in 0..<surface.height { for x in 0..<surface.width { surface.pixels[y * surface.stride + x] = colour(x, y) } }
        let damage = PixelRect(x: 1, y: 2, width: 3, height: 2)
        try output.present(damage: [damage])
        let bytes = memory.assumingMemoryBound(to: UInt8.self)
        let size = bpp / 8
        for py in 0..<layout.height {
            for column in 0..<(layout.pitch / size) {
                let at = py * layout.pitch + column * size
                let stored = (0..<size).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
                guard column < layout.width else {
                    #expect(stored == (bpp == 16 ? 0xEEEE : 0xEE_EEEE), "padding at (\(column), \(py))")
                    continue
                }
                let logical = Self.logicalPoint(rotation, column, py, surface.width, surface.height)
                guard (damage.x..<damage.maxX).contains(logical.x), (damage.y..<damage.maxY).contains(logical.y) else {
                    #expect(stored == (bpp == 16 ? 0xEEEE : 0xEE_EEEE), "outside the damage at (\(column), \(py))")
                    continue
                }
                let c = Int(colour(logical.x, logical.y))
                let (r, g, b) = ((c >> 16) & 0xFF, (c >> 8) & 0xFF, c & 0xFF)
                let expected = bpp == 16 ? (r >> 3) << 11 | (g >> 2) << 5 | b >> 3 : r << 16 | g << 8 | b
                #expect(stored == expected, "pixel (\(column), \(py)) shows logical \(logical)")
            }
        }
    }

    /// Only the damaged rows reach the framebuffer; the padding at each row's end is
    /// never written.
    @Test func presentCopiesTheDamage() throws {
        let (v, f) = screenInfo(width: 8, height: 4)
        let layout = try FramebufferLayout(path: "/dev/fb0", variable: v, fixed: f)
        #expect(layout.refreshRate == 60)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: layout.length, alignment: 64)
        defer { memory.deallocate() }
        memset(memory, 0xEE, layout.length)
        let output = FBDevOutput(path: "/dev/fb0", device: nil, memory: memory, layout: layout, unmap: false, rotation: .none, vt: nil, log: { _ in })
        var done = 0
        output.frameDone = { done += 1 }
        let buffer = try output.acquireBuffer()
        #expect(buffer.age == 0)
        buffer.surface.clear(PremultipliedColor(unchecked: 0xFF11_2233))
        try output.present(damage: [PixelRect(x: 0, y: 1, width: 8, height: 2)])
        #expect(done == 1)
        let pixels = memory.assumingMemoryBound(to: UInt32.self)
        let stride = layout.pitch / 4
        for y in 0..<4 {
            for x in 0..<stride {
                let expected: UInt32 = (1...2).contains(y) && x < 8 ? 0xFF11_2233 : 0xEEEE_EEEE
                #expect(pixels[y * stride + x] == expected, "pixel \(x), \(y)")
            }
        }
        #expect(try output.acquireBuffer().age == 1)
    }

    /// Portrait: the scene is the framebuffer with its sides swapped.
    @Test func rotationSwapsTheSceneSize() throws {
        let (v, f) = screenInfo(width: 8, height: 4)
        let layout = try FramebufferLayout(path: "/dev/fb0", variable: v, fixed: f)
        let memory = UnsafeMutableRawPointer.allocate(byteCount: layout.length, alignment: 64)
        defer { memory.deallocate() }
        let output = FBDevOutput(path: "/dev/fb0", device: nil, memory: memory, layout: layout, unmap: false, rotation: .quarter, vt: nil, log: { _ in })
        #expect(output.mode.width == 4 && output.mode.height == 8)
    }
}
