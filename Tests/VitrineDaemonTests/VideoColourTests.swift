import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// A video's colours in the real daemon: an H.264 file encoded losslessly (x264, quantizer
/// 0) from planes made here, decoded by the real `vitrine-decoder --video` into shared
/// memory as I420 and converted by the compositor, is shown as the matrix the stream names
/// says, and as GStreamer's own conversion of the same decoded frame (within its error).
@Suite(.serialized) struct VideoColourTests {
    let content: URL
    static let (width, height) = (328, 182)

    init() throws {
        content = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-colour-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
    }

    /// Smooth planes of saturated colour: luma a diagonal ramp over most of its range, Cb
    /// sweeping across, Cr down (chroma to its limits at the edges).
    static let planes: (luma: [UInt8], cb: [UInt8], cr: [UInt8]) = {
        let (w, h, cw, ch) = (width, height, (width + 1) / 2, (height + 1) / 2)
        let luma = (0..<h).flatMap { y in (0..<w).map { x in UInt8(20 + 210 * (x + y) / (w + h)) } }
        let cb = (0..<ch).flatMap { _ in (0..<cw).map { x in UInt8(18 + 220 * x / cw) } }
        let cr = (0..<ch).flatMap { y in (0..<cw).map { _ in UInt8(236 - 218 * y / ch) } }
        return (luma, cb, cr)
    }()

    /// Runs gst-launch-1.0 with `arguments`.
    func launch(_ arguments: [String]) throws {
        let log = content.appendingPathComponent("gst.log").path
        let process = try ChildProcess("/usr/bin/gst-launch-1.0", ["-q"] + arguments, stderrPath: log)
        let status = process.wait(timeout: 120) ?? process.terminate()
        try #require(status == 0, "gst-launch-1.0 failed (\(status)): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }

    /// Ten frames of the planes as lossless H.264 in MP4, the stream tagged `colorimetry`.
    func makeVideo(_ colorimetry: String) throws -> String {
        let raw = content.appendingPathComponent("planes.i420").path
        let frame = Self.planes.luma + Self.planes.cb + Self.planes.cr
        try Data((0..<10).flatMap { _ in frame }).write(to: URL(fileURLWithPath: raw))
        let path = content.appendingPathComponent("\(colorimetry).mp4").path
        try launch([
            "filesrc", "location=\(raw)", "blocksize=\(frame.count)", "!", "rawvideoparse", "format=i420", "width=\(Self.width)",
            "height=\(Self.height)", "framerate=30/1", "colorimetry=\(colorimetry)", "!", "x264enc", "pass=quant", "quantizer=0",
            "speed-preset=ultrafast", "!", "mp4mux", "!", "filesink", "location=\(path)",
        ])
        return path
    }

    /// GStreamer's conversion of the video's first frame, decoded by the same decoder: rows of BGRA.
    func gstreamerFrame(_ video: String) throws -> [UInt32] {
        let out = content.appendingPathComponent("frame.bgra").path
        try launch([
            "filesrc", "location=\(video)", "!", "qtdemux", "!", "avdec_h264", "!", "videoconvert", "!", "video/x-raw,format=BGRA", "!", "filesink",
            "location=\(out)",
        ])
        let data = try Data(contentsOf: URL(fileURLWithPath: out))
        try #require(data.count >= Self.width * Self.height * 4)
        return data.prefix(Self.width * Self.height * 4).withUnsafeBytes { Array($0.bindMemory(to: UInt32.self)) }
    }

    /// The exact conversion of pixel (`x`, `y`) of the planes by the matrix of (`kr`, `kb`), limited range.
    static func exact(_ x: Int, _ y: Int, kr: Double, kb: Double) -> [Int] {
        let c = y / 2 * ((width + 1) / 2) + x / 2
        let l = (Double(planes.luma[y * width + x]) - 16) * 255 / 219
        let (u, v) = ((Double(planes.cb[c]) - 128) * 255 / 224, (Double(planes.cr[c]) - 128) * 255 / 224)
        let rgb = [l + 2 * (1 - kr) * v, l - (2 * kb * (1 - kb) * u + 2 * kr * (1 - kr) * v) / (1 - kr - kb), l + 2 * (1 - kb) * u]
        return rgb.map { Int(min(255, max(0, $0)).rounded()) }
    }

    /// GStreamer 1.22's own conversion (its 8-bit fast path) is about 2/255 darker than the
    /// matrix (limited-range Y 235 becomes 253, Y 30 14), and up to 6 off with chroma
    /// added; the daemon's is within 1/255 of the matrix, so within 7 of GStreamer's.
    @Test("a lossless H.264 frame shows as its matrix says, close to GStreamer's conversion", arguments: ["bt709", "bt601"])
    func framesShowAsTheMatrixSays(_ colorimetry: String) throws {
        let video = try makeVideo(colorimetry)
        let reference = try gstreamerFrame(video)
        let daemon = try DaemonProcess(arguments: ["--size", "\(Self.width)x\(Self.height)", "--content-root", content.path])
        let c = try daemon.connect()
        let reply = try c.request(
            #"{"cmd": "layer.add", "layer": "v", "kind": "video", "properties": {"bounds": [0, 0, \#(Self.width), \#(Self.height)], "position": [\#(Self.width / 2), \#(Self.height / 2)], "src": "\#(video)"}}"#
        )
        try #require(reply["ok"] == .bool(true), "\(reply)")
        #expect(try c.request(#"{"cmd": "clock.set", "time": 0.1}"#)["ok"] == .bool(true))
        let shot = try c.request(#"{"cmd": "screenshot", "path": "shot.png"}"#)
        let surface = try Surface(contentsOfPNG: try #require(shot["result"]?["path"]?.string, "\(shot)"))
        let (kr, kb) = colorimetry == "bt709" ? (0.2126, 0.0722) : (0.299, 0.114)
        var (fromMatrix, fromGStreamer) = (0, 0)
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let shown = ScreenshotTests.rgba(surface, x, y)
                let g = reference[y * Self.width + x]
                let gstreamer = [Int((g >> 16) & 0xFF), Int((g >> 8) & 0xFF), Int(g & 0xFF)]
                for (i, want) in Self.exact(x, y, kr: kr, kb: kb).enumerated() {
                    fromMatrix = max(fromMatrix, abs(shown[i] - want))
                    fromGStreamer = max(fromGStreamer, abs(shown[i] - gstreamer[i]))
                }
            }
        }
        #expect(fromMatrix <= 1, "largest difference from the \(colorimetry) matrix")
        #expect(fromGStreamer <= 7, "largest difference from GStreamer's conversion")
        withExtendedLifetime(daemon) {}
    }
}
