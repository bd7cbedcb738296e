import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// A text layer's `attributedString` set over the socket of a real `vitrined`, and a
/// named run's colour animated by key path, seen in screenshots.
@Suite struct RichTextDaemonTests {
    /// The layer: "Soup " in the layer's white, "4.50" a named run in red, on black.
    static let add =
        ##"{"cmd": "layer.add", "layer": "menu", "kind": "text", "properties": {"bounds": [0, 0, 300, 60], "position": [160, 40], "fontSize": 40, "foregroundColor": "#ffffff", "attributedString": [{"text": "Soup "}, {"text": "4.50", "name": "price", "foregroundColor": "#ff0000", "font": "DejaVu Sans:bold"}]}}"##

    /// The brightest pixel's colour among the pixels whose channels differ (the coloured
    /// price; the white text and the black background are grey), and how many there are.
    static func priceColour(_ shot: Surface) -> (red: Int, green: Int, blue: Int, count: Int) {
        var best = (red: 0, green: 0, blue: 0, count: 0)
        for y in 0..<shot.height {
            for x in 0..<shot.width {
                let p = shot.pixel(x: x, y: y)
                let (r, g, b) = (Int(p.red), Int(p.green), Int(p.blue))
                guard max(r, g, b) - min(r, g, b) > 8 else { continue }
                best.count += 1
                if r + g + b > best.red + best.green + best.blue { (best.red, best.green, best.blue) = (r, g, b) }
            }
        }
        return best
    }

    /// Each pixel's ink: its brightest channel over the brightest of its colour's
    /// pixels (grey or coloured), so that recolouring the price leaves it as it was.
    static func coverage(_ shot: Surface) -> [Double] {
        let pixels = (0..<shot.height).flatMap { y in (0..<shot.width).map { shot.pixel(x: $0, y: y) } }
        func isColoured(_ p: PremultipliedColor) -> Bool { max(p.red, p.green, p.blue) - min(p.red, p.green, p.blue) > 8 }
        let peak = Double(pixels.filter(isColoured).map { max($0.red, $0.green, $0.blue) }.max() ?? 255)
        return pixels.map { Double(max($0.red, $0.green, $0.blue)) / (isColoured($0) ? peak : 255) }
    }

    @Test func aNamedRunsColourAnimatesWithoutMovingGlyphs() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x80"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "clock.set", "time": 0}"#)
        try c.ok(Self.add)
        let start = try c.screenshot("rich-start")
        let red = Self.priceColour(start)
        #expect(red.red > 240 && red.green < 16 && red.blue < 16 && red.count > 100, "\(red)")
        // As any custom key path, the run's colour is set before it is animated.
        try c.ok(##"{"cmd": "layer.set", "layer": "menu", "properties": {"runs.price.foregroundColor": "#ff0000"}}"##)
        #expect(try c.screenshot("rich-set").hasSamePixels(as: start))

        try c.ok(
            ##"{"cmd": "animation.add", "layer": "menu", "animation": {"keyPath": "runs.price.foregroundColor", "from": "#ff0000", "to": "#00ff00", "duration": 2}}"##
        )
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        let midway = try c.screenshot("rich-midway")
        let blend = Self.priceColour(midway)
        #expect(abs(blend.red - blend.green) < 16 && blend.red > 100 && blend.blue < 16, "half way: \(blend)")
        let moved = zip(Self.coverage(midway), Self.coverage(start)).filter { abs($0 - $1) > 0.08 }.count
        #expect(moved == 0, "recolouring must not move glyphs: \(moved) pixels changed their ink")
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1.5}"#)
        let end = Self.priceColour(try c.screenshot("rich-end"))
        #expect(end.red > 240 && end.green < 16, "the animation is over and the model's red shows again: \(end)")
    }

    @Test func implicitAnimationOfARunColourAndMarkupChanges() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x80"])
        let c = try daemon.connect()
        try c.ok(#"{"cmd": "clock.set", "time": 0}"#)
        try c.ok(Self.add)
        try c.ok(##"{"cmd": "layer.set", "layer": "menu", "properties": {"runs.price.foregroundColor": "#ff0000"}}"##)
        try c.ok(
            ##"{"cmd": "layer.set", "layer": "menu", "properties": {"runs.price.foregroundColor": "#0000ff"}, "animation": {"duration": 2}}"##)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 1}"#)
        let blend = Self.priceColour(try c.screenshot("rich-implicit"))
        #expect(abs(blend.red - blend.blue) < 16 && blend.red > 100 && blend.green < 16, "half way: \(blend)")

        // New markup lays out again; its price run keeps the name, so the key path still
        // colours it.
        try c.ok(
            #"{"cmd": "layer.set", "layer": "menu", "properties": {"attributedString": "Tea <span name=\"price\" size=\"20pt\">2.10</span>"}}"#)
        try c.ok(#"{"cmd": "clock.advance", "seconds": 2}"#)
        let shot = try c.screenshot("rich-markup")
        let blue = Self.priceColour(shot)
        #expect(blue.blue > 240 && blue.red < 16 && blue.count > 50, "\(blue)")
    }

    /// The config's initial scene takes the runs as a TOML array of tables, and they draw
    /// as the same runs sent over the socket do.
    @Test func theConfigsSceneTakesRunsAsTOMLTables() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-rich-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("vitrine.toml")
        try """
        [[scene.layers]]
        id = "menu"
        kind = "text"
        [scene.layers.properties]
        bounds = [0, 0, 300, 60]
        position = [160, 40]
        fontSize = 40
        foregroundColor = "#ffffff"
        attributedString = [{ text = "Soup " }, { text = "4.50", name = "price", foregroundColor = "#ff0000", font = "DejaVu Sans:bold" }]
        """.write(to: config, atomically: true, encoding: .utf8)
        let fromConfig = try DaemonProcess(arguments: ["--size", "320x80", "--config", config.path])
        let configured = try fromConfig.connect().screenshot("rich-config")
        let overSocket = try DaemonProcess(arguments: ["--size", "320x80"])
        let sent = try overSocket.connect()
        try sent.ok(Self.add)
        #expect(configured.hasSamePixels(as: try sent.screenshot("rich-sent")))
        #expect(Self.priceColour(configured).red > 240, "\(Self.priceColour(configured))")
    }

    @Test func badMarkupAndRunsAreRefusedAndChangeNothing() throws {
        let daemon = try DaemonProcess(arguments: ["--size", "320x80"])
        let c = try daemon.connect()
        try c.ok(Self.add)
        let before = try c.screenshot("rich-before")
        for (bad, phrase) in [
            (#""<b>Soup <i>4.50</b>""#, "</b> closes <i>"),
            (#"[{"text": "Soup", "colour": "red"}]"#, "\"colour\" is not a run key"),
            (#""<span foreground=\"reddish\">x</span>""#, "not a colour"),
        ] {
            let reply = try c.request(#"{"cmd": "layer.set", "layer": "menu", "properties": {"attributedString": \#(bad)}}"#)
            #expect(reply["ok"] == .bool(false), "\(reply)")
            #expect(reply["error"]?["message"]?.string?.contains(phrase) == true, "\(reply)")
        }
        #expect(try c.screenshot("rich-after").hasSamePixels(as: before))
    }
}
