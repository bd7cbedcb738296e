import Foundation
import Testing
import VitrineDaemonTestSupport
import VitrineProtocol
import VitrineRaster

/// A web form on a touch-only kiosk: Chromium (Wayland, `--enable-wayland-ime`, text-input-v3)
/// full screen, and Vitrine's own keyboard (`[osk]`) brought up by its text fields. The
/// daemon runs on the manual clock: the slides are advanced by `clock.advance`.
@Suite(.serialized, .enabled(if: InputMethodTests.installed("/usr/bin/chromium"), "apt-get install chromium"))
struct ScreenKeyboardFormTests {
    /// The keyboard's height on the 640 × 400 screen: it covers rows 240…400 once in.
    static let keyboardTop = 240.0

    /// The page: a field near the bottom (covered by the keyboard until the window moves),
    /// a second field above it (still in sight once the window moved), and a plain area
    /// right of them. The focused field's
    /// value becomes the title, which `surface.list` shows.
    static let page = """
        <html><body style="margin:0;background:#ffffff;height:400px">
        <input id="top" style="position:absolute;left:20px;top:180px;width:300px;height:40px;font-size:24px"
          oninput="document.title='top:'+this.value">
        <input id="low" style="position:absolute;left:20px;top:320px;width:300px;height:40px;font-size:24px"
          oninput="document.title='low:'+this.value">
        <script>document.title='ready'</script></body></html>
        """

    @Test func aFieldBringsTheKeyboardUpItsKeysTypeIntoItAndLeavingTheFieldsHidesIt() throws {
        let setup = try InputMethodTests.Setup(extra: "[osk]\nenabled = true\nlayouts = [\"us\", \"numeric\"]\nheight = 160\nduration = 0.2\n")
        let c = setup.control
        try c.ok(#"{"cmd": "layer.set", "layer": "app", "properties": {"bounds": [0, 0, 640, 400], "position": [320, 200]}, "actions": false}"#)
        let file = setup.directory + "/form.html"
        try Self.page.write(toFile: file, atomically: true, encoding: .utf8)
        let log = setup.directory + "/chromium.stderr"
        let chromium = try ChildProcess(
            "/usr/bin/chromium",
            [
                "--ozone-platform=wayland", "--enable-wayland-ime", "--wayland-text-input-version=3", "--disable-gpu", "--no-sandbox", "--test-type",
                "--user-data-dir=\(setup.directory)/profile", "--no-first-run", "--disable-features=Translate", "--app=file://\(file)",
            ], stderrPath: log, environment: setup.environment)
        defer { _ = chromium.terminate() }
        let mapped = try c.waitForEvent("surface.mapped", timeout: 60)
        let id = try #require(mapped["surface"]?.number, "\(mapped.text)")
        try c.ok(#"{"cmd": "surface.assign", "surface": \#(Int(id)), "layer": "app"}"#)
        try Self.wait("the page loaded: \(InputMethodTests.log(log))") { try Self.title(c) == "ready" }

        // The low field, under where the keyboard comes: tapped, the keyboard slides in and
        // the window moves up to keep the field in sight.
        try Self.wait("the keyboard came up for the low field: \(InputMethodTests.log(log))", timeout: 30) {
            if try Self.keyboardShown(c) { return true }
            try setup.tap(100, 340)
            return try Self.keyboardShown(c, within: 2)
        }
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        let shot = try c.screenshot("osk-form")
        try shot.writePNG(to: GoldenImage.failuresDirectory.appendingPathComponent("osk-form.png").path)
        let page = 0xFF_FFFF as UInt32
        #expect(shot.pixels[395 * shot.stride + 5] & 0xFF_FFFF != page, "no keyboard at the screen's bottom")
        let moved = try Self.layerY(c, "app") - 200
        #expect(moved <= -(320 + 40 - Self.keyboardTop) + 1, "the window moved by \(moved): its low field is still covered")

        // Keys tapped on the keyboard go into the field (commit_string), which the page's
        // title shows.
        for label in ["h", "i"] { try setup.tap(try Self.key(label, c)) }
        try Self.wait("the low field took 'hi' (title '\((try? Self.title(c)) ?? "")')") { try Self.title(c) == "low:hi" }

        // The other field (moved with the window) keeps the keyboard up and takes the keys.
        try setup.tap(100, Int(200 + moved))
        usleep(500_000)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        #expect(try Self.keyboardShown(c), "the keyboard went away for the second field")
        try setup.tap(try Self.key("k", c))
        try Self.wait("the top field took 'k' (title '\((try? Self.title(c)) ?? "")')") { try Self.title(c) == "top:k" }

        // A tap off the fields: the text input is disabled, the keyboard slides out and the
        // window goes back where it was.
        try setup.tap(500, Int(200 + moved))
        try Self.wait("the keyboard did not go away off the fields") {
            try c.ok(#"{"cmd": "clock.advance", "seconds": 0.5}"#)
            return try !Self.keyboardShown(c)
        }
        try Self.wait("the window did not go back") { try Self.layerY(c, "app") == 200 }
        #expect(chromium.isRunning, "chromium stopped: \(InputMethodTests.log(log))")
    }

    // MARK: Helpers

    /// Whether the keyboard's layers are in the scene (it has none while hidden), waiting
    /// at most `within` seconds for them.
    static func keyboardShown(_ c: SocketClient, within seconds: Double = 0) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if try c.request(#"{"cmd": "layer.get", "layer": "osk:key:0"}"#)["ok"] == .bool(true) { return true }
            if seconds > 0 { usleep(100_000) }
        } while Date() < deadline
        return false
    }

    /// The centre on screen of the key labelled `label`, the keyboard in.
    static func key(_ label: String, _ c: SocketClient) throws -> (Int, Int) {
        for index in 0..<80 {
            let reply = try c.request(#"{"cmd": "layer.get", "layer": "osk:label:\#(index)", "keys": ["string"]}"#)
            guard reply["result"]?["properties"]?["string"] == .string(label) else { continue }
            let key = try c.request(#"{"cmd": "layer.get", "layer": "osk:key:\#(index)", "keys": ["position"]}"#)
            let point = (key["result"]?["properties"]?["position"]?.array ?? []).compactMap(\.number)
            return (Int(point[0]), Int(keyboardTop + point[1]))
        }
        throw DaemonError("no key is labelled '\(label)'")
    }

    static func layerY(_ c: SocketClient, _ layer: String) throws -> Double {
        let reply = try c.request(#"{"cmd": "layer.get", "layer": "\#(layer)", "keys": ["position"]}"#)
        return reply["result"]?["properties"]?["position"]?.array?.last?.number ?? .nan
    }

    static func title(_ c: SocketClient) throws -> String {
        try c.request(#"{"cmd": "surface.list"}"#)["result"]?["surfaces"]?.array?.first?["title"]?.string ?? ""
    }

    static func wait(_ what: @autoclosure () -> String, timeout: Double = 15, until done: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while try !done() {
            guard Date() < deadline else { throw DaemonError(what()) }
            usleep(100_000)
        }
    }
}

extension InputMethodTests.Setup {
    func tap(_ point: (Int, Int)) throws { try tap(point.0, point.1) }
}
