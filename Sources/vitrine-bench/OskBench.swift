import CWaylandClient
import Foundation
import VitrineProtocol

/// `vitrine-bench osk`: a tap on a letter key of an on-screen keyboard → the first frame
/// presented that shows the character in the client it typed into.
///
/// The release `vitrined` (headless 1920×1080 at 60 Hz, real-time clock, `[compositor]`)
/// shows the bench's own client (`BenchWaylandClient` with `BenchTextInput`) in a surface
/// layer filling the root. The client enables a text input when it gets the keyboard
/// focus, which brings the keyboard up; when text arrives (`commit_string`, or a key press)
/// it fills its whole buffer with a new colour and commits with `wp_presentation`
/// feedback. Taps are injected with `input.inject` carrying `time` = CLOCK_MONOTONIC now,
/// as a kernel stamps a touch screen's events; the latency is the presentation time of
/// the commit (vitrined's presentation clock is CLOCK_MONOTONIC: checked) minus the time of
/// the event that typed: the press when the text came before the finger was lifted, else
/// the release (a tap is held until its text came, at most 250 ms).
///
/// Two runs, the same daemon, client and taps: Vitrine's own keyboard (`[osk]`), and
/// squeekboard (an input method over input-method-v2, its panel a layer-shell surface),
/// started by the daemon in a D-Bus session of its own with Vitrine's keyboard off.
/// Weston 10 has neither layer shell nor input-method-v2, so squeekboard cannot run under
/// it: the anchor runs under vitrined. A tap whose text does not come within a second, is
/// another character, or whose frame is discarded, is a failure, reported beside the
/// figures.
func runOskBenchmarks(_ options: [String]) {
    let taps = options.contains("--quick") ? 30 : 100
    let squeekboard = "/usr/bin/squeekboard"
    guard FileManager.default.isExecutableFile(atPath: squeekboard), FileManager.default.isExecutableFile(atPath: "/usr/bin/dbus-run-session") else {
        FileHandle.standardError.write(Data("vitrine-bench osk: squeekboard or dbus-run-session is not installed (apt-get install squeekboard dbus)\n".utf8))
        exit(1)
    }
    BenchCleanup.shared.installSignalHandlers()
    do {
        let ours = try oskRun(.vitrine, taps: taps)
        let theirs = try oskRun(.squeekboard, taps: taps)
        for run in ours + theirs { print(run.line) }
        for (mine, anchor) in zip(ours, theirs) {
            guard !mine.latencies.isEmpty, !anchor.latencies.isEmpty else { throw BenchError("a keyboard typed nothing") }
            let ratio = { (p: Double) in String(format: "%.2f", percentile(mine.latencies, p) / percentile(anchor.latencies, p)) }
            print(
                "{\"bench\":\"osk.latency\",\"key\":\"\(mine.key)\",\"scene\":\"\(mine.scene)\",\"p50_ratio\":\(ratio(0.5)),\"p99_ratio\":\(ratio(0.99)),"
                    + "\"p50_frames\":[\(mine.frames(0.5)),\(anchor.frames(0.5))],\"p99_frames\":[\(mine.frames(0.99)),\(anchor.frames(0.99))],"
                    + "\"failed\":[\(mine.failed),\(anchor.failed)],\"goal\":\"ratio <= 1, p99 <= 2 frames\"}")
        }
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench osk: \(error)\n".utf8))
        BenchCleanup.shared.runAll()
        exit(1)
    }
}

private enum ScreenKeyboardKind: String {
    case vitrine, squeekboard

    /// The daemon's configuration after the client's rule.
    var configuration: String {
        switch self {
        case .vitrine: "[osk]\nenabled = true\navoid = \"none\"\n"
        case .squeekboard:
            """
            [[clients]]
            name = "keyboard"
            command = ["dbus-run-session", "--", "sh", "-c", "gsettings set org.gnome.desktop.a11y.applications screen-keyboard-enabled true && exec squeekboard"]

            """
        }
    }
}

