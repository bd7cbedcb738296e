import Foundation
import Logging
import Testing
import VitrineCodecs
import VitrineDecoderHelper
import VitrineImage
import VitrineProtocol
import VitrineRaster
import VitrineSystem
import VitrineTestSupport

/// The helper built beside the tests.
let helperPath = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vitrine-decoder").path
    .replacingOccurrences(of: "/vitrinePackageTests.xctest/Contents/MacOS", with: "")

func settings(timeout: Double = 10, memory: Int = 512 << 20, helpers: Int = 2) -> DecoderClient.Settings {
    var settings = DecoderClient.Settings(executable: helperPath)
    settings.timeout = timeout
    settings.memoryBytes = memory
    settings.helpers = helpers
    return settings
}

/// Decodes the file at `path` through `client`, waiting on `loop` (without one, in place).
func decode(_ path: String, with client: DecoderClient, loop: EventLoop? = nil, target: TargetSize? = nil, budget: Int = 256 << 20) throws -> Result<
    Picture, ProtocolError
> {
    let (file, _) = try SafeFile.open(path, limit: ImageLimits.fileLimit)
    var result: Result<Picture, ProtocolError>?
    client.decode(file: file, name: path, target: target, output: TargetSize(width: 640, height: 480), budget: budget) {
        result = $0
        loop?.stop()
    }
    if let loop, result == nil {
        let timeout = loop.schedule(after: 30) { loop.stop() }
        loop.run()
        loop.cancel(timeout)
    }
    return try #require(result, "no answer for \(path)")
}

func samePixels(_ a: Surface, _ b: Surface) -> Bool {
    guard a.width == b.width, a.height == b.height else { return false }
    for y in 0..<a.height where !(0..<a.width).allSatisfy({ a.pixels[y * a.stride + $0] == b.pixels[y * b.stride + $0] }) { return false }
    return true
}

@Suite struct DecoderClientTests {
    let quadrants = ImageFixtures.quadrants(width: 48, height: 32)

    @Test func everyFormatComesBackAsTheDecoderInThisProcessDecodesIt() throws {
        let files = try FixtureFiles()
        let client = DecoderClient(settings: settings(), loop: nil, logger: Logger(label: "test"))
        for (name, bytes) in try ImageFixtures.everyFormat() {
            let path = try files.write(name, bytes)
            let picture = try decode(path, with: client).get()
            // (an SVG whose size on screen is not known yet is drawn at its own)
            let fitting = name.hasSuffix(".svg") ? nil : TargetSize(width: 640, height: 480)
            let expected = try ImageDecoder.decode(bytes, fitting: fitting, byteLimit: 256 << 20)
            #expect(picture.format == expected.format, "\(name)")
            #expect(picture.frames.count == expected.frames.count, "\(name)")
            #expect(picture.durations == expected.durations && picture.plays == expected.plays, "\(name)")
            #expect(picture.naturalSize == expected.naturalSize && picture.scaling == expected.scaling, "\(name)")
            for (a, b) in zip(picture.frames, expected.frames) { #expect(samePixels(a, b), "\(name)") }
        }
        #expect(client.started == 0, "without a loop the helper is started in place and kept")
    }
}

/// An SVG whose filters take the decoder seconds: what a file that makes a decoder loop does to it.
let slowSVG: [UInt8] = {
    let filter =
        "<filter id='b' x='-50%' y='-50%' width='200%' height='200%'><feGaussianBlur stdDeviation='80'/><feMorphology operator='dilate' radius='40'/><feGaussianBlur stdDeviation='80'/></filter>"
    var text = "<svg xmlns='http://www.w3.org/2000/svg' width='2000' height='2000'><defs>\(filter)</defs>"
    for i in 0..<400 {
        let colour = String((i * 123_457) % 0xFF_FFFF, radix: 16)
        text += "<rect x='\((i * 37) % 1800)' y='\((i * 53) % 1800)' width='400' height='400' fill='#\(colour)' filter='url(#b)'/>"
    }
    return Array((text + "</svg>").utf8)
}()

extension DecoderClientTests {
    @Test func decodingOnTheLoopAnswersOnTheLoop() throws {
        let files = try FixtureFiles()
        let loop = try EventLoop()
        let client = DecoderClient(settings: settings(), loop: loop, logger: Logger(label: "test"))
        for (name, bytes) in try ImageFixtures.everyFormat() {
            let picture = try decode(try files.write(name, bytes), with: client, loop: loop).get()
            #expect(picture.frames[0].width > 0, "\(name)")
        }
        #expect(client.started == 1, "one helper took the files one after another")
    }

