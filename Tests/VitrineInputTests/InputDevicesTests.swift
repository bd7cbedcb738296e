import Logging
import Synchronization
import Testing
import VitrineSystem
@testable import VitrineInput

/// `InputDevices` against the real libinput and udev of the machine the tests run on,
/// which may have no input devices at all (a container, CI): it starts, says what it
/// found, and stops without leaving anything behind. Devices themselves are exercised in
/// the QEMU guest test, with uinput.
@Suite struct InputDevicesTests {
    /// Log lines, kept.
    final class Lines: Sendable {
        let lines = Mutex<[(Logger.Level, String)]>([])
        var all: [(Logger.Level, String)] { lines.withLock { $0 } }
    }

    struct Recorder: LogHandler {
        let lines: Lines
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String, function: String, line: UInt) {
            lines.lines.withLock { $0.append((level, message.description)) }
        }
    }

    @Test func startsOnTheSeatSaysWhatItFoundAndStops() throws {
        let lines = Lines()
        let logger = Logger(label: "test") { _ in Recorder(lines: lines) }
        let loop = try EventLoop()
        var settings = InputSettings()
        settings.keymap.layout = "us"
        let input = try InputDevices(settings: settings, output: OutputGeometry(width: 640, height: 480), loop: loop, logger: logger) { _ in }
        #expect(input.settings.seat == "seat0")
        #expect(lines.all.contains { $0.1.hasPrefix("input: ") && $0.1.contains("seat0") }, "\(lines.all.map(\.1))")
        try input.apply(settings)
        input.update(output: OutputGeometry(width: 480, height: 640, rotation: 90))
        #expect(input.output.panelWidth == 640)
        input.suspend()
        input.resume()
        input.stop()
        input.stop()
    }

    @Test func aKeymapThatDoesNotCompileIsThrownBeforeAnyDeviceIsOpened() throws {
        let loop = try EventLoop()
        var settings = InputSettings()
        settings.keymap.layout = "zz"
        #expect(throws: InputError.self) {
            _ = try InputDevices(settings: settings, output: OutputGeometry(width: 10, height: 10), loop: loop, logger: Logger(label: "test")) { _ in }
        }
    }
}
