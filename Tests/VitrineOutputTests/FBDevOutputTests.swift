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
        v.red.offset = UInt32(redOffset); v.green.offset = 8; v.blue.offset = UInt32(16 - redOffset)
        v.red.length = 8; v.green.length = 8; v.blue.length = 8
        var f = fb_fix_screeninfo()
        f.line_length = UInt32(width * 4 + 16)
        f.smem_len = f.line_length * UInt32(height)
        return (v, f)
    }

    @Test func otherDepthsAreRefused() {
        let (v, f) = screenInfo(width: 8, height: 4, bpp: 16)
        #expect(throws: DisplayError.unsupportedDepth(path: "/dev/fb0", bitsPerPixel: 16)) { try FramebufferLayout(path: "/dev/fb0", variable: v, fixed: f) }
        let (bgr, f2) = screenInfo(width: 8, height: 4, redOffset: 0)
        #expect(throws: DisplayError.self) { try FramebufferLayout(path: "/dev/fb0", variable: bgr, fixed: f2) }
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
        let output = FBDevOutput(path: "/dev/fb0", fd: -1, memory: memory, layout: layout, unmap: false, rotation: .none, vt: nil, log: { _ in })
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
        let output = FBDevOutput(path: "/dev/fb0", fd: -1, memory: memory, layout: layout, unmap: false, rotation: .quarter, vt: nil, log: { _ in })
        #expect(output.mode.width == 4 && output.mode.height == 8)
    }
}