    @Test func corruptAndTruncatedFilesOfEveryFormatAreRefusedAndTheHelperGoesOn() throws {
        let files = try FixtureFiles()
        let loop = try EventLoop()
        let client = DecoderClient(settings: settings(), loop: loop, logger: Logger(label: "test"))
        for (name, bytes) in try ImageFixtures.everyFormat() {
            for (variant, broken) in [
                ("truncated", Array(bytes.prefix(bytes.count / 2))), ("corrupt", bytes.prefix(16) + Array(repeating: 0x5A, count: bytes.count)),
            ] {
                let path = try files.write(variant + "-" + name, broken)
                switch try decode(path, with: client, loop: loop) {
                case .success(let picture):
                    // (a GIF's or a PNG's decoder may show what arrived of a truncated file; it is still a picture of the right size)
                    #expect(variant == "truncated" && picture.frames[0].width > 0, "\(variant) \(name) decoded")
                case .failure(let error):
                    // (a corrupt header may claim a size past the budget)
                    #expect(["content_failed", "limit_exceeded"].contains(error.code) && error.message.hasPrefix(path), "\(variant) \(name): \(error)")
                }
            }
        }
        #expect(try decode(try files.write("good.png", try quadrants.pngData()), with: client, loop: loop).get().frames[0].width == 48)
        #expect(client.started == 1, "refusing a file is no reason to stop the helper")
    }

    @Test func aFileThatTakesTooLongStopsItsHelperAndTheOtherHelperKeepsDecoding() throws {
        let files = try FixtureFiles()
        let loop = try EventLoop()
        let client = DecoderClient(settings: settings(timeout: 1), loop: loop, logger: Logger(label: "test"))
        let slow = try files.write("slow.svg", slowSVG), good = try files.write("good.png", try quadrants.pngData())
        var order: [String] = []
        var slowResult: Result<Picture, ProtocolError>?
        let (slowFile, _) = try SafeFile.open(slow, limit: ImageLimits.fileLimit)
        client.decode(file: slowFile, name: slow, target: nil, output: TargetSize(width: 640, height: 480), budget: 256 << 20) {
            slowResult = $0
            order.append("slow")
            loop.stop()
        }
        let started = Date()
        let picture = try decode(good, with: client, loop: loop).get()
        order.append("good")
        #expect(picture.frames[0].width == 48)
        if slowResult == nil { loop.run() }
        #expect(order == ["good", "slow"])
        let error = try #require(slowResult.flatMap { if case .failure(let e) = $0 { e } else { nil } }, "the slow file was decoded")
        #expect(error.message == "\(slow): the image decoder took longer than 1 s to decode; the decoder was stopped")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(try decode(good, with: client, loop: loop).get().frames[0].width == 48, "a new helper takes the next file")
    }

    @Test(arguments: [(SIGKILL, "was killed (SIGKILL: out of memory, or by an operator)"), (SIGSEGV, "crashed (SIGSEGV)")])
    func aHelperKilledMidDecodeFailsThatFileOnlyAndIsStartedAgain(signal: Int32, says: String) throws {
        let files = try FixtureFiles()
        let loop = try EventLoop()
        let client = DecoderClient(settings: settings(helpers: 1), loop: loop, logger: Logger(label: "test"))
        let slow = try files.write("slow.svg", slowSVG), good = try files.write("good.png", try quadrants.pngData())
        _ = try decode(good, with: client, loop: loop).get()
        let pid = try #require(client.processIDs.first)
        let killer = loop.schedule(after: 0.3) { kill(pid, signal) }
        let result = try decode(slow, with: client, loop: loop)
        loop.cancel(killer)
        #expect(throws: ProtocolError(.contentFailed, "\(slow): the image decoder \(says)")) { try result.get() }
        #expect(try decode(good, with: client, loop: loop).get().frames[0].width == 48)
        #expect(client.started == 2 && client.processIDs != [pid])
    }

    @Test func aHelperOverItsMemoryLimitFailsTheFileAndTheNextOneDecodes() throws {
        let files = try FixtureFiles()
        let loop = try EventLoop()
        let client = DecoderClient(settings: settings(memory: 48 << 20), loop: loop, logger: Logger(label: "test"))
        // 4096×4096 pixels take 64 MB decoded: within the budget, past the helper's data limit.
        let big = try files.write("big.png", try ImageFixtures.solid(0xFF20_4060, width: 4096, height: 4096).pngData())
        let result = try decode(big, with: client, loop: loop, target: TargetSize(width: 4096, height: 4096))
        #expect(throws: ProtocolError(.contentFailed, "\(big): the image decoder ran out of the memory it may use (48 MB) and was stopped")) {
            try result.get()
        }
        #expect(try decode(try files.write("good.png", try quadrants.pngData()), with: client, loop: loop).get().frames[0].width == 48)
    }
}
