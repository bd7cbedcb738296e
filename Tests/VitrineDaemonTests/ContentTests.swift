import Foundation
import Testing
import VitrineProtocol
import VitrineRaster

/// Layers' `contents` as a hostile or clumsy script would set them: FIFOs, paths outside
/// the content roots, links out of them, images too large for the budget, files that
/// change on disk — against the real daemon.
@Suite struct ContentTests {
    let content: URL

    init() throws {
        content = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-content-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: content, withIntermediateDirectories: true)
    }

    /// A PNG of one colour.
    func writePNG(_ name: String, _ color: PremultipliedColor, width: Int = 8, height: Int = 8) throws -> String {
        let surface = Surface(width: width, height: height)
        surface.fill(PixelRect(x: 0, y: 0, width: width, height: height), color, mode: .source)
        let path = content.appendingPathComponent(name).path
        try surface.writePNG(to: path)
        return path
    }

    func start(_ extra: [String] = []) throws -> (DaemonProcess, SocketClient) {
        let daemon = try DaemonProcess(arguments: ["--size", "40x20", "--content-root", content.path] + extra)
        return (daemon, try daemon.connect())
    }

    func addImageLayer(_ c: SocketClient, _ id: String, _ contents: String, x: Int = 10) throws -> JSON {
        try #require(
            try c.exchange(
                #"{"id": 1, "cmd": "layer.add", "layer": "\#(id)", "properties": {"bounds": [0, 0, 20, 20], "position": [\#(x), 10], "contents": "\#(contents)"}}"#
            ))
    }

    func pixel(_ c: SocketClient, _ daemon: DaemonProcess, x: Int, y: Int) throws -> [Int] {
        let reply = try #require(try c.exchange(#"{"id": 9, "cmd": "screenshot", "path": "shot.png"}"#))
        let shot = try Surface(contentsOfPNG: try #require(reply["result"]?["path"]?.string, "\(reply)"))
        return ScreenshotTests.rgba(shot, x, y)
    }

    @Test func aFIFOAsContentsOrScreenshotIsRefusedAndTheDaemonGoesOn() throws {
        let fifo = content.appendingPathComponent("pipe.png").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let (daemon, c) = try start()
        let start = Date()
        let reply = try addImageLayer(c, "a", fifo)
        #expect(reply["error"]?["code"] == .string("content_failed"), "\(reply)")
        #expect(reply["error"]?["message"]?.string?.contains("not a regular file") == true, "\(reply)")
        let target = daemon.screenshotDirectory + "/fifo.png"
        #expect(mkfifo(target, 0o644) == 0)
        let shot = try #require(try c.exchange(#"{"id": 2, "cmd": "screenshot", "path": "fifo.png"}"#))
        #expect(shot["ok"] == .bool(false), "\(shot)")
        #expect(try c.exchange(#"{"id": 3, "cmd": "ping"}"#)?["ok"] == .bool(true))
        #expect(Date().timeIntervalSince(start) < 5)
        // Nothing changed: the layer was never added.
        #expect(try c.exchange(#"{"id": 4, "cmd": "layer.get", "layer": "a"}"#)?["ok"] == .bool(false))
    }

    @Test func pathsOutsideTheRootsAreRefusedWhateverTheirSpelling() throws {
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-outside-\(UUID().uuidString.prefix(8)).png").path
        let surface = Surface(width: 4, height: 4)
        try surface.writePNG(to: outside)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        let link = content.appendingPathComponent("link.png").path
        #expect(symlink(outside, link) == 0)
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        for reference in [outside, link, content.path + "/../" + URL(fileURLWithPath: outside).lastPathComponent, "/etc/shadow"] {
            let reply = try addImageLayer(c, "a", reference)
            #expect(reply["error"]?["code"] == .string("path_not_allowed"), "\(reference): \(reply)")
        }
    }

    @Test func everyNameOfOneFileSharesOneImageAndARewriteIsShown() throws {
        let path = try writePNG("red.png", PremultipliedColor(straightRed: 255, green: 0, blue: 0, alpha: 255))
        let (daemon, c) = try start()
        #expect(try addImageLayer(c, "a", path, x: 10)["ok"] == .bool(true))
        let dotted = content.path + "/./red.png"
        #expect(try addImageLayer(c, "b", dotted, x: 30)["ok"] == .bool(true))
        let hardLink = content.appendingPathComponent("same.png").path
        #expect(link(path, hardLink) == 0)
        #expect(try addImageLayer(c, "c", hardLink, x: 20)["ok"] == .bool(true))
        let stats = try #require(try c.exchange(#"{"id": 5, "cmd": "stats"}"#))
        #expect(stats["result"]?["images"] == .number(1), "three names of one file are one image: \(stats)")
        #expect(try pixel(c, daemon, x: 10, y: 10) == [255, 0, 0, 255])

        // Rewritten in place (not renamed): the daemon notices and fades the new picture in
        // (the manual clock is moved on past the fade).
        let blue = Surface(width: 8, height: 8)
        blue.fill(PixelRect(x: 0, y: 0, width: 8, height: 8), PremultipliedColor(straightRed: 0, green: 0, blue: 255, alpha: 255), mode: .source)
        try Data(try blue.pngData()).write(to: URL(fileURLWithPath: path))
        let deadline = Date().addingTimeInterval(5)
        var seen: [Int] = []
        var time = 0.0
        while Date() < deadline {
            time += 1
            _ = try c.exchange(#"{"id": 8, "cmd": "clock.set", "time": \#(time)}"#)
            seen = try pixel(c, daemon, x: 30, y: 10)
            if seen == [0, 0, 255, 255] { break }
            usleep(50_000)
        }
        #expect(seen == [0, 0, 255, 255], "the rewritten file was not shown")
    }

    @Test func anImageOverTheBudgetIsRefusedAndNothingChanges() throws {
        let small = try writePNG("small.png", PremultipliedColor(straightRed: 0, green: 255, blue: 0, alpha: 255))
        let big = try writePNG("big.png", .white, width: 2200, height: 2000)
        let config = content.appendingPathComponent("vitrine.toml").path
        try "[limits]\nmemory_mb = 16\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (daemon, c) = try start(["--config", config])
        #expect(try addImageLayer(c, "a", small)["ok"] == .bool(true))
        let reply = try #require(try c.exchange(#"{"id": 2, "cmd": "layer.set", "layer": "a", "properties": {"contents": "\#(big)"}}"#))
        #expect(reply["error"]?["code"] == .string("limit_exceeded"), "\(reply)")
        #expect(reply["error"]?["message"]?.string?.contains("memory_mb") == true, "\(reply)")
        let model = try #require(try c.exchange(#"{"id": 3, "cmd": "layer.get", "layer": "a", "keys": ["contents"]}"#))
        #expect(model["result"]?["properties"]?["contents"] == .string(small))
        #expect(try pixel(c, daemon, x: 10, y: 10) == [0, 255, 0, 255])
    }

    @Test func imagesOffScreenAreDroppedSoMemoryStaysWithinTheBudget() throws {
        let config = content.appendingPathComponent("vitrine.toml").path
        try "[limits]\nmemory_mb = 16\n".write(toFile: config, atomically: true, encoding: .utf8)
        let (daemon, c) = try start(["--config", config])
        func residentKB() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8)
            let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
            return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
        }
        #expect(try addImageLayer(c, "a", try writePNG("first.png", .white, width: 1000, height: 1000))["ok"] == .bool(true))
        let before = try residentKB()
        // Twelve 4 MB images, one after another on one layer: 48 MB if all were kept.
        for i in 0..<12 {
            let path = try writePNG("image-\(i).png", PremultipliedColor(straightRed: UInt8(i * 20), green: 0, blue: 0, alpha: 255), width: 1000, height: 1000)
            let reply = try #require(try c.exchange(#"{"id": 2, "cmd": "layer.set", "layer": "a", "properties": {"contents": "\#(path)"}}"#))
            #expect(reply["ok"] == .bool(true), "\(reply)")
        }
        let stats = try #require(try c.exchange(#"{"id": 3, "cmd": "stats"}"#))
        let held = try #require(stats["result"]?["imageBytes"]?.number)
        #expect(held <= 16 * 1_048_576, "\(held) bytes of images held")
        let grown = try residentKB() - before
        #expect(grown < 24 * 1024, "resident memory grew by \(grown) KB for a 16 MB image budget")
        _ = try c.exchange(#"{"id": 4, "cmd": "clock.set", "time": 1}"#)  // past the last image's fade
        #expect(try pixel(c, daemon, x: 10, y: 10) == [220, 0, 0, 255], "the last image is shown")
    }

    @Test func aMissingFileIsAnErrorAndLoadsOnceItExists() throws {
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        let path = content.appendingPathComponent("later.png").path
        let reply = try addImageLayer(c, "a", path)
        #expect(reply["error"]?["code"] == .string("content_failed"), "\(reply)")
        _ = try writePNG("later.png", .white)
        #expect(try addImageLayer(c, "a", path)["ok"] == .bool(true))
    }

    @Test func aFileThatFailsLaterIsAnEventNamingTheLayer() throws {
        let path = try writePNG("card.png", .white)
        let (daemon, c) = try start()
        defer { withExtendedLifetime(daemon) {} }
        _ = try c.exchange(#"{"id": 1, "cmd": "subscribe", "events": ["content.*"]}"#)
        #expect(try addImageLayer(c, "card", path)["ok"] == .bool(true))
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: path))
        var event: JSON?
        let deadline = Date().addingTimeInterval(5)
        while event == nil, Date() < deadline, let line = c.readLine(timeout: 1) {
            let json = try JSON(parsing: Data(line.utf8))
            if json["event"] == .string("content.failed") { event = json }
        }
        let failed = try #require(event, "no content.failed event")
        #expect(failed["layers"] == .array([.string("card")]), "\(failed)")
        #expect(failed["code"] == .string("content_failed"), "\(failed)")
    }
}