/// One keyboard's taps on one key, the screen still or moving.
private struct TapRun {
    let keyboard: ScreenKeyboardKind
    let key: String
    let scene: String
    /// Tap → presentation of the frame showing its text, milliseconds, sorted.
    var latencies: [Double] = []
    /// Tap → the text's arrival at the client, milliseconds, sorted.
    var deliveries: [Double] = []
    /// Taps, those that typed nothing shown (or another character), those whose text
    /// came after the release, and texts beyond a tap's first.
    var taps = 0, failed = 0, fromRelease = 0, extraTexts = 0
    var typed = ""
    static let period = 1000.0 / 60

    func frames(_ p: Double) -> String { String(format: "%.2f", percentile(latencies, p) / Self.period) }

    var line: String {
        let figures =
            latencies.isEmpty
            ? ""
            : String(
                format:
                    ",\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"max_ms\":%.2f,\"min_ms\":%.2f,\"p50_frames\":%@,\"p99_frames\":%@,\"text_p50_ms\":%.2f,\"text_p99_ms\":%.2f",
                percentile(latencies, 0.5), percentile(latencies, 0.99), latencies.last!, latencies.first!, frames(0.5), frames(0.99),
                percentile(deliveries, 0.5), percentile(deliveries, 0.99))
        let sample = String(typed.prefix(40)).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return
            "{\"bench\":\"osk.tap\",\"keyboard\":\"\(keyboard.rawValue)\",\"key\":\"\(key)\",\"scene\":\"\(scene)\",\"taps\":\(taps),\"presented\":\(latencies.count),"
            + "\"failed\":\(failed),\"typed_on_release\":\(fromRelease),\"extra_texts\":\(extraTexts),\"typed\":\"\(sample)\"\(figures)}"
    }
}

/// The daemon with `kind`'s keyboard and the bench's client: the keyboard brought up by
/// the client's focus, then `taps` taps on each of two letter keys ("h", which Vitrine's
/// keyboard types on press, and "g", which it types on release: a long press offers ğ),
/// the screen still, then with a layer sliding above the client (frames every 60 Hz slot).
private func oskRun(_ kind: ScreenKeyboardKind, taps: Int) throws -> [TapRun] {
    try BenchCleanup.withTemporaryDirectory { directory in
        let compositor = try BenchCompositor(in: directory, weston: nil, rule: "app_id = \"vitrine-bench-client\"", extra: kind.configuration)
        defer { compositor.stop() }
        guard let daemon = compositor.daemon else { throw BenchError("no daemon") }
        let ask = try requester(daemon)
        let client = try connectedClient(compositor.socket)
        let text = try BenchTextInput(client: client)
        guard text.hasTextInput else { throw BenchError("vitrined offers no zwp_text_input_manager_v3") }
        guard client.clock == CLOCK_MONOTONIC else { throw BenchError("the presentation clock is \(client.clock), not CLOCK_MONOTONIC") }
        let session = try TapSession(client: client, daemon: daemon)
        var shown = false
        client.commitNextColour(frameCallback: false, always: true) { _ in shown = true }
        try session.pump(for: 5) { shown }
        guard shown else { throw BenchError("the client's first frame was not presented") }
        let keys = try session.bringUp(kind, keys: ["h", "g"], text: text, ask: ask)
        var runs: [TapRun] = []
        for scene in ["still", "moving"] {
            if scene == "moving" {
                for request in [
                    ##"{"cmd": "layer.add", "layer": "mover", "properties": {"bounds": [0, 0, 120, 120], "position": [100, 300], "backgroundColor": "#ff0000"}}"##,
                    #"{"cmd": "animation.add", "layer": "mover", "animation": {"keyPath": "position.x", "from": 100, "to": 1820, "duration": 4, "autoreverses": true, "repeatCount": "infinity"}}"#,
                ] {
                    let reply = try ask(request)
                    guard reply.contains("\"ok\":true") else { throw BenchError("\(request) failed: \(reply)") }
                }
            }
            for (key, point) in keys {
                var run = TapRun(keyboard: kind, key: key, scene: scene)
                for _ in 0..<taps {
                    try session.pump(for: 0.12 + Double.random(in: 0..<(TapRun.period / 1000)))
                    try session.tap(at: point, text: text, run: &run)
                }
                run.latencies.sort()
                run.deliveries.sort()
                runs.append(run)
            }
        }
        if text.keyPresses > 0 {
            FileHandle.standardError.write(Data("vitrine-bench osk: \(kind.rawValue) typed \(text.keyPresses) characters as key presses\n".utf8))
        }
        return runs
    }
}

