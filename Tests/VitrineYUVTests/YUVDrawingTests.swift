import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineTestSupport
import VitrineYUV

/// A 320×180 limited-range 4:2:0 frame of smooth, strongly coloured content (luma a soft
/// dome, chroma sweeping across most of its range), as raw I420 or NV12 bytes.
struct SmoothFrame {
    static let (width, height) = (320, 180)
    let luma: [UInt8]
    let u: [UInt8]
    let v: [UInt8]

    init() {
        let (w, h) = (Self.width, Self.height)
        luma = (0..<h).flatMap { y in
            (0..<w).map { x in UInt8(16 + 219 * (0.5 + 0.45 * sin(Double.pi * Double(x) / Double(w)) * cos(Double.pi * Double(y) / Double(2 * h)))) }
        }
        u = (0..<h / 2).flatMap { _ in (0..<w / 2).map { x in UInt8(128 + 90 * cos(Double.pi * Double(x) / Double(w / 2))) } }
        v = (0..<h / 2).flatMap { y in (0..<w / 2).map { _ in UInt8(128 + 90 * sin(Double.pi * Double(y) / Double(h / 2) - 1)) } }
    }

    func bytes(_ layout: YUVLayout) -> [UInt8] {
        switch layout {
        case .i420: luma + u + v
        case .nv12: luma + zip(u, v).flatMap { [$0, $1] }
        }
    }

    /// The frame over a copy of its bytes, freed when it goes.
    func frame(_ layout: YUVLayout, _ matrix: YUVMatrix) -> YUVFrame {
        let raw = bytes(layout)
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: raw.count)
        memory.initialize(from: raw, count: raw.count)
        let (w, h) = (Self.width, Self.height)
        let chroma = memory + w * h
        switch layout {
        case .i420:
            return YUVFrame(
                width: w, height: h, layout: .i420, matrix: matrix, luma: memory, lumaStride: w, u: chroma, uStride: w / 2, v: chroma + w * h / 4,
                vStride: w / 2
            ) { memory.deallocate() }
        case .nv12:
            return YUVFrame(width: w, height: h, layout: .nv12, matrix: matrix, luma: memory, lumaStride: w, u: chroma, uStride: w) { memory.deallocate() }
        }
    }

    /// GStreamer's own conversion of the frame (`videoconvertscale` to BGRA at `width` ×
    /// `height`), as rows of pixels.
    func converted(_ layout: YUVLayout, _ matrix: YUVMatrix, width: Int, height: Int) throws -> [UInt32] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-yuv-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, output, log) = (
            directory.appendingPathComponent("in").path, directory.appendingPathComponent("out").path, directory.appendingPathComponent("log").path
        )
        try Data(bytes(layout)).write(to: URL(fileURLWithPath: input))
        let format = layout == .i420 ? "i420" : "nv12"
        let colorimetry = matrix == .bt601 ? "bt601" : "bt709"
        let launch = try ChildProcess(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "filesrc", "location=\(input)", "!", "rawvideoparse", "format=\(format)", "width=\(Self.width)", "height=\(Self.height)",
                "framerate=1/1", "colorimetry=\(colorimetry)", "!", "videoconvertscale", "!",
                "video/x-raw,format=BGRA,width=\(width),height=\(height),pixel-aspect-ratio=1/1", "!", "filesink", "location=\(output)",
            ], stderrPath: log)
        let status = launch.wait(timeout: 60) ?? launch.terminate()
        guard status == 0 else { throw TestError("gst-launch-1.0 failed (\(status)): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")") }
        let data = try Data(contentsOf: URL(fileURLWithPath: output))
        guard data.count == width * height * 4 else { throw TestError("GStreamer wrote \(data.count) bytes, not \(width)×\(height) pixels") }
        return data.withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    }
}

/// The largest difference of any channel between `surface`'s pixels in `area` (placed at
/// its corner) and `expected`'s rows of `area.width`.
func largestDifference(_ surface: Surface, _ area: PixelRect, _ expected: [UInt32]) -> Int {
    var worst = 0
    for y in 0..<area.height {
        for x in 0..<area.width {
            let a = surface.pixel(x: area.x + x, y: area.y + y).argb, b = expected[y * area.width + x]
            for shift in stride(from: 0, through: 24, by: 8) { worst = max(worst, abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF))) }
        }
    }
    return worst
}

@Suite struct YUVDrawingTests {
    static let cases: [(YUVLayout, YUVMatrix, width: Int, height: Int)] = [YUVLayout.i420, .nv12].flatMap { layout in
        [YUVMatrix.bt601, .bt709].flatMap { matrix in [(320, 180), (480, 270), (200, 112)].map { (layout, matrix, $0.0, $0.1) } }
    }

