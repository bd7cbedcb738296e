import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Remote view (`[remote]`, docs/REMOTE.md): a real VNC client (vncdotool, from PyPI)
/// against the daemon's Neat VNC listener — what it captures is what `screenshot` writes,
/// its clicks and keys are input, a view-only listener takes none, and a listener open to
/// other machines without authentication is refused.
@Suite struct RemoteViewTests {
    static let scene = [
        ##"{"cmd": "layer.add", "layer": "button", "properties": {"bounds": [0, 0, 100, 50], "position": [160, 100], "backgroundColor": "#ff0000"}}"##,
        ##"{"cmd": "layer.add", "layer": "label", "kind": "text", "properties": {"bounds": [0, 0, 200, 40], "position": [100, 170], "string": "Vitrine 42", "fontSize": 24, "foregroundColor": "#ffffff"}}"##,
        ##"{"cmd": "binding.add", "layer": "button", "on": "tap", "disableActions": true, "commands": [{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#00ff00"}}]}"##,
    ]

    /// A daemon of 320×200 serving VNC on a free loopback port, with `extra` in `[remote]`
    /// and `sections` after it.
    static func daemon(_ extra: String = "", sections: String = "") throws -> (daemon: DaemonProcess, port: Int) {
        let port = try freePort()
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-vnc-\(UUID().uuidString.prefix(8)).toml").path
        try "[remote]\nvnc = \"127.0.0.1:\(port)\"\n\(extra)\n\(sections)".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(arguments: ["--size", "320x200", "--config", config])
        return (daemon, port)
    }

    /// A TCP port on 127.0.0.1 that nothing listens on now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        try #require(bound == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Runs vncdotool's `vncdo` against `port` with `commands`; requires it to succeed.
    @discardableResult
    static func vncdo(_ port: Int, _ commands: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let (status, stderr) = try ChildProcess.runToExit("/usr/bin/env", ["vncdo", "-s", "127.0.0.1::\(port)"] + commands, timeout: 30)
        try #require(status == 0, "vncdo \(commands): \(stderr)", sourceLocation: sourceLocation)
        return stderr
    }

