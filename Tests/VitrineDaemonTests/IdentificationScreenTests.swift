import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// The identification screen of a daemon with nothing to show (`[scene] identify`), with
/// the real `vitrined`: what it says, its QR code read back by a real decoder (zbarimg,
/// zbar-tools), the rule that takes it away, and its absence where a scene is.
@Suite struct IdentificationScreenTests {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")

    /// A daemon on a configuration of `toml` (with a headless 1280×720 output), and its
    /// connection.
    static func start(_ toml: String, arguments: [String] = []) throws -> (DaemonProcess, SocketClient, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-identify-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml")
        try ("[output]\nheadless_size = \"1280x720\"\n" + toml).write(to: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config.path] + arguments)
        return (daemon, try daemon.connect(), directory)
    }

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        gethostname(&name, 255)
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The device's id as systemd derives it for Vitrine from /etc/machine-id, nil when
    /// there is none (some containers have none).
    static func deviceID() -> String? {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-id128")
        tool.arguments = ["machine-id", "--app-specific=9fbbcedf7a844a418b81619349459624"]
        let out = Pipe()
        tool.standardOutput = out
        tool.standardError = FileHandle.nullDevice
        guard (try? tool.run()) != nil else { return nil }
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        tool.waitUntilExit()
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return tool.terminationStatus == 0 && id.count == 32 ? id : nil
    }

    /// The string of text layer `id`, nil when there is no such layer.
    static func string(_ c: SocketClient, _ id: String) throws -> String? {
        let reply = try c.request(#"{"cmd": "layer.get", "layer": "\#(id)", "keys": ["string"]}"#)
        return reply["result"]?["properties"]?["string"]?.string
    }

    /// Where layer `id` (anchored at its top-left corner) lies on the screen.
    static func frame(_ c: SocketClient, _ id: String) throws -> PixelRect {
        let reply = try c.request(#"{"cmd": "layer.get", "layer": "\#(id)", "keys": ["position", "bounds"]}"#)
        let properties = reply["result"]?["properties"]
        let position = (properties?["position"]?.array ?? []).compactMap { $0.number }
        let bounds = (properties?["bounds"]?.array ?? []).compactMap { $0.number }
        try #require(position.count == 2 && bounds.count == 4, "\(reply)")
        return PixelRect(x: Int(position[0]), y: Int(position[1]), width: Int(bounds[2]), height: Int(bounds[3]))
    }

    /// What zbarimg reads in the PNG at `path`.
    static func decode(_ path: String) throws -> String {
        let zbar = Process()
        zbar.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        zbar.arguments = ["--quiet", "--raw", path]
        let output = Pipe()
        zbar.standardOutput = output
        try zbar.run()
        let bytes = output.fileHandleForReading.readDataToEndOfFile()
        zbar.waitUntilExit()
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A daemon with `identify = true` in a network and UTS namespace of its own
    /// (unshare): its host name is "vitrine-test" and it has no address until the test
    /// gives it one, so its screen is the same on every machine but for the socket, the
    /// machine id and the version.
    final class IsolatedDaemon {
        let process: ChildProcess
        let directory: URL
        let socketPath: String
        static let asRoot = geteuid() == 0

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-identify-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let config = directory.appendingPathComponent("vitrine.toml").path
            try "[output]\nheadless_size = \"1280x720\"\n[scene]\nidentify = true\n".write(toFile: config, atomically: true, encoding: .utf8)
            socketPath = directory.appendingPathComponent("v.sock").path
            let daemon = [DaemonProcess.executable.path, "--backend", "headless", "--clock", "manual", "--log-level", "error"]
            process = try ChildProcess(
                "/usr/bin/unshare",
                ["--net", "--uts"] + (Self.asRoot ? [] : ["--map-root-user"])
                    + ["sh", "-c", #"hostname vitrine-test && exec "$@""#, "sh"] + daemon
                    + ["--config", config, "--socket", socketPath, "--screenshot-dir", directory.path],
                stderrPath: directory.appendingPathComponent("stderr").path)
            let deadline = Date().addingTimeInterval(20)
            while (try? SocketClient(path: socketPath)) == nil {
                guard process.isRunning, Date() < deadline else { throw TestError("vitrined did not start in its namespaces") }
                usleep(20_000)
            }
        }

        deinit {
            _ = process.terminate()
            try? FileManager.default.removeItem(at: directory)
        }

        /// Runs `ip ARGUMENTS` in the daemon's network namespace.
        func ip(_ arguments: String) throws {
            let run = try ChildProcess.runToExit(
                "/usr/bin/nsenter",
                ["--target", String(process.pid), "--net"] + (Self.asRoot ? [] : ["--user", "--preserve-credentials"]) + ["ip"]
                    + arguments.split(separator: " ").map(String.init))
            try #require(run.status == 0, "ip \(arguments): \(run.stderr)")
        }
    }

    @Test func withNoSceneTheScreenSaysWhoItIs() throws {
        let daemon = try IsolatedDaemon()
        let c = try SocketClient(path: daemon.socketPath)
        let id = Self.deviceID() ?? "vitrine-test"
        #expect(try Self.string(c, "identify:root:host") == "vitrine-test")
        #expect(try Self.string(c, "identify:root:addresses") == "no network address yet")
        #expect(try Self.string(c, "identify:root:device-id") == id)
        #expect(try Self.string(c, "identify:root:socket") == daemon.socketPath)
        #expect(try Self.string(c, "identify:root:fleet") == "off")
        #expect(try Self.string(c, "identify:root:output") == "headless · 1280×720 at 60 Hz")

        let reply = try c.request(#"{"cmd": "screenshot", "path": "identify.png"}"#)
        let path = try #require(reply["result"]?["path"]?.string, "\(reply)")
        #expect(try Self.decode(path) == id, "the QR code holds the machine id")
        let shot = try Surface(contentsOfPNG: path)
        let qr = try Self.frame(c, "identify:root:qr")
        var grey = 0
        for y in qr.y..<qr.y + qr.height {
            for x in qr.x..<qr.x + qr.width where shot.pixel(x: x, y: y).argb != 0xff00_0000 && shot.pixel(x: x, y: y).argb != 0xffff_ffff { grey += 1 }
        }
        #expect(grey == 0, "the modules are whole pixels, black on white")

        // The picture, with what differs from machine to machine (the socket's path, the
        // version, the machine id and its code, whose size follows the id's) covered.
        for name in ["socket", "version"] {
            shot.fill(try Self.frame(c, "identify:root:" + name), PremultipliedColor(unchecked: 0xffff_00ff), mode: .source)
        }
        shot.fill(PixelRect(x: 816, y: 100, width: 464, height: 500), PremultipliedColor(unchecked: 0xffff_00ff), mode: .source)
        try GoldenImage.expectMatches(shot, named: "identification-screen", in: Self.references)
    }

    @Test func anAddressThatComesIsShownWithoutARequest() throws {
        let daemon = try IsolatedDaemon()
        let c = try SocketClient(path: daemon.socketPath)
        #expect(try Self.string(c, "identify:root:addresses") == "no network address yet")
        try daemon.ip("link add v0 type veth peer name v1")
        try daemon.ip("addr add 10.9.8.7/24 dev v0")
        try daemon.ip("link set v1 up")
        try daemon.ip("link set v0 up")
        let deadline = Date().addingTimeInterval(10)
        var shown = try Self.string(c, "identify:root:addresses")
        while shown != "10.9.8.7 (v0)", Date() < deadline {
            usleep(50_000)
            shown = try Self.string(c, "identify:root:addresses")
        }
        #expect(shown == "10.9.8.7 (v0)")
    }

    @Test func theFirstLayerAScriptAddsTakesItAwayForGood() throws {
        let (daemon, c, directory) = try Self.start("[scene]\nidentify = true\n")
        defer { withExtendedLifetime(daemon) { try? FileManager.default.removeItem(at: directory) } }
        #expect(try Self.string(c, "identify:root:host") != nil)
        try c.ok(#"{"cmd": "layer.add", "layer": "mine", "properties": {"bounds": [0, 0, 100, 100], "position": [50, 50], "backgroundColor": "red"}}"#)
        #expect(try Self.string(c, "identify:root:host") == nil, "the screen went with the script's first layer")
        let tree = try c.request(#"{"cmd": "layer.tree"}"#)
        #expect(tree["result"]?["sublayers"]?.array?.compactMap { $0["layer"]?.string } == ["mine"])
        let shot = try c.screenshot("after")
        #expect(shot.pixel(x: 600, y: 600).argb == 0xff00_0000, "the root's own black where the screen was")
        try c.ok(#"{"cmd": "layer.remove", "layer": "mine"}"#)
        #expect(try Self.string(c, "identify:root:host") == nil, "an emptied root stays empty")
        try c.ok(#"{"cmd": "scene.reset"}"#)
        #expect(try Self.string(c, "identify:root:host") == Self.hostName(), "scene.reset shows it again")
    }

    @Test func eachOutputHasItsOwnUntilALayerGoesUnderItsRoot() throws {
        let outputs = """
            [scene]
            identify = true
            [[outputs]]
            connector = "HDMI-A-1"
            mode = "640x360@60"
            [[outputs]]
            connector = "HDMI-A-2"
            mode = "360x640@50"
            root = "right"

            """
        let (daemon, c, directory) = try Self.start(outputs)
        defer { withExtendedLifetime(daemon) { try? FileManager.default.removeItem(at: directory) } }
        #expect(try Self.string(c, "identify:root:output") == "HDMI-A-1 · 640×360 at 60 Hz")
        #expect(try Self.string(c, "identify:right:output") == "HDMI-A-2 · 360×640 at 50 Hz")
        #expect(try Self.frame(c, "identify:right") == PixelRect(x: 0, y: 0, width: 360, height: 640))
        try c.ok(#"{"cmd": "layer.add", "layer": "mine", "parent": "right", "properties": {"bounds": [0, 0, 10, 10]}}"#)
        #expect(try Self.string(c, "identify:right:host") == nil, "the layer's root lost its screen")
        #expect(try Self.string(c, "identify:root:host") != nil, "the other root kept its")

        // A screen plugged in (an emulated output's table added by a reload) gets its own.
        let config = directory.appendingPathComponent("vitrine.toml")
        try ("[output]\nheadless_size = \"1280x720\"\n" + outputs + "[[outputs]]\nconnector = \"HDMI-A-3\"\nmode = \"320x200@60\"\n")
            .write(to: config, atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd": "config.reload"}"#)
        #expect(try Self.string(c, "identify:HDMI-A-3:output") == "HDMI-A-3 · 320×200 at 60 Hz")
    }

    @Test func aConfiguredSceneOrIdentifyFalseOrAHeadlessAutoShowsNone() throws {
        for toml in [
            "[scene]\nidentify = true\n[[scene.layers]]\nid = \"menu\"\nproperties = { bounds = [0, 0, 10, 10] }\n",
            "[scene]\nidentify = false\n",
            "",
        ] {
            let (daemon, c, directory) = try Self.start(toml)
            defer { withExtendedLifetime(daemon) { try? FileManager.default.removeItem(at: directory) } }
            let reply = try c.request(#"{"cmd": "layer.get", "layer": "identify:root"}"#)
            #expect(reply["ok"] == .bool(false), "\(toml): \(reply)")
        }
    }

    @Test func aReloadThatGivesASceneOrTurnsItOffTakesItAway() throws {
        let (daemon, c, directory) = try Self.start("[scene]\nidentify = true\n")
        defer { withExtendedLifetime(daemon) { try? FileManager.default.removeItem(at: directory) } }
        let config = directory.appendingPathComponent("vitrine.toml")
        #expect(try Self.string(c, "identify:root:host") != nil)
        try "[output]\nheadless_size = \"1280x720\"\n[scene]\nidentify = false\n".write(to: config, atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd": "config.reload"}"#)
        #expect(try Self.string(c, "identify:root:host") == nil)
        try "[output]\nheadless_size = \"1280x720\"\n[scene]\nidentify = true\n".write(to: config, atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd": "config.reload"}"#)
        #expect(try Self.string(c, "identify:root:host") != nil, "turned on again over an empty root")
        try "[output]\nheadless_size = \"1280x720\"\n[scene]\nidentify = true\n[[scene.layers]]\nid = \"menu\"\nproperties = { bounds = [0, 0, 10, 10] }\n"
            .write(to: config, atomically: true, encoding: .utf8)
        try c.ok(#"{"cmd": "config.reload"}"#)
        #expect(try Self.string(c, "identify:root:host") == nil)
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "menu"}"#)["ok"] == .bool(true), "the configured scene took its place")
    }

    @Test func itIsNeverJournaledAndAJournalOfNothingLetsAConfiguredSceneShow() throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-identify-state-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: state) }
        do {
            let (daemon, c, directory) = try Self.start("[scene]\nidentify = true\n", arguments: ["--state-dir", state])
            defer { try? FileManager.default.removeItem(at: directory) }
            #expect(try Self.string(c, "identify:root:host") != nil)
            #expect(daemon.stop() == 0)
        }
        let journal = try String(contentsOfFile: state + "/scene.json", encoding: .utf8)
        #expect(!journal.contains("identify:"), "\(journal)")
        let (daemon, c, directory) = try Self.start(
            "[scene]\nidentify = true\n[[scene.layers]]\nid = \"menu\"\nproperties = { bounds = [0, 0, 10, 10] }\n", arguments: ["--state-dir", state])
        defer { withExtendedLifetime(daemon) { try? FileManager.default.removeItem(at: directory) } }
        #expect(try c.request(#"{"cmd": "layer.get", "layer": "menu"}"#)["ok"] == .bool(true), "the scene configured since shows")
        #expect(try Self.string(c, "identify:root:host") == nil)
    }
}
