import Foundation
import Testing
import VitrineCore
import VitrineRaster
import VitrineTestSupport
import VitrineYUV

/// A limited-range 4:2:0 frame (320×180 unless told) of smooth, strongly coloured content
/// (luma a soft dome, chroma sweeping across most of its range), as raw I420 or NV12 bytes.
struct SmoothFrame {
    let width: Int, height: Int
    let luma: [UInt8]
    let u: [UInt8]
    let v: [UInt8]
    var chromaWidth: Int { (width + 1) / 2 }

    init(width w: Int = 320, height h: Int = 180) {
        (width, height) = (w, h)
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        luma = (0..<h).flatMap { y in
            (0..<w).map { x in UInt8(16 + 219 * (0.5 + 0.45 * sin(Double.pi * Double(x) / Double(w)) * cos(Double.pi * Double(y) / Double(2 * h)))) }
        }
        u = (0..<ch).flatMap { _ in (0..<cw).map { x in UInt8(128 + 90 * cos(Double.pi * Double(x) / Double(cw))) } }
        v = (0..<ch).flatMap { y in (0..<cw).map { _ in UInt8(128 + 90 * sin(Double.pi * Double(y) / Double(ch) - 1)) } }
    }

    func bytes(_ layout: YUVLayout) -> [UInt8] {
        switch layout {
        case .i420: luma + u + v
        case .nv12: luma + zip(u, v).flatMap { [$0, $1] }
        }
    }