/// The bench's client and a connection injecting taps, run on one thread: the client's
/// events are read while the taps' replies are.
private final class TapSession {
    private let client: BenchWaylandClient
    private let control: Int32
    private var replies: [UInt8] = []
    private var failures: [String] = []
    private var sent = 0

    init(client: BenchWaylandClient, daemon: DaemonChild) throws {
        self.client = client
        control = try connectUnix(daemon.socketPath)
    }

    deinit { close(control) }

    /// Reads the client's events and the injections' replies for up to `seconds`, or until `done`.
    func pump(for seconds: Double, until done: () -> Bool = { false }) throws {
        let deadline = monotonicSeconds() + seconds
        while !done() {
            let left = deadline - monotonicSeconds()
            guard left > 0 else { return }
            wl_display_dispatch_pending(client.display)
            wl_display_flush(client.display)
            var fds = [
                pollfd(fd: wl_display_get_fd(client.display), events: Int16(POLLIN), revents: 0), pollfd(fd: control, events: Int16(POLLIN), revents: 0),
            ]
            guard poll(&fds, 2, Int32(max(1, (left * 1000).rounded(.up)))) > 0 else { continue }
            if fds[0].revents != 0, wl_display_dispatch(client.display) < 0 {
                throw BenchError("the compositor closed the client's connection (error \(wl_display_get_error(client.display)))")
            }
            if fds[1].revents != 0 { try readReplies() }
        }
    }

