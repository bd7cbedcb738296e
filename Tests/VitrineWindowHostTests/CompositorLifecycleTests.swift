import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol

/// The lives of the compositor's windows with real clients (a nested `vitrined --backend
/// wayland`, foot, PresentationClient): pings of a client stopped with SIGSTOP and continued, the kill and
/// restart of a launched client that stays unresponsive, `surface.close`, and
/// `[[compositor.rules]]` and `ping_timeout` changed by `config.reload`.
@Suite(.serialized) struct CompositorLifecycleTests {
    /// VitrineWaylandTests' references: a window placed by a rule looks as CompositorTests'
    /// client shown by its layer.
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("VitrineWaylandTests/References")

    /// A compositor (headless, 200×120, manual clock) whose configuration file the test
    /// rewrites, with the surface layers `win` (60×40 scaled 2× at (100, 60), as in
    /// VitrineWaylandTests' CompositorTests), `win2` and `win3`.
    final class Setup {
        let directory: String
        let config: String
        let scene: String
        let daemon: DaemonProcess
        let control: SocketClient
        let waylandPath: String
        /// Events read while waiting for others, with when they were read.
        private var pending: [(JSON, Date)] = []

        /// `compositor`: lines of `[compositor]`; `clients`: `[[clients]]` tables, where
        /// `$INNER` is the nested vitrined's command and `$DIR` the directory.
        init(compositor: String, clients: String = "") throws {
            let made = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-life-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            directory = made.path
            config = directory + "/vitrine.toml"
            scene = directory + "/client.json"
            try compositorClientScene.write(toFile: scene, atomically: true, encoding: .utf8)
            try Self.text(compositor, clients, directory: directory, scene: scene).write(toFile: config, atomically: true, encoding: .utf8)
            daemon = try DaemonProcess(arguments: ["--config", config, "--log-level", "info"])
            waylandPath = daemon.directory.appendingPathComponent("wl").path
            control = try daemon.connect()
            try control.ok(#"{"cmd": "subscribe", "events": ["surface.*", "client.*"]}"#)
            try control.ok(
                ##"{"cmd": "layer.add", "layer": "win", "kind": "surface", "properties": {"bounds": [0, 0, 60, 40], "position": [100, 60], "transform.scale": 2, "backgroundColor": "#404040"}}"##
            )
            for name in ["win2", "win3"] {
                try control.ok(#"{"cmd": "layer.add", "layer": "\#(name)", "kind": "surface", "properties": {"bounds": [0, 0, 60, 40]}}"#)
            }
        }

        deinit { try? FileManager.default.removeItem(atPath: directory) }

        static func text(_ compositor: String, _ clients: String, directory: String, scene: String, socket: String = "wl") -> String {
            let inner = [
                DaemonProcess.executable.path, "--backend", "wayland", "--clock", "manual", "--mode", "60x40@60", "--scene", scene,
                "--socket", directory + "/inner.sock", "--screenshot-dir", directory, "--log-level", "error",
            ]
            let command = "[" + inner.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
            return "[output]\nheadless_size = \"200x120\"\nbackground = \"#203040\"\n[compositor]\nenabled = true\nsocket = \"\(socket)\"\n\(compositor)\n"
                + clients.replacingOccurrences(of: "$INNER", with: command).replacingOccurrences(of: "$DIR", with: directory)
        }

        /// A `vitrined --backend wayland` showing `compositorClientScene`, started by the test.
        func startClient() throws -> DaemonProcess {
            try DaemonProcess(
                clock: "manual", backend: "wayland", environment: ["WAYLAND_DISPLAY": waylandPath],
                arguments: ["--mode", "60x40@60", "--scene", scene, "--log-level", "info"])
        }

        /// Rewrites the configuration with `compositor` lines and `socket` (the clients
        /// stay: they are read at start) and reloads it; the reply.
        func reload(compositor: String, socket: String = "wl") throws -> JSON {
            try Self.text(compositor, "", directory: directory, scene: scene, socket: socket).write(toFile: config, atomically: true, encoding: .utf8)
            return try control.request(#"{"cmd": "config.reload"}"#)
        }

        /// The next event named `name` that `matches`, with when it was read; other events
        /// read meanwhile are kept for later calls.
        @discardableResult
        func event(_ name: String, timeout: Double = 10, where matches: (JSON) -> Bool = { _ in true }) throws -> (JSON, Date) {
            for event in control.takeEvents() { pending.append((event, Date())) }
            if let index = pending.firstIndex(where: { $0.0["event"] == .string(name) && matches($0.0) }) { return pending.remove(at: index) }
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline, let line = control.readLine(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
                let event = try JSON(parsing: Data(line.utf8))
                if event["event"] == .string(name), matches(event) { return (event, Date()) }
                pending.append((event, Date()))
            }
            throw DaemonError("no \(name) event came within \(timeout) s; these did: \(pending.map(\.0.text))")
        }

        /// The window `id` as `surface.list` gives it.
        func listed(_ id: Double) throws -> JSON? {
            try control.request(#"{"cmd": "surface.list"}"#)["result"]?["surfaces"]?.array?.first { $0["surface"] == .number(id) }
        }

        /// The layer `surface.list` gives window `id`.
        func layer(of id: Double) throws -> JSON? { try listed(id)?["layer"] }
    }

    static func seconds(since start: Date, _ end: Date) -> Double { end.timeIntervalSince(start) }

    /// With pings off nothing is reported of a stopped client; a reload turns them on, and
    /// the client stopped with SIGSTOP is unresponsive `ping_timeout` (1 s) to 1.5 × it
    /// later, and responsive again as soon as SIGCONT lets it answer.
    @Test func aStoppedClientIsUnresponsiveAndAnswersAgainWhenContinued() throws {
        let setup = try Setup(compositor: "ping_timeout = 0\n[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"win\"")
        let client = try setup.startClient()
        let (mapped, _) = try setup.event("surface.mapped")
        let id = try #require(mapped["surface"]?.number)
        #expect(mapped["responsive"] == .bool(true), "\(mapped.text)")

        #expect(kill(client.pid, SIGSTOP) == 0)
        defer { kill(client.pid, SIGCONT) }
        #expect(throws: (any Error).self, "pings are off") { try setup.event("surface.unresponsive", timeout: 2) }
        let reloaded = try setup.reload(compositor: "ping_timeout = 1\n[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"win\"")
        #expect(reloaded["result"]?["restartNeeded"] == .array([]), "\(reloaded.text)")
        let reloadedAt = Date()
        let (unresponsive, at) = try setup.event("surface.unresponsive", timeout: 5)
        let waited = Self.seconds(since: reloadedAt, at)
        #expect(waited > 0.9 && waited < 2.5, "unresponsive \(waited) s after pings started")
        #expect(unresponsive["surface"] == .number(id) && unresponsive["layer"] == .string("win"), "\(unresponsive.text)")
        #expect(unresponsive["responsive"] == .bool(false) && unresponsive["pid"] == .number(Double(client.pid)), "\(unresponsive.text)")
        #expect(try setup.listed(id)?["responsive"] == .bool(false))
        #expect(
            setup.daemon.standardError.contains(
                "Wayland client pid \(client.pid) (surface \(Int(id)), app id 'vitrined') has not answered a ping for 1.0 s: unresponsive"))

        let continued = Date()
        #expect(kill(client.pid, SIGCONT) == 0)
        let (responsive, back) = try setup.event("surface.responsive", timeout: 5)
        #expect(Self.seconds(since: continued, back) < 1.5, "responsive \(Self.seconds(since: continued, back)) s after SIGCONT")
        #expect(responsive["surface"] == .number(id) && responsive["responsive"] == .bool(true), "\(responsive.text)")
        #expect(try setup.listed(id)?["responsive"] == .bool(true))
        #expect(setup.daemon.standardError.contains("answers again"))

        // Stopped again while pings run: unresponsive 1 to 1.5 s later (a ping sent just
        // before the stop and not yet answered makes it a little less), and some slack for the loop.
        usleep(300_000)
        let stopped = Date()
        #expect(kill(client.pid, SIGSTOP) == 0)
        let (_, again) = try setup.event("surface.unresponsive", timeout: 5)
        let after = Self.seconds(since: stopped, again)
        #expect(after > 0.8 && after < 2.5, "unresponsive \(after) s after SIGSTOP")
        #expect(kill(client.pid, SIGCONT) == 0)
        try setup.event("surface.responsive", timeout: 5)
        #expect(client.isRunning && setup.daemon.isRunning)
    }

    /// A pong with another serial than the ping's does not count (as in Weston): the client
    /// is unresponsive, is not pinged again meanwhile, and answering the ping makes it
    /// responsive; a client that answers right is pinged every half timeout and never
    /// reported.
    @Test func aPongWithAnotherSerialIsIgnored() throws {
        let setup = try Setup(compositor: "ping_timeout = 1\n[[compositor.rules]]\napp_id = \"presentation-test\"\nlayer = \"win\"")
        let client = try PresentationClient(setup.waylandPath)
        let (mapped, _) = try setup.event("surface.mapped")
        client.pongs = .wrong
        try client.pump(2)
        let (unresponsive, _) = try setup.event("surface.unresponsive", timeout: 1)
        #expect(unresponsive["surface"] == mapped["surface"] && unresponsive["appId"] == .string("presentation-test"), "\(unresponsive.text)")
        let pinged = client.pings.count
        try client.pump(1)
        #expect(client.pings.count == pinged, "one ping at a time: \(client.pings)")
        // Right pongs from here on: a ping that comes while the answer is on its way (every
        // 0.5 s) must not meet a wrong pong.
        client.pongs = .right
        client.answerLastPing()
        try client.pump(0.2)
        try setup.event("surface.responsive", timeout: 2)

        try client.pump(4)
        #expect(client.pings.count >= pinged + 3, "pings every 0.5 s: \(client.pings)")
        #expect(throws: (any Error).self) { try setup.event("surface.unresponsive", timeout: 0.1) }
        #expect(Set(client.pings).count == client.pings.count, "each ping has its own serial: \(client.pings)")
    }

    /// A launched client with `restart_unresponsive_after = 1` that stays stopped is killed
    /// 1 s after it was found unresponsive and started again (its policy `never`
    /// notwithstanding); its new window maps.
    @Test func aLaunchedClientThatStaysUnresponsiveIsKilledAndRestarted() throws {
        let setup = try Setup(
            compositor: "ping_timeout = 1\n[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"win\"",
            clients: "[[clients]]\nname = \"inner\"\ncommand = $INNER\nrestart = \"never\"\nrestart_unresponsive_after = 1\n")
        let (mapped, _) = try setup.event("surface.mapped", timeout: 20)
        let pid = try #require(mapped["pid"]?.number)
        let listed = try setup.control.request(#"{"cmd": "client.list"}"#)["result"]?["clients"]?.array?.first
        #expect(listed?["pid"] == .number(pid), "the launched client's window: \(listed?.text ?? "")")
        #expect(kill(pid_t(pid), SIGSTOP) == 0)
        let (_, unresponsiveAt) = try setup.event("surface.unresponsive", timeout: 5)
        let (exited, exitedAt) = try setup.event("client.exited", timeout: 5)
        let after = Self.seconds(since: unresponsiveAt, exitedAt)
        #expect(after > 0.8 && after < 2.5, "killed \(after) s after it was unresponsive")
        #expect(exited["signal"] == .string("SIGKILL") && exited["state"] == .string("restarting"), "\(exited.text)")
        try setup.event("surface.unmapped")
        let (again, _) = try setup.event("client.started", timeout: 10)
        #expect(again["restarts"] == .number(1) && again["pid"] != .number(pid), "\(again.text)")
        let (remapped, _) = try setup.event("surface.mapped", timeout: 20)
        #expect(remapped["pid"] == again["pid"] && remapped["layer"] == .string("win"), "\(remapped.text)")
        #expect(
            setup.daemon.standardError.contains(
                "client inner (pid \(Int(pid))) has been unresponsive for 1 s (restart_unresponsive_after): SIGKILL, then restarted"))
    }

    /// `surface.close` by layer: the nested vitrined closes its window and exits; the
    /// window unmaps and the launcher reports the exit. Mistakes are named.
    @Test func surfaceCloseClosesTheWindowShownByALayer() throws {
        let setup = try Setup(
            compositor: "[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"win\"",
            clients: "[[clients]]\nname = \"inner\"\ncommand = $INNER\nrestart = \"never\"\n")
        let (mapped, _) = try setup.event("surface.mapped", timeout: 20)
        let id = try #require(mapped["surface"]?.number)

        let errors: [(String, String, String)] = [
            (#"{"cmd": "surface.close", "surface": 99}"#, "invalid_value", "there is no surface 99; surface.list lists them"),
            (#"{"cmd": "surface.close", "layer": "win2"}"#, "invalid_value", "layer 'win2' shows no surface; surface.list lists the surfaces"),
            (#"{"cmd": "surface.close", "layer": "root"}"#, "invalid_value", "layer 'root' is a layer layer; surface.close takes a surface layer"),
            (#"{"cmd": "surface.close", "layer": "nowhere"}"#, "unknown_layer", "nowhere"),
            (#"{"cmd": "surface.close"}"#, "missing_field", "surface.close needs either \"surface\""),
            (#"{"cmd": "surface.close", "surface": 1, "layer": "win"}"#, "invalid_value", "not both"),
            (#"{"cmd": "surface.close", "surface": 1.5}"#, "invalid_value", "a surface id from surface.list"),
        ]
        for (request, code, words) in errors {
            let reply = try setup.control.request(request)
            #expect(reply["error"]?["code"] == .string(code) && reply["error"]?["message"]?.string?.contains(words) == true, "\(request): \(reply.text)")
        }
        #expect(try setup.listed(id)?["mapped"] == .bool(true), "a refused close changes nothing")

        let closed = try setup.control.request(#"{"cmd": "surface.close", "layer": "win"}"#)
        #expect(closed["result"]?["surface"] == .number(id), "\(closed.text)")
        let (unmapped, _) = try setup.event("surface.unmapped")
        #expect(unmapped["surface"] == .number(id) && unmapped["layer"] == .string("win"), "\(unmapped.text)")
        let (exited, _) = try setup.event("client.exited")
        #expect(exited["name"] == .string("inner") && exited["exitCode"] == .number(0) && exited["state"] == .string("exited"), "\(exited.text)")
        #expect(try setup.listed(id) == nil, "the window is gone from surface.list")
        let gone = try setup.control.request(#"{"cmd": "surface.close", "surface": \#(Int(id))}"#)
        #expect(gone["error"]?["code"] == .string("invalid_value"), "\(gone.text)")
    }

    /// foot, launched by the daemon, exits when its window is closed by surface id.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/foot"), "foot is not installed: apt-get install foot"))
    func surfaceCloseEndsFoot() throws {
        let setup = try Setup(
            compositor: "[[compositor.rules]]\napp_id = \"foot\"\nlayer = \"win2\"",
            clients: """
                [[clients]]
                name = "terminal"
                command = ["/usr/bin/foot", "--config", "$DIR/foot.ini", "/bin/sh", "-c", "exec sleep 60"]
                env = { HOME = "$DIR" }
                restart = "never"

                """)
        try "[main]\nfont=DejaVu Sans Mono:size=10\n".write(toFile: setup.directory + "/foot.ini", atomically: true, encoding: .utf8)
        let (mapped, _) = try setup.event("surface.mapped", timeout: 20)
        #expect(mapped["appId"] == .string("foot") && mapped["layer"] == .string("win2"), "\(mapped.text)")
        let id = try #require(mapped["surface"]?.number)
        let closed = try setup.control.request(#"{"cmd": "surface.close", "surface": \#(Int(id))}"#)
        #expect(closed["ok"] == .bool(true), "\(closed.text)")
        let (unmapped, _) = try setup.event("surface.unmapped")
        #expect(unmapped["surface"] == .number(id), "\(unmapped.text)")
        let (exited, _) = try setup.event("client.exited")
        #expect(exited["name"] == .string("terminal") && exited["state"] == .string("exited"), "\(exited.text)")
    }

    /// Chromium, launched by the daemon with one `--app` window, ends when that window is closed.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium is not installed: apt-get install chromium"))
    func surfaceCloseEndsChromium() throws {
        let setup = try Setup(
            compositor: "",
            clients: """
                [[clients]]
                name = "browser"
                command = ["/usr/bin/chromium", "--ozone-platform=wayland", "--disable-gpu", "--no-sandbox", "--test-type", "--no-first-run", "--user-data-dir=$DIR/profile", "--app=data:text/html,<body bgcolor=green>"]
                env = { HOME = "$DIR" }
                restart = "never"

                """)
        let (mapped, _) = try setup.event("surface.mapped", timeout: 60)
        let id = try #require(mapped["surface"]?.number)
        #expect(mapped["appId"]?.string?.hasPrefix("chrome-") == true, "\(mapped.text)")
        let closed = try setup.control.request(#"{"cmd": "surface.close", "surface": \#(Int(id))}"#)
        #expect(closed["ok"] == .bool(true), "\(closed.text)")
        try setup.event("surface.unmapped", timeout: 20) { $0["surface"] == .number(id) }
        let (exited, _) = try setup.event("client.exited", timeout: 30)
        #expect(exited["name"] == .string("browser") && exited["state"] == .string("exited"), "\(exited.text)")
    }

    /// Rules changed by a reload place the windows mapped before it that no
    /// `surface.assign` placed, and the windows mapped after it; a bad rules table changes
    /// nothing.
    @Test func rulesReloadedPlaceWindowsNotPlacedByHand() throws {
        let setup = try Setup(compositor: "")
        let first = try setup.startClient()
        let (mapped, _) = try setup.event("surface.mapped", timeout: 20)
        let a = try #require(mapped["surface"]?.number)
        #expect(mapped["layer"] == .null, "no rule yet: \(mapped.text)")

        let rule = { (layer: String) in "[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"\(layer)\"" }
        #expect(try setup.reload(compositor: rule("win"))["result"]?["reloaded"] == .bool(true))
        #expect(try setup.layer(of: a) == .string("win"), "a window mapped before the reload follows the new rule")
        var failure: String?
        for _ in 0..<100 {
            failure = try GoldenImage.check(try setup.control.screenshot("life-rules"), named: "compositor-client-scaled", in: Self.references)
            if failure == nil { break }
            usleep(50_000)
        }
        #expect(failure == nil, "\(failure ?? "")")

        let bad = try setup.reload(compositor: "[[compositor.rules]]\napp_id = \"vitrined\"")
        #expect(bad["error"]?["code"] == .string("invalid_config") && bad["error"]?["message"]?.string?.contains("compositor.rules[0]") == true, "\(bad.text)")
        #expect(try setup.layer(of: a) == .string("win"), "a bad rules table changes nothing")

        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(a)), "layer": "win2"}"#)
        let moved = try setup.reload(compositor: rule("win3"), socket: "wl-other")
        #expect(moved["result"]?["restartNeeded"] == .array([.string("compositor.socket")]), "\(moved.text)")
        #expect(setup.daemon.standardError.contains("compositor.socket changed but take effect when the daemon restarts"))
        #expect(FileManager.default.fileExists(atPath: setup.waylandPath), "the socket stays where it was until a restart")
        #expect(try setup.layer(of: a) == .string("win2"), "a window placed by surface.assign stays")

        let second = try setup.startClient()
        let (next, _) = try setup.event("surface.mapped", timeout: 20) { $0["surface"] != .number(a) }
        #expect(next["layer"] == .string("win3"), "a window mapped after the reload takes the new rule: \(next.text)")

        #expect(try setup.reload(compositor: "")["result"]?["reloaded"] == .bool(true))
        #expect(try setup.layer(of: next["surface"]?.number ?? 0) == .null, "no rule matches any more: shown nowhere")
        #expect(try setup.layer(of: a) == .string("win2"))
        #expect(first.isRunning && second.isRunning)
    }

    /// A rule whose layer a script adds only after the window mapped (clients start with
    /// the daemon, before any script): the window goes there when the layer is added, is
    /// on no layer while the layer is removed, and not placed again once `surface.assign`
    /// took it off.
    @Test func aRuleWaitsForItsLayer() throws {
        let setup = try Setup(compositor: "[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"late\"")
        let client = try setup.startClient()
        let (mapped, _) = try setup.event("surface.mapped", timeout: 20)
        let a = try #require(mapped["surface"]?.number)
        #expect(mapped["layer"] == .null, "the layer does not exist yet: \(mapped.text)")
        #expect(setup.daemon.standardError.contains("waits for layer late, which its rule names"))

        try setup.control.ok(#"{"cmd": "layer.add", "layer": "other", "properties": {"bounds": [0, 0, 10, 10]}}"#)
        #expect(try setup.layer(of: a) == .null)
        try setup.control.ok(#"{"cmd": "layer.add", "layer": "late", "kind": "surface", "properties": {"bounds": [0, 0, 60, 40]}}"#)
        #expect(try setup.layer(of: a) == .string("late"), "placed once its rule's layer exists")

        try setup.control.ok(#"{"cmd": "layer.remove", "layer": "late"}"#)
        #expect(try setup.layer(of: a) == .null, "its layer removed, the window is on none")
        let close = try setup.control.request(#"{"cmd": "surface.close", "layer": "late"}"#)
        #expect(close["error"]?["code"] == .string("unknown_layer"), "\(close.text)")
        try setup.control.ok(#"{"cmd": "layer.add", "layer": "late", "kind": "surface", "properties": {"bounds": [0, 0, 60, 40]}}"#)
        #expect(try setup.layer(of: a) == .string("late"), "its rule places it again when the layer is back")

        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(a)), "layer": null}"#)
        try setup.control.ok(#"{"cmd": "layer.remove", "layer": "late"}"#)
        try setup.control.ok(#"{"cmd": "layer.add", "layer": "late", "kind": "surface", "properties": {"bounds": [0, 0, 60, 40]}}"#)
        #expect(try setup.layer(of: a) == .null, "a window taken off its layer by surface.assign stays off")
        #expect(client.isRunning)
    }

    /// `surface.assigned` follows every move of a window, once, whatever moved it: its
    /// rule's layer added and removed, a reload, `surface.assign`; none when it stays.
    @Test func surfaceAssignedFollowsEveryMove() throws {
        let setup = try Setup(compositor: "[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"late\"")
        let client = try setup.startClient()
        let (mapped, _) = try setup.event("surface.mapped", timeout: 20)
        let a = try #require(mapped["surface"]?.number)
        let moved = { (layer: JSON, previous: JSON, why: String) throws in
            let (event, _) = try setup.event("surface.assigned")
            #expect(event["surface"] == .number(a) && event["appId"] == .string("vitrined") && event["pid"] == mapped["pid"], "\(why): \(event.text)")
            #expect(event["layer"] == layer && event["previous"] == previous, "\(why): \(event.text)")
        }

        try setup.control.ok(#"{"cmd": "layer.add", "layer": "late", "kind": "surface", "properties": {"bounds": [0, 0, 60, 40]}}"#)
        try moved(.string("late"), .null, "its rule's layer added")
        try setup.control.ok(#"{"cmd": "layer.remove", "layer": "late"}"#)
        try moved(.null, .string("late"), "its layer removed")
        try setup.control.ok(#"{"cmd": "layer.add", "layer": "late", "kind": "surface", "properties": {"bounds": [0, 0, 60, 40]}}"#)
        try moved(.string("late"), .null, "its layer added again")
        #expect(try setup.reload(compositor: "[[compositor.rules]]\napp_id = \"vitrined\"\nlayer = \"win\"")["result"]?["reloaded"] == .bool(true))
        try moved(.string("win"), .string("late"), "a reload")
        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(a)), "layer": "win"}"#)
        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(a)), "layer": "win2"}"#)
        try moved(.string("win2"), .string("win"), "surface.assign (the one to its own layer sends none)")
        try setup.control.ok(#"{"cmd": "surface.assign", "surface": \#(Int(a)), "layer": null}"#)
        try moved(.null, .string("win2"), "surface.assign to no layer")
        #expect(throws: DaemonError.self, "nothing else moved it") { try setup.event("surface.assigned", timeout: 0.5) }
        #expect(client.isRunning)
    }
}
