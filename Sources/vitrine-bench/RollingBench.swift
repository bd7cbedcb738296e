import Foundation
import Logging
import VitrineDaemon
import VitrineOutput
import VitrineCore
import VitrineProtocol
import VitrineRaster
import VitrineSystem

/// `vitrine-bench rolling`: a rolling counter's cost.
///
/// 1. `rolling.frame`: frame time at 1080p while 12 digit columns roll (in this process, a
///    manual clock stepping 1/60 s), beside a frame memcpy.
/// 2. `rolling.daemon`: the real `vitrined` (release, real-time clock, headless 1080p) while
///    an 8-digit counter changes every second and rolls at 60 fps: CPU time over the run
///    as a share of one core, memory (PSS of the daemon and any helper it started),
///    frames; then `rolling.idle`: frames and CPU over seconds with nothing changing.
///    Its reference, `rolling.floor`, measured first in the same run: a thread of this
///    process waking 60 times a second on the daemon's event loop and doing nothing
///    else — what waking at all costs on this machine now.
///    Then `rolling.pixels`: the same thread also repainting, each time, as many pixels
///    as the daemon's frames did on average, in digit-sized columns of a 1080p surface
///    (a fill and two glyph-like masks each) — what waking and the pixel work alone cost,
///    so that the daemon's cost above it is that of its scene, animations and damage.
/// 3. `rolling.label`: the same for the demo's label that counts while it moves.
func runRollingBenchmarks(_ options: [String]) {
    let quick = options.contains("--quick")
    do {
        try rollingFrames(frames: quick ? 60 : 200)
        let floor = try wakeUpFloor(seconds: quick ? 2 : 6)
        let daemon = try rollingDaemon(seconds: quick ? 4 : 12, idleSeconds: quick ? 2 : 5, floor: floor)
        try pixelReference(seconds: quick ? 2 : 6, pixelsPerFrame: daemon.pixelsPerFrame, daemon: daemon.percent)
        try rollingLabel(seconds: quick ? 4 : 10, floor: floor)
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench rolling: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

private func rollingFrames(frames: Int) throws {
    let run = try rollingFrameTimes(scale: 1, frames: frames)
    let memcpy = frameMemcpyMilliseconds()
    print(
        "{\"bench\":\"rolling.frame\",\"columns\":12,\"size\":\"1920x1080\",\"steps\":\(frames),\"frames\":\(run.frames),\"vitrine_ms\":\(f3(run.median)),\"p90_ms\":\(f3(run.p90)),\"memcpy_ms\":\(f3(memcpy)),\"ratio\":\(String(format: "%.2f", run.median / memcpy))}"
    )
}

/// Frame times, in this process on a manual clock stepping 1/60 s for `frames` steps, while
/// 12 digit columns roll on a gradient at `scale` (1: 1920×1080, 2: 3840×2160, the
/// number's size doubled): the median and p90 of the steps that presented a frame, and
/// the pixels a frame repainted on average.
func rollingFrameTimes(scale k: Int, frames: Int) throws -> (median: Double, p90: Double, frames: Int, pixelsPerFrame: Int) {
    let bench = try InProcessCoordinator(width: 1920 * k, height: 1080 * k)
    let coordinator = bench.coordinator, run = bench.run
    run(
        ##"{"id": 1, "cmd": "layer.add", "layer": "bg", "kind": "gradient", "properties": {"bounds": [0, 0, \##(1920 * k), \##(1080 * k)], "position": [\##(960 * k), \##(540 * k)], "colors": ["#12324a", "#0b1622"]}}"##
    )
    run(
        ##"{"id": 2, "cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, \##(1800 * k), \##(200 * k)], "position": [\##(960 * k), \##(540 * k)], "fontSize": \##(160 * k), "alignment": "center", "format": "plain", "value": 123456789012, "textColor": "#ffd166"}}"##
    )
    var id = 3
    var times: [Double] = []
    for frame in 0..<frames {
        if frame % 60 == 0 {
            let value = frame % 120 == 0 ? 987_654_321_098 : 123_456_789_012
            run(#"{"id": \#(id), "cmd": "number.set", "layer": "n", "value": \#(value), "animationType": "allNumbers", "spring": {"speed": 1}}"#)
            id += 1
        }
        let presentedBefore = coordinator.framesRendered
        let start = DispatchTime.now().uptimeNanoseconds
        run(#"{"id": \#(id), "cmd": "clock.advance", "seconds": 0.016666666666666666}"#)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        // Steps in which no pixel changes present nothing; only real frames are timed.
        if coordinator.framesRendered > presentedBefore { times.append(elapsed) }
        id += 1
    }
    precondition(times.count >= max(1, frames / 5), "too few steps presented a frame (\(times.count) of \(frames))")
    let sorted = times.sorted()
    return (sorted[sorted.count / 2], sorted[sorted.count * 9 / 10], sorted.count, coordinator.pixelsRepainted / max(1, coordinator.framesRendered))
}

/// The share of one core a thread uses that wakes 60 times a second on an `EventLoop` and
/// does nothing else, over `seconds`; prints `rolling.floor`.
private func wakeUpFloor(seconds: Double) throws -> Double {
    let (share, elapsed) = try wakingShare(seconds: seconds, work: {})
    print(
        "{\"bench\":\"rolling.floor\",\"seconds\":\(f3(elapsed)),\"wakeups\":\(Int(seconds * 60)),\"cpu_percent_of_core\":\(f3(share)),\"cpu_us_per_wake\":\(f1(share / 100 * elapsed / (seconds * 60) * 1e6)),\"note\":\"a thread waking 60 times a second on the daemon's event loop, doing nothing else: the reference for rolling.daemon\"}"
    )
    return share
}

/// `rolling.pixels`: `rolling.floor` plus, at each wake, `pixelsPerFrame` pixels
/// repainted as a rolling frame repaints them — columns of a 1920×1080 surface filled with
/// the background, then two glyph-sized coverage masks blended in each, clipped to it,
/// one column for every 80 × 160 pixels asked for.
private func pixelReference(seconds: Double, pixelsPerFrame: Int, daemon: Double) throws {
    guard pixelsPerFrame > 0 else { return }
    let surface = Surface(width: 1920, height: 1080)
    let (width, height) = (80, 160)
    let glyph = ringMask(width: 72, height: 100)
    let columns = max(1, min(20, (pixelsPerFrame + width * height / 2) / (width * height)))
    let rows = min(1000, pixelsPerFrame / (columns * width))
    let background = PremultipliedColor(Color(css: "#0b1622")!), ink = PremultipliedColor(Color(css: "#ffd166")!)
    var step = 0
    let (share, elapsed) = try wakingShare(seconds: seconds) {
        step += 1
        for k in 0..<columns {
            let rect = PixelRect(x: 600 + 90 * k, y: 440, width: width, height: rows)
            surface.fill(rect, background, mode: .source)
            // The leaving and the arriving digit, a little further on each frame.
            let offset = (step * 7) % height
            for y in [rect.y - offset, rect.y - offset + height] {
                glyph.withUnsafeBufferPointer { bytes in
                    surface.drawCoverage(bytes.baseAddress!, width: 72, height: 100, stride: 72, x: rect.x + 4, y: y + 30, color: ink, clip: Clip(rect: rect))
                }
            }
        }
    }
    print(
        "{\"bench\":\"rolling.pixels\",\"seconds\":\(f3(elapsed)),\"pixels_per_frame\":\(columns * width * rows),\"columns\":\(columns),\"cpu_percent_of_core\":\(f3(share)),\"daemon_ratio\":\(ratio(daemon, share)),\"note\":\"rolling.floor plus the daemon's average repaint per frame as fills and glyph-like masks: what waking and the pixels alone cost; daemon_ratio is rolling.daemon over it\"}"
    )
}

/// An anti-aliased elliptical ring, a digit zero's shape: `width`×`height` coverage bytes.
private func ringMask(width: Int, height: Int) -> [UInt8] {
    let (cx, cy) = (Double(width) / 2, Double(height) / 2)
    let (rx, ry) = (cx - 8, cy - 8)
    return (0..<width * height).map { i in
        let (x, y) = (Double(i % width) + 0.5 - cx, Double(i / width) + 0.5 - cy)
        // Roughly the distance from the ellipse in pixels: a 15-pixel stroke.
        let r = (x * x / (rx * rx) + y * y / (ry * ry)).squareRoot()
        let distance = abs(r - 1) * min(rx, ry)
        return UInt8(max(0, min(1, 7.5 - distance)) * 255)
    }
}

/// The share of one core (in percent) a thread uses that wakes 60 times a second on an
/// `EventLoop` for `seconds`, running `work` at each wake, and the seconds it took.
private func wakingShare(seconds: Double, work: @escaping () -> Void) throws -> (percent: Double, elapsed: Double) {
    nonisolated(unsafe) let work = work  // runs on the thread below only
    let loop = try EventLoop()
    let wakes = Int(seconds * 60)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var cpu = 0.0, elapsed = 0.0
    Thread {
        let cpu0 = threadCPUSeconds(), start = Date()
        var count = 0
        func tick() {
            count += 1
            work()
            if count < wakes { loop.schedule(after: 1.0 / 60, tick) } else { loop.stop() }
        }
        loop.schedule(after: 1.0 / 60, tick)
        loop.run()
        cpu = threadCPUSeconds() - cpu0
        elapsed = Date().timeIntervalSince(start)
        done.signal()
    }.start()
    done.wait()
    return (100 * cpu / elapsed, elapsed)
}

/// CPU seconds the calling thread has run (the scheduler's nanosecond count).
private func threadCPUSeconds() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/thread-self/schedstat", encoding: .utf8),
        let onCPU = text.split(separator: " ").first.flatMap({ Double($0) })
    else { return 0 }
    return onCPU / 1e9
}

/// Runs `rolling.daemon` and `rolling.idle`; returns the counter's run.
private func rollingDaemon(seconds: Int, idleSeconds: Int, floor: Double) throws -> DaemonRun {
    let child = try DaemonChild(width: 1920, height: 1080)
    defer { child.stop() }
    let request = try requester(child)
    let run = try countUp(child, request, scale: 1, seconds: seconds)
    let pid = child.processIdentifier
    print(
        "{\"bench\":\"rolling.daemon\",\"digits\":8,\"size\":\"1920x1080\",\"seconds\":\(f3(run.elapsed)),\"frames\":\(run.frames),\"fps\":\(f3(Double(run.frames) / run.elapsed)),\"cpu_percent_of_core\":\(f3(run.percent)),\"cpu_us_per_frame\":\(f1(run.percent / 100 * run.elapsed / Double(max(run.frames, 1)) * 1e6)),\"floor_ratio\":\(ratio(run.percent, floor)),\"pixels_per_frame\":\(run.pixelsPerFrame),\"pss_mb\":\(f3(memoryMegabytes(pid, "Pss"))),\"rss_mb\":\(f3(memoryMegabytes(pid, "Rss"))),\"swift_runtime\":\"\(swiftRuntime(pid))\"}"
    )
    // Let the last roll settle, then watch the daemon do nothing.
    let settleDeadline = Date().addingTimeInterval(10)
    while try request(#"{"cmd": "stats"}"#).contains("\"animating\":true"), Date() < settleDeadline { Thread.sleep(forTimeInterval: 0.2) }
    let idleFrames0 = try counters(request).frames, idleCPU0 = cpuSeconds(pid)
    Thread.sleep(forTimeInterval: Double(idleSeconds))
    let idleCPU = cpuSeconds(pid) - idleCPU0
    let idleFrames = try counters(request).frames - idleFrames0
    print(
        "{\"bench\":\"rolling.idle\",\"seconds\":\(idleSeconds),\"frames\":\(idleFrames),\"cpu_percent_of_core\":\(f3(100 * idleCPU / Double(idleSeconds))),\"pss_mb\":\(f3(memoryMegabytes(pid, "Pss"))),\"rss_mb\":\(f3(memoryMegabytes(pid, "Rss")))}"
    )
    return run
}

/// The daemon counting: an 8-digit counter (140 px at `scale` 1, centred on 1920×1080;
/// every length times `scale`) changed once a second by a random step, rolling at 60 fps,
/// measured over `seconds`.
func countUp(_ child: DaemonChild, _ request: (String) throws -> String, scale k: Int, seconds: Int) throws -> DaemonRun {
    _ = try request(
        #"{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, \#(1200 * k), \#(200 * k)], "position": [\#(960 * k), \#(540 * k)], "fontSize": \#(140 * k), "alignment": "center", "usesGrouping": false, "value": 10000000}}"#
    )
    var value = 10_000_000
    return try measure(child, request, seconds: seconds) { _ in
        value += Int.random(in: 1...999)
        _ = try request(#"{"cmd": "number.set", "layer": "n", "value": \#(value)}"#)
    }
}

/// `rolling.label`: the demo's bound label (config/demo.toml) — a 700 × 50 text layer
/// showing `It took {count:%.0f} seconds` — its `count` and `position.x` animated over
/// 1 s once a second, so that its text is filled, laid out and drawn on every frame.
private func rollingLabel(seconds: Int, floor: Double) throws {
    let child = try DaemonChild(width: 1920, height: 1080)
    defer { child.stop() }
    let request = try requester(child)
    _ = try request(
        ##"{"cmd": "layer.add", "layer": "label", "kind": "text", "properties": {"bounds": [0, 0, 700, 50], "position": [360, 600], "fontSize": 34, "template": "It took {count:%.0f} seconds", "count": 0, "foregroundColor": "#9fd3c7"}}"##
    )
    let run = try measure(child, request, seconds: seconds) { k in
        _ = try request(
            #"{"cmd": "layer.set", "layer": "label", "properties": {"count": \#((k + 1) * 10), "position.x": \#(360 + 40 * (k % 2))}, "animation": {"duration": 1}}"#
        )
    }
    print(
        "{\"bench\":\"rolling.label\",\"size\":\"1920x1080\",\"seconds\":\(f3(run.elapsed)),\"frames\":\(run.frames),\"cpu_percent_of_core\":\(f3(run.percent)),\"floor_ratio\":\(ratio(run.percent, floor))}"
    )
}

/// What `measure` saw: seconds, the daemon's CPU over them as a share of one core, frames
/// and the pixels they repainted.
struct DaemonRun {
    let elapsed: Double
    let percent: Double
    let frames: Int
    let pixels: Int

    var pixelsPerFrame: Int { frames > 0 ? pixels / frames : 0 }
}

/// Calls `step` with 0, 1, … once a second for `seconds`, half a second after the scene
/// was set up, and measures the daemon meanwhile.
func measure(_ child: DaemonChild, _ request: (String) throws -> String, seconds: Int, step: (Int) throws -> Void) throws -> DaemonRun {
    Thread.sleep(forTimeInterval: 0.5)
    let pid = child.processIdentifier
    let before = try counters(request), cpu0 = cpuSeconds(pid), start = Date()
    for k in 0..<seconds {
        try step(k)
        Thread.sleep(forTimeInterval: 1)
    }
    let elapsed = Date().timeIntervalSince(start)
    let cpu = cpuSeconds(pid) - cpu0
    let after = try counters(request)
    return DaemonRun(elapsed: elapsed, percent: 100 * cpu / elapsed, frames: after.frames - before.frames, pixels: after.pixels - before.pixels)
}

/// `percent` over the floor, one decimal; null without a floor.
private func ratio(_ percent: Double, _ floor: Double) -> String {
    floor > 0 ? String(format: "%.1f", percent / floor) : "null"
}

/// A total of the memory in MB of `pid` and its helpers (every process it started) from
/// /proc/PID/smaps_rollup: `Pss` (proportional set size: pages shared with other processes
/// count in part) or `Rss` (every resident page in full). Built with
/// config/release-toolset.json, the daemon and this benchmark share no Swift library pages,
/// so its PSS is what it uses on a kiosk where it runs alone; built without, they share the
/// Swift libraries and its PSS here is less than alone.
private func memoryMegabytes(_ pid: Int32, _ field: String) -> Double {
    ([pid] + childProcesses(of: pid)).reduce(0) { total, process in
        guard let text = try? String(contentsOfFile: "/proc/\(process)/smaps_rollup", encoding: .utf8) else { return total }
        let kb = text.split(separator: "\n").first { $0.hasPrefix(field + ":") }?.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return total + kb / 1024
    }
}

/// "static" when `pid` has the Swift runtime linked in (config/release-toolset.json), else
/// "shared". (Read to its end through a FileHandle: `String(contentsOfFile:)` takes only the
/// first page of a /proc file, whose size reads as 0.)
private func swiftRuntime(_ pid: Int32) -> String {
    let data = FileHandle(forReadingAtPath: "/proc/\(pid)/maps").flatMap { try? $0.readToEnd() } ?? Data()
    let maps = String(decoding: data, as: UTF8.self)
    return maps.contains("libswiftCore.so") ? "shared" : "static"
}

/// One 1920×1080×4 copy between two warm buffers, median of 41.
private func frameMemcpyMilliseconds() -> Double {
    let bytes = 1920 * 1080 * 4
    let a = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    let b = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
    defer { a.deallocate(); b.deallocate() }
    memset(a, 0x5a, bytes)
    memset(b, 0, bytes)
    var times: [Double] = []
    for _ in 0..<41 {
        let start = DispatchTime.now().uptimeNanoseconds
        memcpy(b, a, bytes)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return times.sorted()[20]
}

private func f3(_ v: Double) -> String { String(format: "%.3f", v) }
private func f1(_ v: Double) -> String { String(format: "%.1f", v) }
