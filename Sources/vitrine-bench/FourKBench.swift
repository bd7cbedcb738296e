import Foundation
import VitrineCore
import VitrineDaemon
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol
import VitrineRender

/// `vitrine-bench 4k`: what a 3840×2160 screen costs beside a 1920×1080 one, both measured
/// in this run, the scene the same at twice every length (four times the pixels):
///
/// - `4k.full_repaint`: the reference kiosk (`frame.full_repaint`) repainted whole — the
///   goal is ≤ 4.2× the 1080p repaint (the pixels scale by 4);
/// - `4k.digits_only`: frames in which only its large number's last digits change;
/// - `4k.rolling_frame`: frames of 12 digit columns rolling (`rolling.frame`), in process;
/// - `4k.rolling_daemon`: the release daemon's CPU while an 8-digit counter rolls
///   (`rolling.daemon`), rounds of 1080p and 4K interleaved — the goal is ≤ 1.5× 1080p:
///   the cost follows the damaged pixels, not the screen.
///
/// Each line carries both figures, a memcpy of one frame at each size, and the ratio.
///
///     vitrine-bench 4k [--quick] [full_repaint|digits_only|rolling_frame|rolling_daemon]
///
/// A name runs only the benches whose name contains it.
func runFourKBenchmarks(_ options: [String]) {
    let quick = options.contains("--quick")
    let only = options.filter { !$0.hasPrefix("--") }
    func runs(_ name: String) -> Bool { only.isEmpty || only.contains(where: name.contains) }
    let repetitions = quick ? 9 : 31
    let kiosk = [1, 2].map { KioskFrames(scale: $0) }
    let memcpy = kiosk.map { memcpyMilliseconds(bytes: $0.width * $0.height * 4, repetitions: repetitions) }
    if runs("4k.full_repaint") { print(line("4k.full_repaint", kiosk.map { $0.fullRepaint(repetitions) }, memcpy, goal: "<= 4.2")) }
    if runs("4k.digits_only") { print(line("4k.digits_only", kiosk.map { $0.digitsOnly(repetitions) }, memcpy, goal: "report")) }
    do {
        if runs("4k.rolling_frame") {
            let rolling = try [1, 2].map { try rollingFrameTimes(scale: $0, frames: quick ? 60 : 200) }
            print(line("4k.rolling_frame", rolling.map(\.median), memcpy, goal: "report", pixels: rolling.map(\.pixelsPerFrame)))
        }
        guard runs("4k.rolling_daemon") else { return }
        var cpu: [[Double]] = [[], []]
        for _ in 0..<(quick ? 1 : 3) {
            for (i, k) in [1, 2].enumerated() {
                let child = try DaemonChild(width: 1920 * k, height: 1080 * k)
                defer { child.stop() }
                cpu[i].append(try countUp(child, try requester(child), scale: k, seconds: quick ? 4 : 8).percent)
            }
        }
        let medians = cpu.map { median($0) }
        print(
            "{\"bench\":\"4k.rolling_daemon\",\"rounds\":\(cpu[0].count),\"cpu_percent_1080p\":\(f3(medians[0])),\"cpu_percent_2160p\":\(f3(medians[1])),\"ratio\":\(f2(medians[1] / medians[0])),\"goal\":\"<= 1.5\"}"
        )
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench 4k: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

/// The reference kiosk at a scale on a headless output of its size, repainted in this
/// process on a clock stepping 1/60 s.
private final class KioskFrames {
    let width: Int, height: Int
    private let scene = Scene()
    private let pipeline: FramePipeline
    private var time = 0.0

    init(scale: Int) {
        (width, height) = (1920 * scale, 1080 * scale)
        StandardKinds.register(in: scene)
        try! scene.addRoot(id: "root", output: "bench", size: Size(width: Double(width), height: Double(height)))
        try! SceneDescription(json: JSON(parsing: Data(kioskSceneJSON(scale: scale).utf8))).apply(to: scene, root: "root", at: 0)
        pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: try! HeadlessOutput(width: width, height: height, bufferCount: 1))
    }

    /// The median time of a whole repaint.
    func fullRepaint(_ repetitions: Int) -> Double {
        median(
            (0..<repetitions).map { _ in
                time += 1.0 / 60
                pipeline.invalidate()
                return milliseconds { _ = try! pipeline.render(scene.renderTree(root: "root", at: time)) }
            })
    }

    /// The median time of a frame in which the number's last digit changes.
    func digitsOnly(_ repetitions: Int) -> Double {
        _ = try! pipeline.render(scene.renderTree(root: "root", at: time))
        return digitFrames(scene, pipeline, &time, repetitions, screenPixels: width * height)
    }
}

/// A line of both sizes' times and their ratio, with each size's frame memcpy.
private func line(_ name: String, _ ms: [Double], _ memcpy: [Double], goal: String, pixels: [Int]? = nil) -> String {
    let repainted = pixels.map { ",\"pixels_per_frame_1080p\":\($0[0]),\"pixels_per_frame_2160p\":\($0[1])" } ?? ""
    return
        "{\"bench\":\"\(name)\",\"ms_1080p\":\(f3(ms[0])),\"ms_2160p\":\(f3(ms[1])),\"ratio\":\(f2(ms[1] / ms[0]))\(repainted),\"memcpy_ms_1080p\":\(f3(memcpy[0])),\"memcpy_ms_2160p\":\(f3(memcpy[1])),\"goal\":\"\(goal)\"}"
}

private func f3(_ v: Double) -> String { String(format: "%.3f", v) }
private func f2(_ v: Double) -> String { String(format: "%.2f", v) }
