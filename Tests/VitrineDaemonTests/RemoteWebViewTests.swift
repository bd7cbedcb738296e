import Foundation
import Testing
import VitrineRaster

/// The package's web view (systemd/vitrine-novnc.service): websockify serving Debian's
/// noVNC against the daemon's VNC listener, opened by headless Chromium — the page shows
/// the kiosk's picture, pixel for pixel.
@Suite struct RemoteWebViewTests {
    static let unit = GoldenImage.packageRoot.appendingPathComponent("systemd/vitrine-novnc.service").path

    static var available: Bool {
        ["/usr/bin/websockify", "/usr/bin/chromium"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
            && FileManager.default.fileExists(atPath: "/usr/share/novnc/vnc_lite.html")
    }

    @Test(.enabled(if: available, "novnc, websockify or chromium is not installed (CI installs them)"))
    func chromiumShowsTheKioskThroughNoVNC() throws {
        let (daemon, port) = try RemoteViewTests.daemon()
        let c = try daemon.connect()
        try c.ok(##"{"cmd": "layer.add", "layer": "mark", "properties": {"bounds": [0, 0, 100, 50], "position": [160, 100], "backgroundColor": "#ff00ff"}}"##)
        try c.ok(
            ##"{"cmd": "layer.add", "layer": "count", "kind": "rolling-number", "properties": {"bounds": [0, 0, 200, 50], "position": [160, 170], "fontSize": 36, "value": 1234, "foregroundColor": "#ffffff"}}"##
        )
        let screen = try c.screenshot("screen")

        // The example unit's own command, on this test's ports.
        let unit = try String(contentsOfFile: Self.unit, encoding: .utf8)
        let exec = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=") }).dropFirst("ExecStart=".count)
        let web = try RemoteViewTests.freePort()
        let command = exec.replacingOccurrences(of: "127.0.0.1:6080", with: "127.0.0.1:\(web)")
            .replacingOccurrences(of: "127.0.0.1:5900", with: "127.0.0.1:\(port)").split(separator: " ").map(String.init)
        let websockify = try ChildProcess(command[0], Array(command.dropFirst()), stderrPath: daemon.directory.appendingPathComponent("websockify.log").path)
        defer { _ = websockify.terminate() }
        let deadline = Date().addingTimeInterval(10)
        while !Self.listens(web), Date() < deadline { usleep(50_000) }

        // Headless Chromium takes its screenshot once the page has run for 3 s of its
        // virtual time; a page that still lacks noVNC's first update is taken again.
        let shot = daemon.directory.appendingPathComponent("page.png").path
        var page: Surface?
        var corner: (x: Int, y: Int)?
        for attempt in 0..<3 where corner == nil {
            let (status, stderr) = try ChildProcess.runToExit(
                "/usr/bin/chromium",
                [
                    "--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(daemon.directory.path)/chromium-\(attempt)", "--window-size=640,400",
                    "--virtual-time-budget=3000",
                    "--screenshot=\(shot)", "http://127.0.0.1:\(web)/vnc_lite.html?host=127.0.0.1&port=\(web)",
                ], timeout: 60)
            try #require(status == 0, "\(stderr)")
            page = try Surface(contentsOfPNG: shot)
            corner = Self.magenta(in: page!).map { ($0.x - 110, $0.y - 75) }
        }
        let origin = try #require(corner, "the page never showed the picture (no magenta): \(shot)")
        let shown = page!.copy(PixelRect(x: origin.x, y: origin.y, width: 320, height: 200))
        let difference = GoldenImage.difference(shown, screen, tolerance: 2)
        #expect(
            shown.width == 320 && shown.height == 200 && difference.differing == 0,
            "\(difference.differing) pixels differ by up to \(difference.worst): \(shot)")
    }

    /// The first pixel of the mark's colour, row by row.
    static func magenta(in page: Surface) -> (x: Int, y: Int)? {
        for y in 0..<page.height {
            for x in 0..<page.width where page.pixel(x: x, y: y).argb & 0xFF_FFFF == 0xFF_00FF { return (x, y) }
        }
        return nil
    }

    static func listens(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in(
            sin_family: sa_family_t(AF_INET), sin_port: UInt16(port).bigEndian, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")),
            sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}
