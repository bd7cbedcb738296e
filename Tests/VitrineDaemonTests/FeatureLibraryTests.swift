import Foundation
import Testing
import VitrineDaemonTestSupport

/// What isn't used isn't loaded: the C libraries of the features a daemon may go without —
/// input devices, keyboards, the seat manager, udev, the X11 and Wayland windows, the
/// Wayland server, the identification screen's QR code — are not in the process until the feature starts.
@Suite struct FeatureLibraryTests {
    static let libraries: Set<String> = [
        "libinput.so.10", "libudev.so.1", "libseat.so.1", "libxkbcommon.so.0", "libxkbcommon-x11.so.0", "libxcb.so.1", "libxcb-shm.so.0",
        "libxcb-composite.so.0", "libxcb-res.so.0", "libwayland-client.so.0", "libwayland-server.so.0", "libneatvnc.so.0", "libaml.so.0",
        "libqrencode.so.4", "libsystemd.so.0",
        "libpam.so.0",
    ]

    /// Those of `libraries` that the daemon maps (a file of the name, or of the name and a
    /// version: libxcb.so.1.1.0), once it answers on its socket (everything it starts before
    /// its loop runs has started).
    static func mapped(by daemon: DaemonProcess) throws -> Set<String> {
        _ = try daemon.connect().drain()
        // (read to its end: /proc says it is empty, and String(contentsOfFile:) stops early)
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(daemon.pid)/maps"))
        let maps = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        let files = Set(maps.split(separator: "\n").compactMap { $0.split(separator: " ").last?.split(separator: "/").last.map(String.init) })
        return libraries.filter { name in files.contains { $0 == name || $0.hasPrefix(name + ".") } }
    }

    @Test func aHeadlessDaemonMapsNoneOfThem() throws {
        let daemon = try DaemonProcess()
        #expect(try Self.mapped(by: daemon).isEmpty)
    }

    @Test func theWaylandServerMapsLibwaylandServerWhenItStarts() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-lazy-\(UUID().uuidString.prefix(8)).toml").path
        try "[compositor]\nenabled = true\nsocket = \"wl\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let mapped = try Self.mapped(by: daemon)
        #expect(mapped.contains("libwayland-server.so.0"), "\(mapped.sorted())")
        // The server's seat compiles the keymap; no client, X11 or input device library comes with them.
        #expect(mapped.isSubset(of: ["libwayland-server.so.0", "libxkbcommon.so.0"]), "\(mapped.sorted())")
    }

    @Test func remoteViewMapsNeatVNCWhenAListenerStarts() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-lazy-\(UUID().uuidString.prefix(8)).toml").path
        let port = try RemoteViewTests.freePort()
        try "[remote]\nvnc = \"127.0.0.1:\(port)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(arguments: ["--config", config])
        let mapped = try Self.mapped(by: daemon)
        #expect(mapped == ["libneatvnc.so.0", "libaml.so.0"], "\(mapped.sorted())")
    }

    @Test func theIdentificationScreenMapsLibqrencodeAndLibsystemdWhenItShows() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-lazy-\(UUID().uuidString.prefix(8)).toml").path
        try "[scene]\nidentify = true\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(arguments: ["--config", config])
        #expect(try Self.mapped(by: daemon) == ["libqrencode.so.4", "libsystemd.so.0"])
    }

    @Test(.enabled(if: XServer.executable != nil, "Xvfb is not installed: apt-get install xvfb (CI installs it)"))
    func theX11WindowMapsXcbWhenItOpens() throws {
        let server = try XServer()
        let daemon = try DaemonProcess(backend: "x11", environment: ["DISPLAY": server.display], arguments: ["--mode", "120x80@60"])
        let mapped = try Self.mapped(by: daemon)
        #expect(mapped.isSuperset(of: ["libxcb.so.1", "libxcb-shm.so.0", "libxkbcommon-x11.so.0", "libxkbcommon.so.0"]), "\(mapped.sorted())")
        #expect(!mapped.contains("libwayland-client.so.0") && !mapped.contains("libinput.so.10"), "\(mapped.sorted())")
    }

    /// X11 programs on demand: the display's sockets are the daemon's from the start, xcb
    /// comes when the first X11 program connects (Xwayland's window manager).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/Xwayland"), "Xwayland is not installed: apt-get install xwayland"))
    func x11ProgramsMapXcbOnceOneConnects() throws {
        let config = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-lazy-\(UUID().uuidString.prefix(8)).toml").path
        try "[compositor]\nenabled = true\nsocket = \"wl\"\nxwayland = \"on-demand\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let daemon = try DaemonProcess(arguments: ["--config", config, "--log-level", "info"])
        let before = try Self.mapped(by: daemon)
        #expect(before.isSubset(of: ["libwayland-server.so.0", "libxkbcommon.so.0"]), "\(before.sorted())")
        let log = daemon.standardError
        let display = try #require(log.range(of: "on display ").map { String(log[$0.upperBound...].prefix { $0 != " " }) }, "\(log)")
        let client = try X11TestClient(display: display, instance: "lazy", className: "Lazy")
        try client.waitUntilExposed()
        let after = try Self.mapped(by: daemon)
        #expect(after.isSuperset(of: ["libxcb.so.1", "libxcb-composite.so.0", "libxcb-res.so.0"]), "\(after.sorted())")
        #expect(!after.contains("libxcb-shm.so.0") && !after.contains("libwayland-client.so.0"), "\(after.sorted())")
    }
}
