import Foundation
import Logging
import VitrineCore
import VitrineDaemon
import VitrineOutput

/// `vitrine-bench shadow`: what shadows drawn from content cost on the first-run demo's
/// screen (config/demo.toml, 1280×720): a translucent glass card with a shadow and a
/// rolling number on it. Each bench runs the scene twice in the same process — the card
/// with its shadow and with none — and reports both and their ratio.
///
/// 1. `shadow.demo_roll`: frames while the number rolls (a `number.set` each second, a
///    manual clock stepping 1/60 s): the shadow of what changes is made again, for the
///    damaged part only.
/// 2. `shadow.demo_repaint`: full repaints of the still scene, the card's shadow kept
///    from the first.
/// 3. `shadow.huge_layer`: both, with a 100 000 × 100 000 layer casting a shadow of
///    radius 500 added to the demo (its corner on screen), against a 1280×720 layer with
///    the same shadow in the same place and against the demo alone. A shadow is drawn
///    where the screen shows it, so the huge layer should cost what the screen-sized one
///    does (`ratio` near 1).
///
///     vitrine-bench shadow [--quick]
func runShadowBenchmarks(_ options: [String]) {
    let steps = options.contains("--quick") ? 120 : 360
    func ms(_ value: Double) -> String { String(format: "%.3f", value) }
    do {
        let with = try demoFrames(shadowOpacity: 0.5, steps: steps)
        let without = try demoFrames(shadowOpacity: 0, steps: steps)
        for (name, a, b) in [("shadow.demo_roll", with.roll, without.roll), ("shadow.demo_repaint", with.repaint, without.repaint)] {
            print(
                "{\"bench\":\"\(name)\",\"size\":\"1280x720\",\"shadow_ms\":\(ms(a)),\"no_shadow_ms\":\(ms(b)),\"ratio\":\(String(format: "%.2f", a / b))}"
            )
        }
        let huge = try demoFrames(shadowOpacity: 0.5, steps: steps, extraLayer: 100_000)
        let screen = try demoFrames(shadowOpacity: 0.5, steps: steps, extraLayer: 1280)
        for (name, a, b, c) in [
            ("shadow.huge_layer.roll", huge.roll, screen.roll, with.roll), ("shadow.huge_layer.repaint", huge.repaint, screen.repaint, with.repaint),
        ] {
            print(
                "{\"bench\":\"\(name)\",\"size\":\"1280x720\",\"huge_ms\":\(ms(a)),\"screen_sized_ms\":\(ms(b)),\"demo_ms\":\(ms(c)),\"ratio\":\(String(format: "%.2f", a / b)),\"ratio_to_demo\":\(String(format: "%.2f", a / c))}"
            )
        }
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench shadow: \(error)\n".utf8))
        exit(1)
    }
}

/// A coordinator in this process on a headless output, with a manual clock, and a client
/// whose requests must succeed.
struct InProcessCoordinator {
    /// A client that ignores what is sent to it.
    private final class Sink: ClientConnection {
        let clientID = 1
        func send(_ line: String) {}
    }

    let coordinator: Coordinator
    private let client = Sink()

    init(width: Int, height: Int) throws {
        var settings = DaemonSettings()
        settings.clock = .manual
        let output = try HeadlessOutput(width: width, height: height, bufferCount: 2)
        coordinator = try Coordinator(settings: settings, output: output, logger: Logger(label: "bench"))
        coordinator.connect(client)
    }

    /// Handles one request line, which must succeed, and what follows from it.
    func run(_ line: String) {
        let reply = coordinator.handle(line: Array(line.utf8), from: client) ?? ""
        precondition(reply.contains("\"ok\":true"), reply)
        coordinator.flush()
    }
}

/// Median milliseconds of a presented rolling frame and of a full repaint of the demo's
/// screen whose card casts a shadow of `shadowOpacity`; with `extraLayer`, a translucent
/// square layer of that side behind the card, its top-left corner at (900, 480), casting
/// a shadow of radius 500.
private func demoFrames(shadowOpacity: Double, steps: Int, extraLayer side: Double? = nil) throws -> (roll: Double, repaint: Double) {
    let bench = try InProcessCoordinator(width: 1280, height: 720)
    let coordinator = bench.coordinator, run = bench.run
    run(
        ##"{"id": 0, "cmd": "layer.add", "layer": "sky", "kind": "gradient", "properties": {"bounds": [0, 0, 1280, 720], "position": [640, 360], "colors": ["#12324a", "#0b1622"]}}"##
    )
    if let side {
        run(
            ##"{"id": 0, "cmd": "layer.add", "layer": "slab", "properties": {"bounds": [0, 0, \##(side), \##(side)], "position": [\##(900 + side / 2), \##(480 + side / 2)], "backgroundColor": "#3a506b80", "shadowOpacity": 1, "shadowRadius": 500, "shadowOffset": [-40, -30]}}"##
        )
    }
    run(
        ##"{"id": 0, "cmd": "layer.add", "layer": "title", "kind": "text", "properties": {"bounds": [0, 0, 1200, 60], "position": [640, 70], "string": "Vitrine — visitors today", "fontSize": 44, "alignmentMode": "center", "foregroundColor": "#d8e3ee"}}"##
    )
    run(
        ##"{"id": 0, "cmd": "layer.add", "layer": "card", "properties": {"bounds": [0, 0, 900, 260], "position": [640, 330], "cornerRadius": 36, "backgroundColor": "#ffffff14", "shadowOpacity": \##(shadowOpacity), "shadowRadius": 20, "shadowOffset": [0, 12]}}"##
    )
    run(
        ##"{"id": 0, "cmd": "layer.add", "layer": "counter", "kind": "rolling-number", "parent": "card", "properties": {"bounds": [0, 0, 860, 180], "position": [450, 130], "fontSize": 140, "value": 245699, "alignment": "center", "textColor": "#ffd166"}}"##
    )
    var times: [Double] = []
    var value = 245_699
    for step in 0..<steps {
        if step % 60 == 0 {
            value += 1 + step % 7 * 13
            run(#"{"id": 0, "cmd": "number.set", "layer": "counter", "value": \#(value)}"#)
        }
        let before = coordinator.framesRendered
        let start = DispatchTime.now().uptimeNanoseconds
        run(#"{"id": 0, "cmd": "clock.advance", "seconds": 0.016666666666666666}"#)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        if coordinator.framesRendered > before { times.append(elapsed) }
    }
    precondition(times.count >= steps / 10, "too few steps presented a frame (\(times.count) of \(steps))")
    // Five seconds for the last roll to come to rest.
    for _ in 0..<300 { run(#"{"id": 0, "cmd": "clock.advance", "seconds": 0.016666666666666666}"#) }
    var repaints: [Double] = []
    for _ in 0..<max(9, steps / 20) {
        coordinator.outputSet.primary.pipeline.invalidate()
        let start = DispatchTime.now().uptimeNanoseconds
        precondition(coordinator.renderFrame())
        repaints.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    return (times.sorted()[times.count / 2], repaints.sorted()[repaints.count / 2])
}
