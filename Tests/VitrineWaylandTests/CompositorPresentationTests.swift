import CWaylandClient
import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol
import WaylandDescription
@testable import VitrineOutput

/// `wp_presentation`: a client's commits are presented with the time of the frame that
/// showed them, or discarded. The daemon runs headless at 60 Hz on the real-time clock
/// (frames at the pacer's slots); the clients are one written here (an xdg toplevel of
/// app id "presentation-test" asking feedback for its commits) and Weston's
/// `weston-presentation-shm`.
@Suite(.serialized) struct CompositorPresentationTests {
    /// 1 s / 60, rounded: the refresh of the headless output.
    static let refresh: UInt32 = 16_666_667

    struct Setup {
        let daemon: DaemonProcess
        let control: SocketClient
        let waylandPath: String

        /// The compositor with the surface layer `win` (60×40 at (100, 60)); `rules` place toplevels in it.
        init(rules: String = "[[compositor.rules]]\napp_id = \"presentation-test\"\nlayer = \"win\"\n") throws {
            (daemon, control, waylandPath) = try CompositorTests.start(
                config: "[output]\nheadless_size = \"200x120\"\n[compositor]\nenabled = true\nsocket = \"wl\"\n\(rules)", clock: "realtime",
                win: #"{"bounds": [0, 0, 60, 40], "position": [100, 60]}"#)
        }

        /// The frames the daemon presented so far.
        func frames() throws -> Double { try control.request(#"{"cmd": "stats"}"#)["result"]?["frames"]?.number ?? -1 }
    }

    @Test func commitsArePresentedInTheNextFrameWithTheOutputsTimeAndRate() throws {
        let setup = try Setup()
        let client = try PresentationClient(setup.waylandPath)
        #expect(client.clockID == UInt32(CLOCK_MONOTONIC))
        _ = try setup.control.waitForEvent("surface.mapped")
        let framesBefore = try setup.frames()
        var commits: [Int] = []
        for _ in 0..<30 {
            commits.append(client.commit(feedback: true, frameCallback: true))
            try client.waitForFrameCallback()
        }
        try client.waitForOutcomes(of: commits)
        let framesAfter = try setup.frames()
        let presented = commits.compactMap { client.outcomes[$0]?.presented }
        #expect(presented.count == commits.count, "\(commits.count - presented.count) of \(commits.count) commits were discarded")
        guard presented.count == commits.count else { return }
        for (index, p) in presented.enumerated() {
            #expect(
                p.commitTime <= p.time && p.time <= p.receivedTime, "commit \(index): presented at \(p.time), committed \(p.commitTime), told \(p.receivedTime)"
            )
            #expect(p.refresh == Self.refresh && p.sequence == 0 && p.flags == 0, "commit \(index): \(p)")
            #expect(p.outputs == [client.output], "commit \(index): sync_output names the output \(p.outputs)")
            if index > 0 { #expect(p.time > presented[index - 1].time, "commit \(index) is presented after commit \(index - 1)") }
        }
        // Each commit waited for the frame callback of the one before: each is in a frame of its own.
        #expect(framesAfter - framesBefore >= Double(presented.count), "\(framesAfter - framesBefore) frames for \(presented.count) commits")
        let latencies = presented.map { Double($0.time - $0.commitTime) / Double(Self.refresh) }.sorted()
        #expect(latencies[latencies.count / 2] <= 1.5, "commit to presentation: \(latencies.map { String(format: "%.2f", $0) }) frames")
    }

    @Test func aCommitReplacedBeforeAFrameIsDiscarded() throws {
        let setup = try Setup()
        let client = try PresentationClient(setup.waylandPath)
        _ = try setup.control.waitForEvent("surface.mapped")
        // Both commits reach the daemon in one read: no frame comes between them.
        let replaced = client.commit(feedback: true, frameCallback: false, flush: false)
        let shown = client.commit(feedback: true, frameCallback: false)
        try client.waitForOutcomes(of: [replaced, shown])
        #expect(client.outcomes[replaced]?.presented == nil, "the replaced commit: \(String(describing: client.outcomes[replaced]))")
        #expect(client.outcomes[shown]?.presented != nil, "the commit that replaced it: \(String(describing: client.outcomes[shown]))")
    }

    @Test func commitsOfAWindowShownNowhereAreDiscarded() throws {
        let setup = try Setup(rules: "")
        let client = try PresentationClient(setup.waylandPath)
        let mapped = try setup.control.waitForEvent("surface.mapped")
        let id = Int(try #require(mapped["surface"]?.number))
        let unassigned = client.commit(feedback: true, frameCallback: false)
        try client.waitForOutcomes(of: [unassigned])
        #expect(client.outcomes[unassigned]?.presented == nil, "a window in no layer: \(String(describing: client.outcomes[unassigned]))")

        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(id), "layer": "win"}"#)
        let assigned = client.commit(feedback: true, frameCallback: false)
        try client.waitForOutcomes(of: [assigned])
        #expect(client.outcomes[assigned]?.presented != nil, "a window in a layer on screen: \(String(describing: client.outcomes[assigned]))")

        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"position": [400, 60]}, "actions": false}"#)
        usleep(100_000)
        let offScreen = client.commit(feedback: true, frameCallback: false)
        try client.waitForOutcomes(of: [offScreen])
        #expect(client.outcomes[offScreen]?.presented == nil, "a window in a layer off screen: \(String(describing: client.outcomes[offScreen]))")

        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"position": [100, 60], "hidden": true}, "actions": false}"#)
        usleep(100_000)
        let hidden = client.commit(feedback: true, frameCallback: false)
        try client.waitForOutcomes(of: [hidden])
        #expect(client.outcomes[hidden]?.presented == nil, "a window in a hidden layer: \(String(describing: client.outcomes[hidden]))")

