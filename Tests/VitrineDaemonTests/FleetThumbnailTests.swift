import Foundation
import Testing
import VitrineCodecs
import VitrineFleet
import VitrineProtocol
import VitrineRaster

/// Pictures over MQTT: a real Mosquitto, a real `vitrined` and its `vitrine-fleet`;
/// `mosquitto_sub` receives the image's bytes, which are decoded (libpng, libjpeg-turbo)
/// and compared with the daemon's own screenshot scaled the same way.
@Suite(.serialized, .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto, mosquitto-clients and openssl"))
struct FleetThumbnailTests {
    /// A scene with detail to scale: a gradient and the counter over it.
    static let scene = """
        [[scene.layers]]
        id = "sky"
        kind = "gradient"
        properties = { bounds = [0, 0, 640, 240], position = [320, 120], colors = ["#0b132b", "#3a8fb7"] }
        """

    static func screen(_ broker: MosquittoBroker, fleet extra: String = "") throws -> Screen {
        try FleetTests.daemon(broker, device: "d", extra: scene + "\n\n", fleetKeys: extra)
    }

    /// The payload of the next message on `topic`, raw (`mosquitto_sub -C 1 -N`), once it came.
    final class Catch {
        private let process: ChildProcess
        private let path: String

        init(_ broker: MosquittoBroker, topic: String) throws {
            path = broker.directory.appendingPathComponent("catch-\(UUID().uuidString.prefix(8)).bin").path
            let command = (["exec", "/usr/bin/mosquitto_sub", "-q", "1", "-C", "1", "-N", "-t", topic] + broker.clientOptions).map { "'\($0)'" }
                .joined(separator: " ")
            process = try ChildProcess("/bin/sh", ["-c", command + " > '\(path)'"], stderrPath: path + ".err")
            usleep(200_000)
        }

        deinit { if process.isRunning { _ = process.terminate() } }

        /// The bytes, once the message came within `timeout` seconds.
        func bytes(timeout: Double = 15) -> [UInt8]? {
            guard process.wait(timeout: timeout) == 0 else { return nil }
            return FileManager.default.contents(atPath: path).map { Array($0) }
        }
    }

    /// The reply with `id` on the device's reply topic, once it came.
    static func reply(_ listener: MQTTSubscriber, _ id: String) -> JSON? {
        listener.wait { s in s.json(on: "vitrine/d/reply").contains { $0["id"] == .string(id) } }
        return listener.json(on: "vitrine/d/reply").first { $0["id"] == .string(id) }
    }

    /// The daemon's own screenshot, through its socket.
    static func shot(_ screen: Screen) throws -> Surface {
        let png = try #require(Data(base64Encoded: try FleetTests.picture(screen)))
        return try Surface(pngData: Array(png), name: "screenshot")
    }

    /// The largest and the mean difference of any channel between two pictures of one size.
    static func difference(_ a: Surface, _ b: Surface) -> (max: Int, mean: Double) {
        var largest = 0
        var sum = 0
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixels[y * a.stride + x]
                let q = b.pixels[y * b.stride + x]
                for shift in [0, 8, 16] {
                    let d = abs(Int((p >> UInt32(shift)) & 0xFF) - Int((q >> UInt32(shift)) & 0xFF))
                    largest = max(largest, d)
                    sum += d
                }
            }
        }
        return (largest, Double(sum) / Double(a.width * a.height * 3))
    }

    static func decode(_ bytes: [UInt8]) throws -> Surface {
        try #require(try ImageDecoder.decode(bytes, fitting: nil, byteLimit: 64 << 20).frames.first)
    }

    @Test func aScreenshotIsPublishedScaledAsPNGOrJPEGAndEqualsTheDaemonsScaledTheSameWay() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screen = try Self.screen(broker, fleet: "screenshot_interval = 0\n")
        #expect(FleetTests.waitOnline(listener, ["d"]), "\(listener.messages)")
        let reference = try Self.shot(screen)

        let png = try Catch(broker, topic: "vitrine/d/screenshot")
        try broker.publish("vitrine/d/cmd", #"{"id": "p", "cmd": "screenshot", "format": "png", "width": 160, "height": 160}"#)
        let pngReply = try #require(Self.reply(listener, "p"), "\(listener.messages)")
        #expect(pngReply["ok"] == .bool(true), "\(pngReply)")
        #expect(pngReply["result"]?["size"] == .array([.number(160), .number(60)]), "\(pngReply)")
        #expect(pngReply["result"]?["topic"] == .string("vitrine/d/screenshot"))
        let pngBytes = try #require(png.bytes())
        #expect(pngReply["result"]?["bytes"] == .number(Double(pngBytes.count)))
        let small = try Self.decode(pngBytes)
        #expect(small.width == 160 && small.height == 60)
        let scaled = Thumbnail.scaled(reference, to: 160, 60)
        let pngDifference = Self.difference(small, scaled)
        #expect(pngDifference.max <= 1, "\(pngDifference)")
        try scaled.writePNG(to: broker.directory.appendingPathComponent("scaled.png").path)

        let jpeg = try Catch(broker, topic: "vitrine/d/screenshot")
        try broker.publish("vitrine/d/cmd", #"{"id": "j", "cmd": "screenshot"}"#)
        let jpegReply = try #require(Self.reply(listener, "j"), "\(listener.messages)")
        #expect(jpegReply["result"]?["format"] == .string("jpeg") && jpegReply["result"]?["quality"] == .number(80), "\(jpegReply)")
        #expect(jpegReply["result"]?["size"] == .array([.number(320), .number(120)]), "\(jpegReply)")
        let jpegBytes = try #require(jpeg.bytes())
        #expect(jpegBytes.prefix(2) == [0xFF, 0xD8] && jpegBytes.count <= 65536)
        let thumbnail = try Self.decode(jpegBytes)
        let jpegDifference = Self.difference(thumbnail, Thumbnail.scaled(reference, to: 320, 120))
        #expect(jpegDifference.mean < 3 && jpegDifference.max < 96, "\(jpegDifference)")

        // A cap below what quality 80 takes: the quality, then the size, come down until it fits.
        let capped = try Catch(broker, topic: "vitrine/d/screenshot")
        try broker.publish("vitrine/d/cmd", #"{"id": "c", "cmd": "screenshot", "width": 640, "height": 240, "maxBytes": 2000}"#)
        let cappedReply = try #require(Self.reply(listener, "c"), "\(listener.messages)")
        let cappedBytes = try #require(capped.bytes())
        #expect(cappedReply["ok"] == .bool(true) && cappedBytes.count <= 2000, "\(cappedReply) \(cappedBytes.count)")
        #expect((cappedReply["result"]?["quality"]?.number ?? 100) < 80 || cappedReply["result"]?["size"] != .array([.number(640), .number(240)]))
        #expect(screen.isRunning)
    }

    @Test func badRequestsAndAFloodGetClearErrorsAndNoPicture() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screen = try Self.screen(broker, fleet: "screenshot_interval = 30\n")
        #expect(FleetTests.waitOnline(listener, ["d"]), "\(listener.messages)")
        let bad: [(String, String, String)] = [
            ("o", #"{"id": "o", "cmd": "screenshot", "output": "HDMI-A-9"}"#, "unknown_output"),
            ("w", #"{"id": "w", "cmd": "screenshot", "width": 100000}"#, "invalid_value"),
            ("z", #"{"id": "z", "cmd": "screenshot", "height": 0}"#, "invalid_value"),
            ("f", #"{"id": "f", "cmd": "screenshot", "format": "gif"}"#, "invalid_value"),
            ("m", #"{"id": "m", "cmd": "screenshot", "maxBytes": 10}"#, "invalid_value"),
            ("u", #"{"id": "u", "cmd": "screenshot", "scale": 2}"#, "unknown_field"),
            ("t", #"{"id": "t", "cmd": "screenshot", "output": 3}"#, "wrong_type"),
        ]
        for (id, request, code) in bad {
            try broker.publish("vitrine/d/cmd", request)
            let reply = try #require(Self.reply(listener, id), "\(listener.messages)")
            #expect(reply["ok"] == .bool(false) && reply["error"]?["code"] == .string(code), "\(request): \(reply)")
            #expect(reply["error"]?["message"]?.string?.isEmpty == false)
        }
        // The unknown output used the interval's turn; a flood after one good request gets limit_exceeded.
        try broker.publish("vitrine/d/cmd", #"{"id": "again", "cmd": "screenshot"}"#)
        let again = try #require(Self.reply(listener, "again"))
        #expect(again["error"]?["code"] == .string("limit_exceeded"), "\(again)")
        #expect(again["error"]?["message"]?.string?.contains("screenshot_interval") == true, "\(again)")
        for i in 0..<20 { try broker.publish("vitrine/d/cmd", #"{"id": "flood\#(i)", "cmd": "screenshot"}"#) }
        #expect(listener.wait { s in s.json(on: "vitrine/d/reply").contains { $0["id"] == .string("flood19") } })
        let flood = listener.json(on: "vitrine/d/reply").filter { $0["id"]?.string?.hasPrefix("flood") == true }
        #expect(flood.count == 20 && flood.allSatisfy { $0["error"]?["code"] == .string("limit_exceeded") }, "\(flood)")
        #expect(!listener.messages.contains { $0.topic == "vitrine/d/screenshot" }, "no picture was published")
        // The screen goes on answering.
        try broker.publish("vitrine/d/cmd", #"{"id": "n", "cmd": "number.set", "layer": "count", "value": 7}"#)
        #expect(Self.reply(listener, "n")?["ok"] == .bool(true))
        #expect(screen.isRunning)
    }

    @Test func eachOutputsThumbnailIsPublishedRetainedEveryPeriod() throws {
        let broker = try MosquittoBroker()
        let listener = try broker.subscribe()
        let screen = try Self.screen(broker, fleet: "thumbnail_every = 1\nthumbnail_width = 200\nthumbnail_format = \"png\"\n")
        #expect(FleetTests.waitOnline(listener, ["d"]), "\(listener.messages)")
        let first = try Catch(broker, topic: "vitrine/d/thumbnail/headless")
        let firstPicture = try Self.decode(try #require(first.bytes()))
        #expect(firstPicture.width == 200 && firstPicture.height == 75)
        #expect(Self.difference(firstPicture, Thumbnail.scaled(try Self.shot(screen), to: 200, 75)).max <= 1)
        // The next one shows the change.
        try screen.connect().ok(##"{"id": 1, "cmd": "layer.set", "layer": "sky", "properties": {"colors": ["#ff0000", "#ff0000"]}}"##)
        try screen.connect().ok(#"{"id": 2, "cmd": "clock.advance", "seconds": 1}"#)
        var lastPixel: UInt32 = 0
        let red = listener.wait(timeout: 10) { _ in
            guard let bytes = try? Catch(broker, topic: "vitrine/d/thumbnail/headless").bytes(), let picture = try? Self.decode(bytes) else { return false }
            lastPixel = picture.pixels[0]
            return picture.pixels[0] & 0xFF_FFFF == 0xFF_0000
        }
        #expect(
            red,
            "a later thumbnail shows the red sky, not \(String(lastPixel, radix: 16)); \(screen.standardError.suffix(3000)) \(listener.messages.filter { $0.topic.hasPrefix("vitrine/d/thumbnail") }.count)"
        )
        #expect(screen.isRunning)
    }
}
