import CX11
import Foundation
import Testing

@testable import VitrineXWayland

/// The X11 display's sockets and lock file, and the properties the window manager reads,
/// without an X server.
@Suite(.serialized) struct XDisplaySocketsTests {
    /// The lowest display number with neither a lock file nor a socket file.
    static func freeNumber() -> Int? {
        XDisplaySockets.numbers.first {
            !FileManager.default.fileExists(atPath: XDisplaySockets.lockPath($0)) && !FileManager.default.fileExists(atPath: XDisplaySockets.socketPath($0))
        }
    }

    @Test func aDisplayHoldsItsLockFileAndSocketsUntilItGoes() throws {
        var first: XDisplaySockets? = try XDisplaySockets()
        let number = try #require(first?.number)
        let lock = try String(contentsOfFile: XDisplaySockets.lockPath(number), encoding: .utf8)
        #expect(
            lock == String(repeating: " ", count: max(0, 10 - String(getpid()).count)) + "\(getpid())\n", "the lock file holds our pid as X servers write it")
        #expect(FileManager.default.fileExists(atPath: XDisplaySockets.socketPath(number)))
        // A second display of the same process takes another number.
        let second = try XDisplaySockets()
        #expect(second.number != number)
        first = nil
        #expect(!FileManager.default.fileExists(atPath: XDisplaySockets.lockPath(number)))
        #expect(!FileManager.default.fileExists(atPath: XDisplaySockets.socketPath(number)))
    }

    @Test func aLockFileOfAProcessThatIsGoneIsTakenOver() throws {
        let number = try #require(Self.freeNumber())
        // A pid no process has (pid_max is at most 2^22).
        try "   9999999\n".write(toFile: XDisplaySockets.lockPath(number), atomically: false, encoding: .utf8)
        defer { unlink(XDisplaySockets.lockPath(number)) }
        let display = try XDisplaySockets()
        #expect(display.number <= number, "the stale lock of :\(number) was not taken over")
    }

    @Test func aLockFileOfALiveProcessIsLeftAlone() throws {
        let number = try #require(Self.freeNumber())
        // pid 1 is always there.
        try "         1\n".write(toFile: XDisplaySockets.lockPath(number), atomically: false, encoding: .utf8)
        defer { unlink(XDisplaySockets.lockPath(number)) }
        let display = try XDisplaySockets()
        #expect(display.number != number)
        #expect(try String(contentsOfFile: XDisplaySockets.lockPath(number), encoding: .utf8) == "         1\n")
    }

    @Test func propertiesAreReadAsICCCMWritesThem() {
        var latin = PropertyValue()
        latin.bytes = [0x63, 0x61, 0x66, 0xE9, 0]  // "café" in Latin-1, NUL-terminated
        (latin.format, latin.type) = (8, XCB_ATOM_STRING.rawValue)
        #expect(latin.text == "café")
        var utf8 = PropertyValue()
        utf8.bytes = Array("café ☕".utf8)
        (utf8.format, utf8.type) = (8, 999)
        #expect(utf8.text == "café ☕")
        var words = PropertyValue()
        words.bytes = [1, 0, 0, 0, 0x44, 0x33, 0x22, 0x11, 9]
        words.format = 32
        #expect(words.words == [1, 0x1122_3344], "whole 32-bit items only")
        words.format = 8
        #expect(words.words.isEmpty)
    }
}
