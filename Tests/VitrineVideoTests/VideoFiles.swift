import Foundation
import VitrineRaster
import VitrineTestSupport

/// Videos made at test time by `gst-launch-1.0` (VP8 in Matroska, 64×48 at 30 fps), in a
/// temporary directory removed with it.
final class VideoFiles {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-video-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A video of `patterns` (videotestsrc's: "red", "blue", …) one after another, `frames`
    /// frames of each; its path.
    func make(_ patterns: [String], frames: Int = 15, name: String = "video.mkv") throws -> String {
        let path = directory.appendingPathComponent(name).path
        var pipeline = ["-q", "concat", "name=c", "!", "videoconvert", "!", "vp8enc", "!", "matroskamux", "!", "filesink", "location=\(path)"]
        for pattern in patterns {
            pipeline += ["videotestsrc", "pattern=\(pattern)", "num-buffers=\(frames)", "!", "video/x-raw,width=64,height=48,framerate=30/1", "!", "c."]
        }
        let log = path + ".log"
        let launch = try ChildProcess("/usr/bin/gst-launch-1.0", pipeline, stderrPath: log)
        let status = launch.wait(timeout: 60) ?? launch.terminate()
        guard status == 0 else { throw TestError("gst-launch-1.0 failed (\(status)): \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")") }
        return path
    }

    /// A file that is not a video.
    func text(name: String = "notes.mkv") throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data("these are not frames\n".utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

extension PremultipliedColor {
    /// Whether each channel is within `tolerance` of (`red`, `green`, `blue`), opaque: a
    /// lossy codec's rendering of a solid colour.
    func isNear(red: Int, green: Int, blue: Int, tolerance: Int = 24) -> Bool {
        alpha == 255 && abs(Int(self.red) - red) <= tolerance && abs(Int(self.green) - green) <= tolerance && abs(Int(self.blue) - blue) <= tolerance
    }
}
