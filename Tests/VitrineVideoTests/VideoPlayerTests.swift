import Foundation
import Testing
import VitrineDecoderHelper
import VitrineGStreamer
import VitrineRaster
import VitrineTestSupport
import VitrineVideo

/// `VideoPlayer` on its own, playing videos made by the test: the first frame and its
/// event, the frame due at each position (its colour where the video changes colour,
/// forwards, standing still and back), the end, frames decoded at the size asked for and
/// the bytes that accounts, and a missing file or one that is no video failing with
/// GStreamer's words; each with GStreamer in this process (the helper's decoder) and
/// through the decoder helper (the daemon's).
@Suite struct VideoPlayerTests {
    let files: VideoFiles

    init() throws { files = try VideoFiles() }

    /// Where a test's frames are decoded.
    enum Decoding: String, CaseIterable, CustomTestStringConvertible {
        /// GStreamer in this process, as the helper runs it.
        case inProcess
        /// A `vitrine-decoder --video` helper, as the daemon runs it.
        case helper

        var testDescription: String { rawValue }
    }

    /// A player of `path` decoding at `width` × `height`.
    static func player(_ path: String, width: Int = 32, height: Int = 24, via decoding: Decoding) throws -> VideoPlayer {
        let source = VideoSource(.file(path), width: width, height: height)
        return VideoPlayer(source, decoder: try decoder(source, via: decoding))
    }

