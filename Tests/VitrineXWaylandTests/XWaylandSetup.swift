import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineRaster

/// The real `vitrined` (headless, 320 × 200, manual clock) as a compositor serving X11
/// programs through Xwayland, with a surface layer `x11` of the test's, subscribed to
/// `surface.*` and `client.*`.
struct XWaylandSetup {
    static let references = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("References")
    static let background: UInt32 = 0x20_3040

    static var installed: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/Xwayland") }

    let daemon: DaemonProcess
    let control: SocketClient
    /// ":N", the X11 display the daemon opened.
    let display: String

    /// `rules` and `extra` are TOML added to the configuration; `layer` the `x11` layer's
    /// properties (none: no layer).
    init(
        mode: String = "on-demand", rules: String = "[[compositor.rules]]\ninstance = \"vitrine-test\"\nlayer = \"x11\"\n", extra: String = "",
        pingTimeout: Double = 5, layer: String? = #"{"bounds": [0, 0, 120, 80], "position": [160, 100], "transform.scale": 2}"#
    ) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-xw-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml").path
        try """
        [output]
        headless_size = "320x200"
        background = "#203040"
        [compositor]
        enabled = true
        socket = "wl"
        xwayland = "\(mode)"
        ping_timeout = \(pingTimeout)
        \(rules)
        \(extra)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        daemon = try DaemonProcess(arguments: ["--config", config, "--log-level", "info"])
        control = try daemon.connect()
        try control.ok(#"{"cmd": "subscribe", "events": ["surface.*", "client.*"]}"#)
        if let layer { try control.ok(#"{"cmd": "layer.add", "layer": "x11", "kind": "surface", "properties": "# + layer + "}") }
        let deadline = Date().addingTimeInterval(10)
        var found: String?
        repeat {
            found = Self.display(in: daemon.standardError)
            if found == nil { usleep(20_000) }
        } while found == nil && Date() < deadline
        display = try #require(found, "the daemon did not say its X11 display: \(daemon.standardError.suffix(2000))")
    }

    /// The display the log line "serving X11 programs on display :N" names.
    static func display(in log: String) -> String? {
        guard let range = log.range(of: "serving X11 programs on display ") else { return nil }
        return String(log[range.upperBound...].prefix { $0 != " " })
    }

    /// Xwayland's pid, when the daemon runs one.
    var xwaylandPID: Int32? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { continue }
            // "pid (comm) state ppid …"
            guard let close = stat.lastIndex(of: ")") else { continue }
            let comm = stat[stat.index(after: stat.firstIndex(of: "(")!)..<close]
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            if comm == "Xwayland", fields.count > 1, Int32(fields[1]) == daemon.pid, fields[0] != "Z" { return pid }
        }
        return nil
    }

    /// A client of the test's own on the display.
    func client(instance: String = "vitrine-test", protocols: [String] = ["WM_DELETE_WINDOW", "_NET_WM_PING"]) throws -> X11TestClient {
        try X11TestClient(display: display, instance: instance, className: "VitrineTest", protocols: protocols)
    }

    /// Takes screenshots until one matches the reference `name`, pumping `client` between
    /// them (its repaints need it); the last mismatch, or nil. Without a reference, the
    /// picture of a moment later is written as one, and the test fails.
    func expectPicture(_ name: String, pumping client: X11TestClient, timeout: Double = 15) throws -> String? {
        if !FileManager.default.fileExists(atPath: Self.references.appendingPathComponent(name + ".png").path) {
            client.pump(for: 2)
            return try GoldenImage.check(try control.screenshot(name), named: name, in: Self.references)
        }
        let deadline = Date().addingTimeInterval(timeout)
        var failure: String?
        repeat {
            failure = try GoldenImage.check(try control.screenshot(name), named: name, in: Self.references)
            if failure == nil { return nil }
            client.pump(for: 0.1)
        } while Date() < deadline
        return failure
    }

    /// Screenshots until `accept` takes one, pumping `client` between them; the last one.
    func screenshot(_ name: String, pumping client: X11TestClient?, timeout: Double = 15, until accept: (Surface) -> Bool) throws -> Surface {
        let deadline = Date().addingTimeInterval(timeout)
        var shot = try control.screenshot(name)
        while !accept(shot), Date() < deadline {
            if let client { client.pump(for: 0.1) } else { usleep(100_000) }
            shot = try control.screenshot(name)
        }
        try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("xwayland-\(name).png").path)
        return shot
    }

    /// Sends `request` and requires it to succeed.
    func ok(_ request: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try control.ok(request, sourceLocation: sourceLocation)
    }

    /// A click (press and release of `button`) at the screen's (`x`, `y`).
    func click(_ x: Int, _ y: Int, button: String = "left") throws {
        try ok(#"{"cmd": "input.inject", "type": "pointer", "point": [\#(x), \#(y)]}"#)
        try ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "\#(button)", "pressed": true}"#)
        try ok(#"{"cmd": "input.inject", "type": "pointer", "action": "button", "button": "\#(button)", "pressed": false}"#)
    }
}

/// The pixel at (`x`, `y`) of `shot`, as 0xRRGGBB.
func rgb(_ shot: Surface, _ x: Int, _ y: Int) -> UInt32 { shot.pixels[y * shot.stride + x] & 0xFF_FFFF }