    private func readReplies() throws {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { recv(control, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard n > 0 else {
            if n < 0, errno == EAGAIN { return }
            throw BenchError("the daemon closed the injecting connection")
        }
        replies += chunk[0..<n]
        while let newline = replies.firstIndex(of: 10) {
            let line = String(decoding: replies[..<newline], as: UTF8.self)
            replies.removeSubrange(...newline)
            if line.contains("\"ok\":false") { failures.append(line) }
        }
        if let failure = failures.first { throw BenchError("input.inject failed: \(failure)") }
    }

    /// Injects a touch `phase` at `point`, stamped now on CLOCK_MONOTONIC; returns that time.
    @discardableResult
    func touch(_ phase: String, at point: (Double, Double)) throws -> Double {
        let time = monotonicSeconds()
        sent += 1
        let line = String(
            format: "{\"id\":\(sent),\"cmd\":\"input.inject\",\"type\":\"touch\",\"phase\":\"%@\",\"touch\":1,\"point\":[%.1f,%.1f],\"time\":%.6f}\n", phase,
            point.0,
            point.1, time)
        try sendAll(control, Array(line.utf8))
        return time
    }

    /// One tap: down, held until text comes (at most 250 ms), up, then the frame showing
    /// the text waited for (a second at most).
    func tap(at point: (Double, Double), text: BenchTextInput, run: inout TapRun) throws {
        var arrived: Double?, presented: UInt64?, discarded = false, texts = 0
        var typed = ""
        text.received = { [client] string in
            texts += 1
            guard arrived == nil else { return }
            arrived = Double(client.now()) / 1e9
            typed = string
            let drawn = client.commitNextColour(frameCallback: false, always: true) { time in
                if let time { presented = time } else { discarded = true }
            }
            if drawn == nil { discarded = true }
        }
        defer { text.received = { _ in } }
        run.taps += 1
        let down = try touch("down", at: point)
        try pump(for: 0.25) { arrived != nil }
        let up = try touch("up", at: point)
        try pump(for: 1) { presented != nil || discarded }
        try pump(for: 0.03)
        run.extraTexts += max(0, texts - 1)
        run.typed += typed
        guard let arrived, let presented, !discarded, typed == run.key else {
            run.failed += 1
            return
        }
        let from = arrived < up ? down : up
        if from == up { run.fromRelease += 1 }
        run.latencies.append((Double(presented) / 1e9 - from) * 1000)
        run.deliveries.append((arrived - from) * 1000)
    }

    /// Taps the client's window until the keyboard is up, and returns where to tap each
    /// of `keys` on it.
    func bringUp(_ kind: ScreenKeyboardKind, keys: [String], text: BenchTextInput, ask: (String) throws -> String) throws -> [(String, (Double, Double))] {
        let deadline = monotonicSeconds() + 40
        var layer: String?
        while layer == nil, monotonicSeconds() < deadline {
            try touch("down", at: (960, 100))
            try pump(for: 0.05)
            try touch("up", at: (960, 100))
            try pump(for: 1)
            layer = try keyboardLayer(kind, ask: ask)
        }
        guard let layer, text.enabled else {
            throw BenchError("\(kind.rawValue)'s keyboard did not come up (the client's text input is \(text.enabled ? "enabled" : "not enabled"))")
        }
        // Let it finish sliding in.
        try pump(for: 1.5)
        let frame = try frameOf(layer, ask: ask)
        return try keys.map { key in
            switch kind {
            case .squeekboard:
                // Its "us" layout: four rows (q…p, a…l, ⇧ z…m ⌫, the bottom row) of keys a
                // tenth of its width; a…l starts half a key in.
                guard let column = "asdfghjkl".firstIndex(of: Character(key)).map({ "asdfghjkl".distance(from: "asdfghjkl".startIndex, to: $0) }) else {
                    throw BenchError("no key \(key) in squeekboard's second row")
                }
                return (key, (frame.x + frame.width * (0.1 + 0.1 * Double(column)), frame.y + frame.height * 0.375))
            case .vitrine:
                for index in 0..<100 {
                    let label = try JSON(parsing: ask("{\"cmd\": \"layer.get\", \"layer\": \"osk:label:\(index)\", \"keys\": [\"string\"]}"))
                    guard label["result"]?["properties"]?["string"]?.string == key else { continue }
                    let cap = try frameOf("osk:key:\(index)", ask: ask)
                    return (key, (frame.x + cap.x + cap.width / 2, frame.y + cap.y + cap.height / 2))
                }
                throw BenchError("Vitrine's keyboard has no key labelled \(key)")
            }
        }
    }

    /// The layer holding the keyboard once it is there.
    private func keyboardLayer(_ kind: ScreenKeyboardKind, ask: (String) throws -> String) throws -> String? {
        let tree = try JSON(parsing: ask(#"{"cmd": "layer.tree"}"#))
        let ids = (tree["result"]?["sublayers"]?.array ?? []).compactMap { $0["layer"]?.string }
        switch kind {
        case .vitrine: return ids.contains("osk") ? "osk" : nil
        case .squeekboard: return ids.first { $0.hasPrefix("layer-shell-") }
        }
    }

    /// `layer`'s frame in its parent (position and bounds).
    private func frameOf(_ layer: String, ask: (String) throws -> String) throws -> (x: Double, y: Double, width: Double, height: Double) {
        let reply = try JSON(parsing: ask("{\"cmd\": \"layer.get\", \"layer\": \"\(layer)\", \"keys\": [\"position\", \"bounds\"]}"))
        let properties = reply["result"]?["properties"]
        let position = (properties?["position"]?.array ?? []).compactMap(\.number)
        let bounds = (properties?["bounds"]?.array ?? []).compactMap(\.number)
        guard position.count == 2, bounds.count == 4 else { throw BenchError("no frame for \(layer): \(reply)") }
        return (position[0] - bounds[2] / 2, position[1] - bounds[3] / 2, bounds[2], bounds[3])
    }
}

/// The bench's 1080p client on `socket`, tried for up to 5 s: the socket's file is there
/// a moment before the daemon listens on it.
private func connectedClient(_ socket: String) throws -> BenchWaylandClient {
    let deadline = monotonicSeconds() + 5
    while true {
        do { return try BenchWaylandClient(socket: socket, width: 1920, height: 1080) } catch {
            guard monotonicSeconds() < deadline else { throw error }
            usleep(50_000)
        }
    }
}

/// CLOCK_MONOTONIC in seconds, as the kernel stamps input events.
private func monotonicSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}