    /// GStreamer 1.22's `videoconvertscale` maps limited-range white (Y 235) to 253, not
    /// 255, and every grey about 2/255 darker than the matrix gives (its fixed-point
    /// matrix); with chroma sited and interpolated its own way on top (shared by pixel
    /// pairs here at 1:1), frames drawn here are within 8/255 of its conversion, and
    /// within 1/255 of the exact matrix (below).
    @Test("a frame drawn 1:1 and scaled is within 8/255 of GStreamer's conversion", arguments: cases)
    func matchesGStreamer(_ c: (layout: YUVLayout, matrix: YUVMatrix, width: Int, height: Int)) throws {
        let source = SmoothFrame()
        let expected = try source.converted(c.layout, c.matrix, width: c.width, height: c.height)
        let surface = Surface(width: c.width + 20, height: c.height + 10)
        let area = PixelRect(x: 13, y: 7, width: c.width, height: c.height)
        surface.draw(yuv: source.frame(c.layout, c.matrix), in: area.rect)
        #expect(largestDifference(surface, area, expected) <= 8)
        #expect(surface.pixel(x: 12, y: 7) == .transparent && surface.pixel(x: 13, y: 6) == .transparent)
        #expect(surface.pixel(x: area.maxX, y: area.maxY - 1) == .transparent && surface.pixel(x: area.maxX - 1, y: area.maxY) == .transparent)
    }

    @Test("a frame drawn 1:1 is within 1/255 of the exact matrix", arguments: [YUVMatrix.bt601, .bt709, .bt2020])
    func exact(_ matrix: YUVMatrix) {
        let source = SmoothFrame()
        let (kr, kb): (Double, Double) = matrix == .bt601 ? (0.299, 0.114) : matrix == .bt709 ? (0.2126, 0.0722) : (0.2627, 0.0593)
        let (w, h) = (SmoothFrame.width, SmoothFrame.height)
        let expected = (0..<h).flatMap { y in
            (0..<w).map { x -> UInt32 in
                let luma = (Double(source.luma[y * w + x]) - 16) * 255 / 219
                let u = (Double(source.u[y / 2 * w / 2 + x / 2]) - 128) * 255 / 224, v = (Double(source.v[y / 2 * w / 2 + x / 2]) - 128) * 255 / 224
                let rgb = [luma + 2 * (1 - kr) * v, luma - (2 * kb * (1 - kb) * u + 2 * kr * (1 - kr) * v) / (1 - kr - kb), luma + 2 * (1 - kb) * u]
                return rgb.reduce(0xFF) { ($0 << 8) | UInt32(min(255, max(0, $1)).rounded()) }
            }
        }
        let surface = Surface(width: w, height: h)
        surface.draw(yuv: source.frame(.i420, matrix), in: surface.bounds.rect)
        #expect(largestDifference(surface, surface.bounds, expected) <= 1)
    }

    @Test("the matrices differ: BT.601 drawn as BT.709 is far from GStreamer's BT.601")
    func matrixMatters() throws {
        let source = SmoothFrame()
        let expected = try source.converted(.i420, .bt601, width: SmoothFrame.width, height: SmoothFrame.height)
        let surface = Surface(width: SmoothFrame.width, height: SmoothFrame.height)
        surface.draw(yuv: source.frame(.i420, .bt709), in: surface.bounds.rect)
        #expect(largestDifference(surface, surface.bounds, expected) > 20)
    }

    @Test("only the clip's pixels are written, the same as those of a whole draw")
    func clipped() {
        let source = SmoothFrame()
        for scale in [1.0, 1.5] {
            let rect = Rect(x: 0, y: 0, width: Double(SmoothFrame.width) * scale, height: Double(SmoothFrame.height) * scale)
            let whole = Surface(width: Int(rect.width), height: Int(rect.height))
            whole.draw(yuv: source.frame(.i420, .bt709), in: rect)
            let part = Surface(width: whole.width, height: whole.height)
            let clip = PixelRect(x: 37, y: 21, width: 101, height: 55)
            part.draw(yuv: source.frame(.i420, .bt709), in: rect, clip: Clip(rect: clip))
            for y in 0..<whole.height {
                for x in 0..<whole.width {
                    let inside = x >= clip.x && x < clip.maxX && y >= clip.y && y < clip.maxY
                    #expect(part.pixel(x: x, y: y) == (inside ? whole.pixel(x: x, y: y) : .transparent))
                    if part.pixel(x: x, y: y) != (inside ? whole.pixel(x: x, y: y) : .transparent) { return }
                }
            }
        }
    }

    @Test("at half opacity the frame blends over what is there")
    func translucent() throws {
        let source = SmoothFrame()
        let opaque = Surface(width: SmoothFrame.width, height: SmoothFrame.height)
        opaque.draw(yuv: source.frame(.i420, .bt601), in: opaque.bounds.rect)
        let half = Surface(width: SmoothFrame.width, height: SmoothFrame.height)
        half.clear(.black)
        half.draw(yuv: source.frame(.i420, .bt601), in: half.bounds.rect, opacity: 0.5)
        let expected = opaque.buffer.enumerated().filter { $0.offset % opaque.stride < opaque.width }.map { pixel in
            let p = pixel.element
            let channels = [16, 8, 0].map { UInt32((Double((p >> $0) & 0xFF) / 2).rounded()) << $0 }
            return 0xFF00_0000 | channels.reduce(0, |)
        }
        #expect(largestDifference(half, half.bounds, expected) <= 2)
    }
}