        try setup.control.ok(#"{"cmd": "layer.set", "layer": "win", "properties": {"hidden": false}, "actions": false}"#)
        try setup.control.ok(#"{"cmd": "output.power", "output": "headless", "on": false}"#)
        let blanked = client.commit(feedback: true, frameCallback: false)
        try client.waitForOutcomes(of: [blanked])
        #expect(client.outcomes[blanked]?.presented == nil, "a window on a blanked output: \(String(describing: client.outcomes[blanked]))")
        try setup.control.ok(#"{"cmd": "output.power", "output": "headless", "on": true}"#)
        usleep(100_000)
        let woken = client.commit(feedback: true, frameCallback: false)
        try client.waitForOutcomes(of: [woken])
        #expect(client.outcomes[woken]?.presented != nil, "a window on the output woken again: \(String(describing: client.outcomes[woken]))")
    }

    /// With two outputs, a window on the second is presented by it: its `wl_output`, its rate.
    @Test func aWindowOnTheSecondOutputIsPresentedByIt() throws {
        let (daemon, _) = try DaemonProcess.twoOutputs(
            clock: "realtime", rightRate: 30,
            extra: "\n[compositor]\nenabled = true\nsocket = \"wl\"\n[[compositor.rules]]\napp_id = \"presentation-test\"\nlayer = \"win\"\n")
        let control = try daemon.connect()
        try control.ok(#"{"cmd": "subscribe", "events": ["surface.*"]}"#)
        try control.ok(
            #"{"cmd": "layer.add", "layer": "win", "kind": "surface", "parent": "right", "properties": {"bounds": [0, 0, 60, 40], "position": [100, 100]}}"#)
        let client = try PresentationClient(daemon.directory.appendingPathComponent("wl").path)
        _ = try control.waitForEvent("surface.mapped")
        var commits: [Int] = []
        for _ in 0..<5 {
            commits.append(client.commit(feedback: true, frameCallback: true))
            try client.waitForFrameCallback()
        }
        try client.waitForOutcomes(of: commits)
        #expect(client.outputs.count == 2)
        for commit in commits {
            let presented = client.outcomes[commit]?.presented
            #expect(presented?.refresh == 33_333_333, "HDMI-A-2 refreshes at 30 Hz: \(String(describing: client.outcomes[commit]))")
            #expect(presented?.outputs == [client.outputs.last], "sync_output names HDMI-A-2's wl_output: \(String(describing: presented))")
        }
    }

    /// A popup's commits go with its window's frames (the manual clock: a commit is drawn at once).
    @Test func aPopupsCommitIsPresentedWithItsWindow() throws {
        let setup = try CompositorTests.Setup(rules: "[[compositor.rules]]\napp_id = \"popup-test\"\nlayer = \"win\"\n")
        let client = try PopupClient(setup.waylandPath)
        let window = client.toplevel(appID: "popup-test", 60, 40, 0xFF00_0060)
        _ = try setup.control.waitForEvent("surface.mapped")
        let presentation = try client.bind("wp_presentation", version: 1)
        let popup = client.popup(parent: window.xdg, positioner: client.positioner(size: (10, 10), anchorRect: (30, 20, 0, 0), gravity: 8))
        func feedback() throws -> OpaquePointer {
            try #require(
                client.listen(
                    waylandRequest(
                        presentation, WpPresentationRequest.feedback.rawValue, [wl_argument(o: popup.surface), wl_argument(n: 0)],
                        creating: PresentationClient.timing["wp_presentation_feedback"])))
        }
        let shown = try feedback()
        client.show(popup.surface, 10, 10, 0xFFFF_FF00)
        client.wait { client.events.contains { $0.object == PopupClient.id(shown) && ($0.name == "presented" || $0.name == "discarded") } }
        #expect(client.events("presented", of: shown).count == 1, "\(client.events.filter { $0.interface.hasPrefix("wp_") })")
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/weston-presentation-shm")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/stdbuf"),
            "weston-presentation-shm is not installed: apt-get install weston"))
    func westonPresentationShmSeesItsCommitsInTheNextFrame() throws {
        let setup = try Setup(rules: "[[compositor.rules]]\ntitle = \"presentation-shm: feedback [Delay 0 msecs]\"\nlayer = \"win\"\n")
        let log = setup.daemon.directory.appendingPathComponent("presentation-shm.out").path
        // (its statistics line-buffered into the log as the feedback comes)
        let client = try ChildProcess(
            "/bin/sh", ["-c", "exec /usr/bin/stdbuf -oL /usr/bin/weston-presentation-shm -f 1>&2"], stderrPath: log,
            environment: ["WAYLAND_DISPLAY": setup.waylandPath])
        defer { _ = client.terminate() }
        _ = try setup.control.waitForEvent("surface.mapped")
        // (at least 30 presentations, read until they came or 10 s passed: a loaded machine
        // may start the client slowly)
        var lines: [Substring] = [], samples: [Double] = []
        let deadline = Date().addingTimeInterval(10)
        repeat {
            usleep(200_000)
            lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n")
            // "    12: f2c  0 ms, c2p 16 ms, f2p 16 ms, p2p 16650 us, t2p  16616, [____], seq 0"
            samples = lines.dropFirst().compactMap { line -> Double? in
                guard let range = line.range(of: "t2p"), line.hasSuffix("[____], seq 0") else { return nil }
                return Double(line[range.upperBound...].prefix { $0 != "," }.trimmingCharacters(in: .whitespaces))
            }
        } while samples.count < 30 && Date() < deadline
        #expect(samples.count >= 30, "\(samples.count) presented frames in 10 s: \(lines.suffix(5))")
        #expect(!lines.contains { $0.hasPrefix("discarded") }, "\(lines.filter { $0.hasPrefix("discarded") })")
        let frames = samples.map { $0 / (Double(Self.refresh) / 1000) }.sorted()
        guard !frames.isEmpty else { return }
        #expect(frames[frames.count / 2] <= 1.5, "commit to presentation, in frames: \(frames.map { String(format: "%.2f", $0) })")
    }
}
