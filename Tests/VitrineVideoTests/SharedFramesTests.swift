import Foundation
import Testing
import VitrineGStreamer
import VitrineTestSupport
import VitrineVideo

/// Frames handed over in shared memory (what the video helper sends the daemon without a
/// copy): an H.264 video (gst-libav's decoder) shown at its own size, where the converter
/// passes the decoder's frames through, and scaled, where the converter writes them; in
/// both every frame lies in a memfd, and a reader holding a few frames (as the daemon
/// does) sees a small set of memfds reused, not a new one per frame.
@Suite struct SharedFramesTests {
    /// 64 frames of 160 × 90 H.264 (x264) in MP4; its path.
    static let video: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-shared-frames-\(getpid()).mp4").path
        let launch = try? ChildProcess(
            "/usr/bin/gst-launch-1.0",
            [
                "-q", "videotestsrc", "num-buffers=64", "!", "video/x-raw,width=160,height=90,framerate=30/1,format=I420", "!", "x264enc", "!", "mp4mux", "!",
                "filesink", "location=\(path)",
            ], stderrPath: "/dev/null")
        _ = launch?.wait(timeout: 60)
        return path
    }()

    @Test(arguments: [(160, 90), (80, 46)]) func framesComeInAFewReusedMemfds(width: Int, height: Int) throws {
        try #require(FileManager.default.fileExists(atPath: Self.video), "gst-launch-1.0 made no H.264 video")
        let source = VideoSource(.file(Self.video), width: width, height: height, letterbox: false)
        let decoder = try GStreamerDecoder(source, uri: try #require(GStreamer.fileURI(Self.video)), queued: 3, sharesFrames: true)
        var held: [DecodedFrame] = []
        var memfds = Set<UInt64>()
        var frames = 0
        while frames < 60, let frame = decoder.takeFrame(waiting: 10) {
            frames += 1
            let shared = try #require(frame.shared, "frame \(frames) at \(width) × \(height) is not in shared memory")
            var info = stat()
            #expect(fstat(shared.descriptor, &info) == 0)
            memfds.insert(UInt64(info.st_ino))
            held.append(frame)
            if held.count > 2 { held.removeFirst() }
        }
        #expect(frames == 60)
        #expect(memfds.count <= 8, "\(memfds.count) memfds for \(frames) frames")
    }
}
