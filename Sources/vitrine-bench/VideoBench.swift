import Foundation
import VitrineSystem

// vitrine-bench video: a 1080p (then a 4K) 30 frames/s H.264 video in a full-screen `video`
// layer with a rolling counter over it, in the release `vitrined` (headless at the video's
// size, real-time clock) and the video's decoder helper together,
// beside GStreamer decoding the same file with the same decoder in real time
// (`gst-launch-1.0 filesrc ! qtdemux ! avdec_h264 ! fakesink sync=true`), both as CPU
// seconds per wall second, measured in the same run (reference, daemon, reference).
//
// The video is made here by x264 (gstreamer1.0-plugins-ugly): SMPTE bars scrolling under
// a faint moving noise, so that every macroblock changes and the encoder spends its
// bitrate (8 Mb/s, as a 1080p signage file is encoded) instead of skipping a still
// picture. `--seconds N` sets its length (20; 6 with `--quick`); `--1080p` or `--4k` runs
// one size alone.

func runVideoBenchmarks(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    var seconds = quick ? 6 : 20
    if let i = arguments.firstIndex(of: "--seconds"), i + 1 < arguments.count, let n = Int(arguments[i + 1]), n >= 2 { seconds = n }
    do {
        let sizes = VideoSize.all.filter { arguments.contains("--" + $0.flag) }
        for size in sizes.isEmpty ? VideoSize.all : sizes {
            try BenchCleanup.withTemporaryDirectory { directory in try videoPlay(size, in: directory, seconds: seconds) }
        }
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench video: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

/// A size the video is made and shown at, and its bitrate.
struct VideoSize {
    let name: String, flag: String, width: Int, height: Int, kilobits: Int
    static let all = [
        VideoSize(name: "video.play", flag: "1080p", width: 1920, height: 1080, kilobits: 8000),
        VideoSize(name: "video.play.4k", flag: "4k", width: 3840, height: 2160, kilobits: 25000),
    ]
    var pixels: String { "\(width)x\(height)" }
}

private func videoPlay(_ size: VideoSize, in directory: String, seconds: Int) throws {
    let video = directory + "/bench-\(size.flag)30.mp4"
    try makeH264(video, size: size, seconds: seconds)
    let bytes = (try? FileManager.default.attributesOfItem(atPath: video)[.size] as? Int) ?? 0
    let before = try bareDecode(video)
    let daemon = try daemonPlaying(video, size: size, directory: directory, seconds: seconds)
    let after = try bareDecode(video)
    let reference = (before.percent + after.percent) / 2
    print(
        "{\"bench\":\"\(size.name)\",\"video\":\"\(size.pixels) 30 fps H.264 (x264 veryfast, \(size.kilobits / 1000) Mb/s)\",\"seconds\":\(seconds),\"file_bytes\":\(bytes),\"layer\":\"\(size.pixels)\",\"daemon_cpu_percent\":\(f2(daemon.percent)),\"of_which_helper_cpu_percent\":\(f2(daemon.helperPercent)),\"daemon_fps\":\(f2(daemon.fps)),\"daemon_ms_per_frame\":\(f2(daemon.percent / 100 / daemon.fps * 1000)),\"decode_cpu_percent\":[\(f2(before.percent)),\(f2(after.percent))],\"decode_wall_s\":[\(f2(before.wall)),\(f2(after.wall))],\"ratio\":\(f2(daemon.percent / reference)),\"reference\":\"gst-launch-1.0 filesrc ! qtdemux ! avdec_h264 ! fakesink sync=true\"}"
    )
}

private let gstLaunch = "/usr/bin/gst-launch-1.0"

/// Encodes `seconds` of `size` at 30 frames/s into the MP4 `path`.
private func makeH264(_ path: String, size: VideoSize, seconds: Int) throws {
    guard FileManager.default.isExecutableFile(atPath: gstLaunch) else {
        throw BenchError("\(gstLaunch) is missing: apt-get install gstreamer1.0-tools")
    }
    let frames = seconds * 30
    let pipeline =
        "videotestsrc num-buffers=\(frames) pattern=smpte horizontal-speed=6 ! video/x-raw,width=\(size.width),height=\(size.height),framerate=30/1 ! "
        + "compositor name=mix sink_1::alpha=0.12 ! video/x-raw,format=I420 ! x264enc speed-preset=veryfast bitrate=\(size.kilobits) key-int-max=60 ! "
        + "video/x-h264,profile=high ! mp4mux ! filesink location=\(path) "
        + "videotestsrc num-buffers=\(frames) pattern=snow ! video/x-raw,width=\(size.width),height=\(size.height),framerate=30/1 ! mix."
    let result = try spawnMeasured(gstLaunch, ["-q"] + pipeline.split(separator: " ").map(String.init))
    guard result.status == 0, FileManager.default.fileExists(atPath: path) else {
        throw BenchError(
            "gst-launch-1.0 could not make the H.264 video (exit \(result.status)); x264enc is in gstreamer1.0-plugins-ugly, compositor in gstreamer1.0-plugins-base"
        )
    }
}

/// `gst-launch-1.0` decoding `video` in real time into a fakesink: its CPU over its run.
private func bareDecode(_ video: String) throws -> (percent: Double, wall: Double) {
    let result = try spawnMeasured(
        gstLaunch, ["-q", "filesrc", "location=\(video)", "!", "qtdemux", "!", "avdec_h264", "!", "fakesink", "sync=true"])
    guard result.status == 0 else { throw BenchError("gst-launch-1.0 could not decode the video (exit \(result.status)); avdec_h264 is in gstreamer1.0-libav") }
    return (100 * result.cpu / result.wall, result.wall)
}

/// The daemon showing the video full screen with an 8-digit counter over it that changes
/// every second: its CPU and its video helper's over `seconds` from the moment the video
/// layer is added, and the helper's alone.
private func daemonPlaying(_ video: String, size: VideoSize, directory: String, seconds: Int) throws -> (percent: Double, helperPercent: Double, fps: Double) {
    let child = try DaemonChild(width: size.width, height: size.height, arguments: ["--content-root", directory])
    defer { child.stop() }
    let request = try requester(child)
    func require(_ body: String) throws {
        let reply = try request(body)
        guard reply.contains("\"ok\":true") else { throw BenchError("the daemon refused \(body): \(reply)") }
    }
    try require(
        ##"{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 1200, 200], "position": [\##(size.width / 2), \##(size.height * 5 / 6)], "fontSize": 140, "alignment": "center", "usesGrouping": false, "value": 10000000, "textColor": "#ffd166", "zPosition": 1}}"##
    )
    Thread.sleep(forTimeInterval: 0.5)
    let pid = child.processIdentifier
    let frames0 = try counters(request).frames, cpu0 = processCPUSeconds(pid), start = Date()
    try require(
        #"{"cmd": "layer.add", "layer": "v", "kind": "video", "properties": {"bounds": [0, 0, \#(size.width), \#(size.height)], "position": [\#(size.width / 2), \#(size.height / 2)], "src": "\#(video)"}}"#
    )
    var value = 10_000_000
    for k in 0..<seconds {
        value += Int.random(in: 1...999)
        try require(#"{"cmd": "number.set", "layer": "n", "value": \#(value)}"#)
        let next = start.addingTimeInterval(Double(k + 1))
        Thread.sleep(forTimeInterval: max(0, next.timeIntervalSinceNow))
    }
    // (the video's helper started with its layer: all its CPU is this run's)
    let helpers = childProcesses(of: pid).reduce(0) { $0 + processCPUSeconds($1) }
    let elapsed = Date().timeIntervalSince(start), cpu = processCPUSeconds(pid) - cpu0
    let fps = Double(try counters(request).frames - frames0) / elapsed
    guard fps > 10 else { throw BenchError("the daemon presented \(f2(fps)) frames/s: the video did not play (\(child.errorOutput()))") }
    return (100 * (cpu + helpers) / elapsed, 100 * helpers / elapsed, fps)
}

/// Runs `path` with `arguments` (its output to /dev/null) and waits for it: its exit
/// status, its CPU seconds (user and system, all its threads) and its wall seconds.
func spawnMeasured(_ path: String, _ arguments: [String]) throws -> (status: Int32, cpu: Double, wall: Double) {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let start = DispatchTime.now().uptimeNanoseconds
    let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
    guard spawned == 0 else { throw BenchError("cannot run \(path): \(SystemError.reason(errno: spawned))") }
    let token = BenchCleanup.shared.add { kill(pid, SIGTERM) }
    defer { BenchCleanup.shared.remove(token) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 {
        guard errno == EINTR else { throw BenchError("wait4: \(SystemError.reason(errno: errno))") }
    }
    let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (exit, seconds(usage.ru_utime) + seconds(usage.ru_stime), wall)
}

private func f2(_ v: Double) -> String { String(format: "%.2f", v) }
