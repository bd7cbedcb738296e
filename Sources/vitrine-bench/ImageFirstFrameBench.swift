import VitrineCodecs
import Foundation
import VitrineImage

// vitrine-bench image (first frame): a 24-megapixel JPEG (the 6000×4000 of
// `image.jpeg_decode`) given to a full-screen 1920×1080 layer — from sending the
// `layer.set` of its `contents` to the presentation of the first frame that shows it —
// beside libjpeg-turbo's own `djpeg` decoding the same file at the scale the daemon's
// decoder picks for that layer (`-scale 1/2`), alternately, in the same run.
//
// There is no frame event on the wire, so the daemon runs in this process (as for
// `protocol.frame`) with a headless output whose presented frames are probed. Each sample
// is a file of its own (the same bytes), as a new photo is, so no decoded picture is kept
// from one to the next; all are in the page cache, for djpeg too.

func runImageFirstFrameBenchmarks(_ arguments: [String]) {
    let samples = arguments.contains("--quick") ? 3 : 9
    do {
        try imageFirstFrame(samples: samples)
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench image: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

private let djpeg = "/usr/bin/djpeg"

private func imageFirstFrame(samples: Int) throws {
    guard FileManager.default.isExecutableFile(atPath: djpeg) else { throw BenchError("\(djpeg) is missing: apt-get install libjpeg-turbo-progs") }
    try BenchCleanup.withTemporaryDirectory { directory in try imageFirstFrame(in: directory, samples: samples) }
}

private func imageFirstFrame(in directory: String, samples: Int) throws {
    let (width, height) = (1920, 1080)
    let jpeg = makeJPEG(width: 6000, height: 4000)
    let paths = (0..<samples).map { directory + "/photo-\($0).jpg" }
    for path in paths { try Data(jpeg).write(to: URL(fileURLWithPath: path)) }
    // The scale the daemon's decoder takes for the layer, for djpeg to take too.
    let fitted = try ImageDecoder.decode(jpeg, fitting: TargetSize(width: width, height: height), byteLimit: 1 << 30).frames[0]
    let eighths = max(1, fitted.width * 8 / 6000)
    let scale = "\(eighths)/8"

    let probe = FrameProbe(x: width / 2 + 101, y: height / 2 + 37)
    let serving = try InProcessDaemon.probed(by: probe, directory: directory, width: width, height: height) { $0.contentRoots = [directory] }
    defer { serving.stop() }
    let client = try BlockingLineClient(path: serving.socketPath)
    defer { client.close() }
    let black: UInt32 = 0xFF00_0000
    try client.expectOK(
        fields:
            ##""cmd":"layer.add","layer":"photo","properties":{"bounds":[0,0,\##(width),\##(height)],"position":[\##(width / 2),\##(height / 2)],"backgroundColor":"#000000"}"##
    )
    var shown: [Double] = [], decoded: [Double] = []
    for path in paths {
        decoded.append(try spawnMeasured(djpeg, ["-scale", scale, "-outfile", "/dev/null", path]).wall * 1000)
        _ = probe.arm { $0 != black }
        try client.expectOK(fields: #""cmd":"layer.set","layer":"photo","properties":{"contents":"\#(path)"},"actions":false"#)
        guard let latency = probe.wait(seconds: 5) else { throw BenchError("no frame showed \(path) within 5 s") }
        shown.append(Double(latency) / 1e6)
        // Back to black, and the decoded picture dropped, before the next sample.
        _ = probe.arm { $0 == black }
        try client.expectOK(fields: #""cmd":"layer.set","layer":"photo","properties":{"contents":""},"actions":false"#)
        guard probe.wait(seconds: 2) != nil else { throw BenchError("the layer did not go black again") }
        usleep(100_000)
    }
    let shownMedian = shown.sorted()[samples / 2], decodedMedian = decoded.sorted()[samples / 2]
    print(
        "{\"bench\":\"image.jpeg_first_frame\",\"source\":\"6000x4000\",\"layer\":\"\(width)x\(height)\",\"decoded_size\":\"\(fitted.width)x\(fitted.height)\",\"samples\":\(samples),\"first_frame_ms\":\(String(format: "%.1f", shownMedian)),\"first_frame_range_ms\":[\(String(format: "%.1f", shown.min()!)),\(String(format: "%.1f", shown.max()!))],\"djpeg_ms\":\(String(format: "%.1f", decodedMedian)),\"djpeg\":\"djpeg -scale \(scale) -outfile /dev/null\",\"ratio\":\(String(format: "%.2f", shownMedian / decodedMedian)),\"daemon\":\"in-process\"}"
    )
}