    static var hasVncdo: Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/vncdo") }
    }

    /// Connections that hang up at once, before the greeting is read, or reset, leave
    /// the daemon serving: a viewer still sees the screen.
    @Test(.enabled(if: hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func connectionsThatHangUpAtOnceLeaveTheServerServing() throws {
        let (daemon, port) = try Self.daemon()
        let c = try daemon.connect()
        for line in Self.scene { try c.ok(line) }
        for k in 0..<300 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in(
                sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
                sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
            let connected = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            #expect(connected == 0)
            if k % 3 == 0 {
                var reset = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
            }
            close(fd)
        }
        let captured = daemon.directory.appendingPathComponent("vnc.png").path
        try Self.vncdo(port, ["capture", captured])
        let difference = GoldenImage.difference(try Surface(contentsOfPNG: captured), try c.screenshot("screen"), tolerance: 2)
        #expect(difference.differing == 0 && daemon.isRunning)
    }

    @Test(.enabled(if: hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func aViewerCapturesWhatTheScreenshotShows() throws {
        let (daemon, port) = try Self.daemon()
        let c = try daemon.connect()
        for line in Self.scene { try c.ok(line) }
        try c.ok(#"{"cmd": "subscribe", "events": ["remote.*"]}"#)
        let captured = daemon.directory.appendingPathComponent("vnc.png").path
        try Self.vncdo(port, ["capture", captured])
        let connected = try c.waitForEvent("remote.connected")
        let peer = connected["peer"]?.string ?? ""
        #expect(connected["output"] == .string("headless") && connected["viewOnly"] == .bool(false) && peer.hasPrefix("127.0.0.1:"), "\(connected.text)")
        let left = try c.waitForEvent("remote.disconnected")
        #expect(left["session"] == connected["session"] && left["peer"] == .string(peer), "\(left.text)")
        let viewer = try Surface(contentsOfPNG: captured)
        let screen = try c.screenshot("screen")
        let difference = GoldenImage.difference(viewer, screen, tolerance: 2)
        #expect(viewer.width == 320 && viewer.height == 200 && difference.differing == 0, "\(difference.differing) pixels differ, by up to \(difference.worst)")
        // A change after the first capture reaches the next viewer too.
        try c.ok(##"{"cmd": "layer.set", "layer": "button", "properties": {"backgroundColor": "#0000ff"}}"##)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        try Self.vncdo(port, ["capture", captured])
        let again = try Surface(contentsOfPNG: captured)
        #expect(GoldenImage.difference(again, try c.screenshot("screen2"), tolerance: 2).differing == 0)
        #expect(again.pixel(x: 160, y: 100) != viewer.pixel(x: 160, y: 100))
    }

    @Test(.enabled(if: hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func aClickTapsABindingAndTypedKeysAreInput() throws {
        let (daemon, port) = try Self.daemon()
        let c = try daemon.connect()
        for line in Self.scene { try c.ok(line) }
        try c.ok(#"{"cmd": "subscribe", "events": ["input.key", "layer.tap"]}"#)
        try Self.vncdo(port, ["move", "160", "100", "click", "1", "type", "hi"])
        var events: [JSON] = []
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, events.filter({ $0["event"] == .string("input.key") }).count < 4 {
            events += try c.drain()
            usleep(50_000)
        }
        #expect(events.contains { $0["event"] == .string("layer.tap") && $0["layer"] == .string("button") }, "\(events.map(\.text))")
        let color = try c.request(#"{"cmd": "layer.get", "layer": "button"}"#)["result"]?["properties"]?["backgroundColor"]
        #expect(color == .string("#00ff00"), "\(String(describing: color))")
        let keys = events.filter { $0["event"] == .string("input.key") && $0["device"] == .string("vnc") }
        let typed = keys.filter { $0["pressed"] == .bool(true) }.compactMap { $0["keysym"]?.string }
        #expect(typed == ["h", "i"], "\(typed)")
    }

    /// foot, a hosted Wayland window, reads a line typed through VNC after a click into it.
    @Test(
        .enabled(
            if: hasVncdo && FileManager.default.isExecutableFile(atPath: "/usr/bin/foot"),
            "vncdotool or foot is not installed: pip install vncdotool, apt-get install foot (CI installs them)"))
    func keysTypedThroughVNCReachAHostedWindow() throws {
        let (daemon, port) = try Self.daemon(
            sections: "[compositor]\nenabled = true\nsocket = \"wl\"\n[[compositor.rules]]\napp_id = \"foot\"\nlayer = \"app\"\n")
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["surface.mapped"]}"#)
        try c.ok(#"{"cmd": "layer.add", "layer": "app", "kind": "surface", "properties": {"bounds": [0, 0, 300, 180], "position": [160, 100]}}"#)
        let runtime = daemon.directory.appendingPathComponent("runtime").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let typed = daemon.directory.appendingPathComponent("typed").path
        let foot = try ChildProcess(
            "/usr/bin/foot", ["/bin/sh", "-c", "IFS= read -r line; printf '%s' \"$line\" > \(typed).part && mv \(typed).part \(typed); exec sleep 30"],
            stderrPath: runtime + "/foot.stderr",
            environment: ["WAYLAND_DISPLAY": daemon.directory.appendingPathComponent("wl").path, "XDG_RUNTIME_DIR": runtime, "HOME": runtime, "DISPLAY": ""])
        defer { _ = foot.terminate() }
        _ = try c.waitForEvent("surface.mapped", timeout: 20)
        try Self.vncdo(port, ["move", "160", "100", "click", "1", "type", "Vitrine", "key", "enter"])
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: typed), Date() < deadline { usleep(50_000) }
        let line = try? String(contentsOfFile: typed, encoding: .utf8)
        #expect(line == "Vitrine", "\(String(describing: line)); foot: \((try? String(contentsOfFile: runtime + "/foot.stderr", encoding: .utf8)) ?? "")")
    }

    @Test(.enabled(if: hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func aViewOnlyListenerShowsTheScreenAndTakesNoInput() throws {
        let (daemon, port) = try Self.daemon("view_only = true\n")
        let c = try daemon.connect()
        for line in Self.scene { try c.ok(line) }
        try c.ok(#"{"cmd": "subscribe", "events": ["input.*", "layer.*"]}"#)
        let captured = daemon.directory.appendingPathComponent("vnc.png").path
        try Self.vncdo(port, ["move", "160", "100", "click", "1", "type", "hi", "capture", captured])
        #expect(GoldenImage.difference(try Surface(contentsOfPNG: captured), try c.screenshot("screen"), tolerance: 2).differing == 0)
        let events = try c.drain()
        #expect(events.isEmpty, "\(events.map(\.text))")
        let color = try c.request(#"{"cmd": "layer.get", "layer": "button"}"#)["result"]?["properties"]?["backgroundColor"]
        #expect(color == .string("#ff0000"))
    }

    @Test(.enabled(if: hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func sessionsAreCountedInTheMetrics() throws {
        let metrics = try MetricsTests()
        defer { try? FileManager.default.removeItem(at: metrics.directory) }
        let port = try Self.freePort()
        let (screen, _) = try metrics.start(extra: "[remote]\nvnc = \"127.0.0.1:\(port)\"\n")
        let c = try screen.connect()
        try c.ok(#"{"cmd": "subscribe", "events": ["remote.disconnected"]}"#)
        try Self.vncdo(port, ["capture", metrics.directory.appendingPathComponent("vnc.png").path])
        _ = try c.waitForEvent("remote.disconnected")
        let (_, exposition) = try metrics.scrape(path: metrics.socketPath)
        #expect(
            exposition.samples[.init(name: "vitrine_remote_sessions_total", labels: [:])] == 1,
            "\(exposition.samples.keys.filter { $0.name.contains("remote") })")
        #expect(exposition.samples[.init(name: "vitrine_remote_sessions", labels: [:])] == 0)
    }

    @Test func aListenerOpenToOtherMachinesNeedsAuthentication() throws {
        let cases: [(String, String)] = [
            ("vnc = \"0.0.0.0:5900\"", "reachable from other machines"),
            ("vnc = \"127.0.0.1:5900\"\ntls_certificate = \"/etc/hostname\"", "remote.tls_key: is missing"),
            ("vnc = \"localhost\"", "must be \"host:port\""),
            ("vnc = \"127.0.0.1:5900\"\nauth = \"pam\"", "remote.tls_certificate: is missing: auth = \"pam\""),
            ("vnc = \"127.0.0.1:5900\"\nview_only_users = [\"lobby\"]", "applies to PAM users"),
            ("vnc = \"127.0.0.1:5900\"\nmax_rate = 0", "remote.max_rate"),
            ("output = \"HDMI-A-1\"", "add vnc ="),
        ]
        for (remote, expected) in cases {
            let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-vnc-\(UUID().uuidString.prefix(8)).toml").path
            try "[remote]\n\(remote)\n".write(toFile: config, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: config) }
            let socket = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-vnc-\(UUID().uuidString.prefix(8)).sock").path
            let (status, stderr) = try DaemonProcess.runToExit(["--backend", "headless", "--socket", socket, "--config", config])
            #expect(status != 0 && stderr.contains(expected), "\(remote): \(stderr)")
        }
    }
}