    /// The frame over a copy of its bytes, freed when it goes.
    func frame(_ layout: YUVLayout, _ matrix: YUVMatrix, fullRange: Bool = false) -> YUVFrame {
        let raw = bytes(layout)
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: raw.count)
        memory.initialize(from: raw, count: raw.count)
        let (w, h, cw) = (width, height, chromaWidth)
        let chroma = memory + w * h
        switch layout {
        case .i420:
            return YUVFrame(
                width: w, height: h, layout: .i420, matrix: matrix, fullRange: fullRange, luma: memory, lumaStride: w, u: chroma, uStride: cw,
                v: chroma + u.count, vStride: cw
            ) { memory.deallocate() }
        case .nv12:
            return YUVFrame(
                width: w, height: h, layout: .nv12, matrix: matrix, fullRange: fullRange, luma: memory, lumaStride: w, u: chroma, uStride: 2 * cw
            ) { memory.deallocate() }
        }
    }

    /// The exact conversion of each pixel by `matrix`, as rows of opaque ARGB.
    func exact(_ matrix: YUVMatrix, fullRange: Bool = false) -> [UInt32] {
        let (kr, kb): (Double, Double) = matrix == .bt601 ? (0.299, 0.114) : matrix == .bt709 ? (0.2126, 0.0722) : (0.2627, 0.0593)
        let (gain, chromaGain, black) = fullRange ? (1.0, 1.0, 0.0) : (255.0 / 219, 255.0 / 224, 16.0)
        return (0..<height).flatMap { y in
            (0..<width).map { x -> UInt32 in
                let c = y / 2 * chromaWidth + x / 2
                let l = (Double(luma[y * width + x]) - black) * gain
                let (cb, cr) = ((Double(u[c]) - 128) * chromaGain, (Double(v[c]) - 128) * chromaGain)
                let rgb = [l + 2 * (1 - kr) * cr, l - (2 * kb * (1 - kb) * cb + 2 * kr * (1 - kr) * cr) / (1 - kr - kb), l + 2 * (1 - kb) * cb]
                return rgb.reduce(0xFF) { ($0 << 8) | UInt32(min(255, max(0, $1)).rounded()) }
            }
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
                "-q", "filesrc", "location=\(input)", "!", "rawvideoparse", "format=\(format)", "width=\(self.width)", "height=\(self.height)",
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

    /// GStreamer 1.22's `videoconvertscale` (its 8-bit fast path) maps limited-range white
    /// (Y 235) to 253, not 255, Y 30 to 14, not 16: every grey about 2/255 darker than the
    /// matrix, and up to 6 off it with chroma added. Frames drawn here are within 1/255 of
    /// the matrix (below), so within 7 of its conversion 1:1; scaled, the two scalers'
    /// filters differ by a little more.
    @Test("a frame drawn 1:1 and scaled is close to GStreamer's conversion", arguments: cases)
    func matchesGStreamer(_ c: (layout: YUVLayout, matrix: YUVMatrix, width: Int, height: Int)) throws {
        let source = SmoothFrame()
        let expected = try source.converted(c.layout, c.matrix, width: c.width, height: c.height)
        let surface = Surface(width: c.width + 20, height: c.height + 10)
        let area = PixelRect(x: 13, y: 7, width: c.width, height: c.height)
        surface.draw(yuv: source.frame(c.layout, c.matrix), in: area.rect)
        #expect(largestDifference(surface, area, expected) <= (c.width == source.width ? 7 : 9))
        #expect(surface.pixel(x: 12, y: 7) == .transparent && surface.pixel(x: 13, y: 6) == .transparent)
        #expect(surface.pixel(x: area.maxX, y: area.maxY - 1) == .transparent && surface.pixel(x: area.maxX - 1, y: area.maxY) == .transparent)
    }

    @Test(
        "a frame drawn 1:1 is within 1/255 of the exact matrix, in either range (2/255 for full-range BT.2020: libyuv's rounded factors)",
        arguments: [YUVMatrix.bt601, .bt709, .bt2020].flatMap { m in [(m, false), (m, true)] })
    func exact(_ c: (matrix: YUVMatrix, fullRange: Bool)) {
        let source = SmoothFrame()
        for layout in [YUVLayout.i420, .nv12] {
            let surface = Surface(width: source.width, height: source.height)
            surface.draw(yuv: source.frame(layout, c.matrix, fullRange: c.fullRange), in: surface.bounds.rect)
            let tolerance = c.matrix == .bt2020 && c.fullRange ? 2 : 1
            #expect(largestDifference(surface, surface.bounds, source.exact(c.matrix, fullRange: c.fullRange)) <= tolerance, "\(layout)")
        }
    }

    @Test("an odd-sized frame at an odd place, drawn through odd clips, gives each pixel its own chroma", arguments: [YUVLayout.i420, .nv12])
    func oddSizesAndClips(_ layout: YUVLayout) {
        let source = SmoothFrame(width: 321, height: 181)
        let exact = source.exact(.bt709)
        let place = PixelRect(x: 13, y: 7, width: source.width, height: source.height)
        let surface = Surface(width: 350, height: 200)
        let clips = [
            PixelRect(x: 14, y: 8, width: 1, height: 1), PixelRect(x: 20, y: 9, width: 101, height: 55), PixelRect(x: 131, y: 70, width: 3, height: 130),
            PixelRect(x: 300, y: 150, width: 50, height: 50), PixelRect(x: 0, y: 0, width: 14, height: 8),
        ]
        for clip in clips {
            surface.draw(yuv: source.frame(layout, .bt709), in: place.rect, clip: Clip(rect: clip))
        }
        for clip in clips {
            let inside = clip.intersection(place)
            let expected = (inside.y..<inside.maxY).flatMap { y in (inside.x..<inside.maxX).map { x in exact[(y - 7) * source.width + x - 13] } }
            #expect(largestDifference(surface, inside, expected) <= 1, "\(clip)")
        }
        #expect(surface.pixel(x: 12, y: 7) == .transparent && surface.pixel(x: 13, y: 6) == .transparent)
        #expect(surface.pixel(x: 20, y: 64) == .transparent && surface.pixel(x: 121, y: 9) == .transparent)
    }

    @Test("the matrices differ: BT.601 drawn as BT.709 is far from GStreamer's BT.601")
    func matrixMatters() throws {
        let source = SmoothFrame()
        let expected = try source.converted(.i420, .bt601, width: source.width, height: source.height)
        let surface = Surface(width: source.width, height: source.height)
        surface.draw(yuv: source.frame(.i420, .bt709), in: surface.bounds.rect)
        #expect(largestDifference(surface, surface.bounds, expected) > 20)
    }

    @Test("only the clip's pixels are written, the same as those of a whole draw, 1:1, scaled up and down", arguments: [1.0, 1.5, 0.6])
    func clipped(_ scale: Double) {
        let source = SmoothFrame()
        let rect = Rect(x: 0, y: 0, width: Double(source.width) * scale, height: Double(source.height) * scale)
        let whole = Surface(width: Int(rect.width), height: Int(rect.height))
        whole.draw(yuv: source.frame(.i420, .bt709), in: rect)
        let part = Surface(width: whole.width, height: whole.height)
        let clips = [PixelRect(x: 37, y: 21, width: 101, height: 55), PixelRect(x: 1, y: 90, width: 63, height: 7)]
        let scratch = YUVScratch()
        let frame = source.frame(.i420, .bt709)
        for clip in clips { part.draw(yuv: frame, in: rect, clip: Clip(rect: clip), scratch: scratch) }
        var wrong = 0
        for y in 0..<whole.height {
            for x in 0..<whole.width {
                let inside = clips.contains { x >= $0.x && x < $0.maxX && y >= $0.y && y < $0.maxY }
                if part.pixel(x: x, y: y) != (inside ? whole.pixel(x: x, y: y) : .transparent) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test("a rotated frame draws as its whole conversion drawn as an image")
    func rotated() {
        let source = SmoothFrame()
        let frame = source.frame(.nv12, .bt601)
        let rect = Rect(x: -160, y: -90, width: 320, height: 180)
        let transform = AffineTransform(a: 0.6, b: 0.8, c: -0.8, d: 0.6, tx: 200, ty: 150)
        let drawn = Surface(width: 400, height: 300)
        drawn.draw(yuv: frame, in: rect, transform: transform, clip: Clip(rect: PixelRect(x: 150, y: 40, width: 200, height: 90)))
        let reference = Surface(width: 400, height: 300)
        reference.draw(image: frame.converted(), in: rect, transform: transform, clip: Clip(rect: PixelRect(x: 150, y: 40, width: 200, height: 90)))
        #expect(drawn.buffer.elementsEqual(reference.buffer))
        #expect(drawn.buffer.contains { $0 != 0 })
    }

    @Test("at half opacity the frame blends over what is there")
    func translucent() throws {
        let source = SmoothFrame()
        let opaque = Surface(width: source.width, height: source.height)
        opaque.draw(yuv: source.frame(.i420, .bt601), in: opaque.bounds.rect)
        let half = Surface(width: source.width, height: source.height)
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