    static func decoder(_ source: VideoSource, via decoding: Decoding) throws -> any VideoDecoding {
        switch decoding {
        case .inProcess:
            guard case .file(let path) = source.location else { throw VideoError(message: "a file, please", debug: "") }
            return try GStreamerDecoder(source, uri: try #require(GStreamer.fileURI(path)))
        case .helper:
            return try RemoteVideoDecoder(source, settings: DecoderClient.Settings(executable: decoderHelperPath)) { print("video decoder: \($0)") }
        }
    }

    /// The colour at the middle of the frame shown (transparent before the first).
    static func middle(_ player: VideoPlayer) -> PremultipliedColor {
        guard let surface = player.surface else { return .transparent }
        return surface.pixel(x: surface.width / 2, y: surface.height / 2)
    }

    @Test(arguments: Decoding.allCases) func framesArriveAtTheirPositionsInTheirColours(_ decoding: Decoding) throws {
        // Red for 0.5 s, then blue for 0.5 s.
        let player = try Self.player(try files.make(["red", "blue"]), via: decoding)
        #expect(player.isStarting && player.frame == nil && player.surface == nil)
        #expect(player.advance(to: 0, wait: 10))
        #expect(!player.isStarting && player.frame?.time == 0)
        #expect(Self.middle(player).isNear(red: 255, green: 0, blue: 0), "\(Self.middle(player))")
        let events = player.takeEvents()
        #expect(events.count == 1)
        if case .started(let duration) = events.first {
            #expect(duration.map { abs($0 - 1) < 0.05 } == true, "\(String(describing: duration))")
        } else {
            Issue.record("the first event is \(events)")
        }
        #expect(player.takeEvents().isEmpty)

        #expect(player.advance(to: 0.4, wait: 10))
        let red = try #require(player.frame)
        #expect(abs(red.time - 0.4) < 0.002)
        #expect(Self.middle(player).isNear(red: 255, green: 0, blue: 0))
        #expect(try #require(player.nextFrameTime) > red.time)
        // Standing still, the frame stays.
        #expect(!player.advance(to: 0.4, wait: 10))
        #expect(player.frame?.serial == red.serial)
        #expect(player.advance(to: 0.75, wait: 10))
        let blue = try #require(player.frame)
        #expect(abs(blue.time - 0.733) < 0.002 && blue.serial > red.serial)
        #expect(Self.middle(player).isNear(red: 0, green: 0, blue: 255), "\(Self.middle(player))")
        // Back is a seek: the red part again.
        #expect(player.advance(to: 0.1, wait: 10))
        let back = try #require(player.frame)
        #expect(back.time <= 0.1 + 0.002 && back.time > 0.05, "\(back)")
        #expect(Self.middle(player).isNear(red: 255, green: 0, blue: 0), "\(Self.middle(player))")
        #expect(!player.ended && !player.failed)
    }

    @Test(arguments: Decoding.allCases) func theEndIsShownAndToldOnce(_ decoding: Decoding) throws {
        let player = try Self.player(try files.make(["blue"]), via: decoding)
        #expect(player.advance(to: 0, wait: 10))
        _ = player.takeEvents()
        // Past the end, the last frame.
        player.advance(to: 5, wait: 10)
        #expect(player.ended && !player.failed)
        #expect(abs((player.frame?.time ?? 0) - 0.467) < 0.002, "\(String(describing: player.frame))")
        #expect(player.takeEvents() == [.ended])
        #expect(!player.advance(to: 6, wait: 1) && player.takeEvents().isEmpty)
        #expect(Self.middle(player).isNear(red: 0, green: 0, blue: 255))
    }

    @Test(arguments: Decoding.allCases) func framesAreDecodedAtTheSizeAskedAndAccountedForThatSize(_ decoding: Decoding) throws {
        let source = VideoSource(.file("/unused"), width: 40, height: 30)
        #expect(VideoPlayer.bytes(of: source) == (VideoPlayer.queued + 2) * 40 * 30 * 4)
        let player = try Self.player(try files.make(["red"], frames: 60), width: 40, height: 30, via: decoding)
        #expect(player.bytes == VideoPlayer.bytes(of: source))
        #expect(player.advance(to: 0, wait: 10))
        #expect(player.surface?.width == 40 && player.surface?.height == 30)
        // Bigger: counted at once; the frames decoded from then on have the new size.
        player.resize(width: 96, height: 72)
        #expect(player.size == (96, 72) && player.bytes == (VideoPlayer.queued + 2) * 96 * 72 * 4)
        player.resize(width: 0, height: 10)
        #expect(player.size == (96, 72))
        #expect(player.advance(to: 1, wait: 10))
        #expect(player.surface?.width == 96 && player.surface?.height == 72, "\(String(describing: player.surface?.width))")
        #expect(Self.middle(player).isNear(red: 255, green: 0, blue: 0))
        let surface = try #require(player.surface)
        #expect(surface.width * surface.height * 4 * (VideoPlayer.queued + 2) <= player.bytes)
    }

    @Test func aMissingFileFailsWithGStreamersWords() throws {
        let player = try Self.player(files.directory.appendingPathComponent("missing.mkv").path, via: .inProcess)
        #expect(!player.advance(to: 0, wait: 10))
        #expect(player.failed && !player.isStarting && player.surface == nil)
        let events = player.takeEvents()
        guard case .error(let message, let debug) = events.first, events.count == 1 else {
            Issue.record("events: \(events)")
            return
        }
        #expect(message.lowercased().contains("not found"), "\(message)")
        #expect(debug.contains("missing.mkv"), "\(debug)")
        #expect(!player.advance(to: 1, wait: 1) && player.takeEvents().isEmpty)
    }

    @Test(arguments: Decoding.allCases) func aFileThatIsNoVideoFails(_ decoding: Decoding) throws {
        let player = try Self.player(try files.text(), via: decoding)
        #expect(!player.advance(to: 0, wait: 10))
        #expect(player.failed && player.frame == nil)
        let events = player.takeEvents()
        guard case .error(let message, _) = events.first, events.count == 1 else {
            Issue.record("events: \(events)")
            return
        }
        #expect(message.lowercased().contains("type"), "\(message)")
    }

    @Test func theHelperHandsOverTheMemoryGStreamerWroteEachFrameIn() throws {
        let player = try Self.player(try files.make(["red", "blue"]), via: .helper)
        #expect(player.advance(to: 0.75, wait: 10))
        // The converter's pool is memfds: the daemon maps those, not copies of them.
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps")).readDataToEndOfFile()
        let mapped = String(decoding: maps, as: UTF8.self).split(separator: "\n").filter { $0.contains("memfd:vitrine-video") }
        #expect(!mapped.isEmpty && mapped.allSatisfy { $0.contains("memfd:vitrine-video-frame") }, "\(mapped)")
        #expect(Self.middle(player).isNear(red: 0, green: 0, blue: 255), "\(Self.middle(player))")
    }

    @Test func aHelperWhoseFramesAreNotTakenWaitsWithoutSpinning() throws {
        let source = VideoSource(.file(try files.make(["red"], frames: 60)), width: 32, height: 24)
        let decoder = try RemoteVideoDecoder(source, settings: DecoderClient.Settings(executable: decoderHelperPath)) { print($0) }
        let player = VideoPlayer(source, decoder: decoder)
        #expect(player.advance(to: 0, wait: 10))
        // Its slots are full and nothing is released for a second: it should sleep.
        let before = Self.cpuSeconds(decoder.processID)
        usleep(1_000_000)
        let spent = Self.cpuSeconds(decoder.processID) - before
        #expect(spent < 0.2, "the helper ran \(spent) s of the second it waited")
    }

    /// User and system CPU seconds of process `pid`.
    static func cpuSeconds(_ pid: pid_t) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return ((Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func aMissingFileIsNotHandedToTheHelper() {
        let source = VideoSource(.file(files.directory.appendingPathComponent("missing.mkv").path), width: 32, height: 24)
        #expect {
            _ = try Self.decoder(source, via: .helper)
        } throws: { error in
            (error as? VideoError)?.message.hasSuffix("missing.mkv cannot be opened: No such file or directory") == true
        }
    }

    @Test func aPathIsMadeAFileURI() {
        #expect(GStreamer.fileURI("/tmp/a b/é.mkv") == "file:///tmp/a%20b/%C3%A9.mkv")
    }
}

/// The decoder helper, built beside the tests.
let decoderHelperPath = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vitrine-decoder").path
