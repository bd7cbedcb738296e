import Logging
import Testing
import VitrineSystem
import VitrineTestSupport
@testable import VitrineInput

/// `InputDevices` against the real libinput and udev of the machine the tests run on,
/// which may have no input devices at all (a container, CI): it starts, says what it
/// found, and stops without leaving anything behind. Devices themselves are exercised in
/// the QEMU guest test, with uinput.
@Suite struct InputDevicesTests {
    @Test func startsOnTheSeatSaysWhatItFoundAndStops() throws {
        let log = LogRecorder()
        let logger = log.logger
        let loop = try EventLoop()
        var settings = InputSettings()
        settings.keymap.layout = "us"
        let input = try InputDevices(settings: settings, output: OutputGeometry(width: 640, height: 480), loop: loop, logger: logger) { _ in }
        #expect(input.settings.seat == "seat0")
        #expect(log.lines.contains { $0.message.hasPrefix("input: ") && $0.message.contains("seat0") }, "\(log.lines.map { $0.message })")
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
