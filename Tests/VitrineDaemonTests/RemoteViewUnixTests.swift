import Foundation
import Testing
import VitrineProtocol
import VitrineRaster
import VitrineTestSupport

/// A VNC listener on a Unix socket: viewers that connect and hang up at once, before the
/// server's greeting (which Neat VNC 0.5.4 alone would free twice), leave the daemon
/// serving, and a viewer (vncdotool over the socket) then sees what `screenshot` shows.
@Suite struct RemoteViewUnixTests {
    @Test(.enabled(if: RemoteViewTests.hasVncdo, "vncdotool is not installed: pip install vncdotool (CI installs it)"))
    func viewersThatHangUpAtOnceLeaveTheUnixListenerServing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-vnc-unix-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("vnc.sock").path
        let config = directory.appendingPathComponent("vitrine.toml").path
        try "[output]\nheadless_size = \"320x200\"\n[remote]\nvnc = \"\(path)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let c = try daemon.connect()
        for line in RemoteViewTests.scene { try c.ok(line) }
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o660)
        for k in 0..<100 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            #expect(connectUnixSocket(fd, path) == 0)
            if k % 2 == 1 { shutdown(fd, Int32(SHUT_RDWR)) }
            close(fd)
        }
        try c.ok(#"{"cmd": "subscribe", "events": ["remote.connected"]}"#)
        let viewer = try RemoteViewer(path, seconds: 2, in: directory)
        let connected = try c.waitForEvent("remote.connected", timeout: 20)
        #expect(connected["peer"] == .string("unix"), "\(connected.text)")
        let (picture, updates) = try viewer.finish()
        #expect(!updates.isEmpty)
        let difference = GoldenImage.difference(picture, try c.screenshot("screen"), tolerance: 2)
        #expect(difference.differing == 0 && daemon.isRunning, "\(difference.differing) pixels differ")
    }
}