/// Bounds on what the scene holds, and stopping whatever clients are doing.
@Suite struct ServiceBoundsTests {
    @Test func valuesOverTheSceneBudgetAreRefusedAndNothingChanges() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-bounds-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml").path
        try "[limits]\nscene_mb = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let c = try daemon.connect()
        let big = String(repeating: "x", count: 600_000)
        #expect(try c.exchange(#"{"id": 1, "cmd": "layer.add", "layer": "a", "properties": {"note": "\#(big)"}}"#)?["ok"] == .bool(true))
        let refused = try #require(try c.exchange(#"{"id": 2, "cmd": "layer.add", "layer": "b", "properties": {"note": "\#(big)"}}"#))
        #expect(refused["error"]?["code"] == .string("limit_exceeded"), "\(refused)")
        #expect(refused["error"]?["message"]?.string?.contains("scene_mb") == true, "\(refused)")
        #expect(try c.exchange(#"{"id": 3, "cmd": "layer.get", "layer": "b"}"#)?["ok"] == .bool(false), "the refused layer is not there")
        // Making room lets it in.
        #expect(try c.exchange(#"{"id": 4, "cmd": "layer.set", "layer": "a", "properties": {"note": "short"}}"#)?["ok"] == .bool(true))
        #expect(try c.exchange(#"{"id": 5, "cmd": "layer.add", "layer": "b", "properties": {"note": "\#(big)"}}"#)?["ok"] == .bool(true))
        // Animations' values count too: a keyframe list of long strings does not fit beside it.
        let word = String(repeating: "y", count: 100_000)
        let values = Array(repeating: "\"\(word)\"", count: 6).joined(separator: ", ")
        let animation = try #require(
            try c.exchange(
                #"{"id": 6, "cmd": "animation.add", "layer": "a", "key": "k", "animation": {"keyPath": "note", "type": "keyframe", "values": [\#(values)], "duration": 100}}"#
            ))
        #expect(animation["error"]?["code"] == .string("limit_exceeded"), "\(animation)")
        #expect(try c.exchange(#"{"id": 7, "cmd": "animation.list", "layer": "a"}"#)?["result"] == .array([]), "the refused animation is not attached")
    }

    @Test(arguments: ["empty", "whitespace", "NUL-filled", "binary"])
    func aBrokenConfigOnReloadKeepsTheRunningOne(_ broken: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-reload-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("vitrine.toml").path
        try "[output]\nbackground = \"#ff0000\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config, "--size", "16x16"])
        let c = try daemon.connect()
        let bytes: [UInt8] =
            switch broken {
            case "empty": []
            case "whitespace": Array(" \n\n".utf8)
            case "NUL-filled": [UInt8](repeating: 0, count: 4096)
            default: [0xff, 0xfe, 0x5b, 0x6f, 0x75, 0x74]
            }
        try Data(bytes).write(to: URL(fileURLWithPath: config))
        let reply = try #require(try c.exchange(#"{"id": 1, "cmd": "config.reload"}"#))
        #expect(reply["error"]?["code"] == .string("invalid_config"), "\(reply)")
        let message = reply["error"]?["message"]?.string ?? ""
        let says =
            switch broken {
            case "NUL-filled": "NUL"
            case "binary": "offset 0"
            default: "empty"
            }
        #expect(message.contains(says), "\(message)")
        let shot = try #require(try c.exchange(#"{"id": 2, "cmd": "screenshot", "path": "bg.png"}"#)?["result"]?["path"]?.string)
        #expect(ScreenshotTests.rgba(try Surface(contentsOfPNG: shot), 8, 8) == [255, 0, 0, 255], "the running background changed")
    }

    @Test func sigtermStopsTheDaemonWithinASecondWhateverClientsAreDoing() throws {
        let daemon = try DaemonProcess(clock: "realtime")
        let halfLine = try daemon.connect()
        halfLine.write(Array(#"{"id": 1, "cmd": "pi"#.utf8))
        let flooding = try daemon.connect()
        for i in 0..<2000 { flooding.send(#"{"id": \#(i), "cmd": "layer.add", "layer": "l\#(i)"}"#) }
        let busy = try daemon.connect()
        busy.send(#"{"id": 1, "cmd": "screenshot"}"#)
        let start = Date()
        kill(daemon.pid, SIGTERM)
        let status = daemon.waitForExit(timeout: 5)
        #expect(status == 0, "exit status \(String(describing: status))")
        #expect(Date().timeIntervalSince(start) < 1, "stopping took \(Date().timeIntervalSince(start)) s")
    }
}
