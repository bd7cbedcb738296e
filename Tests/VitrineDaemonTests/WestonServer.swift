import Foundation
import VitrineRaster

/// A Weston started for a test with its desktop shell and the pixman renderer, on a socket
/// in a runtime directory of its own: headless (`headless-backend.so`), or in a window on an
/// X server (`x11-backend.so`), where the X server's pointer and keyboard are its seat.
/// Stopped when released.
final class WestonServer {
    let runtimeDirectory: String
    let socket = "wayland-vitrine-test"
    private let process: ChildProcess
    private let log: String

    /// The weston binary, or nil when it is not installed.
    static var executable: String? {
        ["/usr/bin/weston", "/usr/local/bin/weston"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The environment a client of this compositor runs with.
    var clientEnvironment: [String: String] { ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": socket] }

    /// Starts Weston with one `width`×`height` output: headless, or on `x` (in a window);
    /// with its fullscreen shell (no xdg_wm_base) instead of the desktop shell if asked.
    init(width: Int, height: Int, on x: XServer? = nil, fullscreenShell: Bool = false) throws {
        guard let executable = Self.executable else { throw DaemonError("weston is not installed (apt-get install weston)") }
        runtimeDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-weston-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: runtimeDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        log = runtimeDirectory + "/weston.log"
        let backend =
            (x == nil ? ["--backend=headless-backend.so", "--debug"] : ["--backend=x11-backend.so"]) + (fullscreenShell ? ["--shell=fullscreen-shell.so"] : [])
        var environment = ["XDG_RUNTIME_DIR": runtimeDirectory, "WAYLAND_DISPLAY": ""]
        if let x { environment["DISPLAY"] = x.display }
        process = try ChildProcess(
            executable,
            backend + ["--socket=\(socket)", "--width=\(width)", "--height=\(height)", "--use-pixman", "--idle-time=0", "--no-config", "--log=\(log)"],
            stderrPath: runtimeDirectory + "/weston.stderr", environment: environment)
        let deadline = Date().addingTimeInterval(20)
        // Ready once the desktop shell's client is launched and the socket is there.
        while !((fullscreenShell || standardLog.contains("weston-desktop-shell'")) && FileManager.default.fileExists(atPath: runtimeDirectory + "/" + socket)) {
            guard process.isRunning, Date() < deadline else {
                if process.isRunning { _ = process.terminate() }
                throw DaemonError("weston did not start: \(standardLog)")
            }
            usleep(20_000)
        }
        usleep(300_000)
    }

    deinit {
        if process.isRunning { _ = process.terminate() }
        try? FileManager.default.removeItem(atPath: runtimeDirectory)
    }

    /// Weston's log so far.
    var standardLog: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    /// Ends the compositor, as a session that goes away.
    func kill() { _ = process.terminate() }

    /// What Weston's output shows, through its screenshooter (headless Weston, with
    /// `--debug`, lets any client take one).
    func screenshot() throws -> Surface {
        let directory = runtimeDirectory + "/shots-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let shooter = try ChildProcess(
            "/bin/sh", ["-c", "cd \"$0\" && exec weston-screenshooter", directory], stderrPath: directory + ".stderr", environment: clientEnvironment)
        guard shooter.wait(timeout: 20) == 0, let file = try FileManager.default.contentsOfDirectory(atPath: directory).first(where: { $0.hasSuffix(".png") })
        else {
            throw DaemonError("weston-screenshooter failed: \((try? String(contentsOfFile: directory + ".stderr", encoding: .utf8)) ?? "")")
        }
        return try Surface(contentsOfPNG: directory + "/" + file)
    }
}

extension Surface {
    /// Where `picture` appears whole, pixel for pixel (alpha aside), in this image; nil
    /// when it does not.
    func origin(of picture: Surface) -> (x: Int, y: Int)? {
        guard picture.width <= width, picture.height <= height else { return nil }
        let first = picture.pixels[0] & 0xFF_FFFF
        for y in 0...(height - picture.height) {
            for x in 0...(width - picture.width) where pixels[y * stride + x] & 0xFF_FFFF == first {
                var same = true
                rows: for row in 0..<picture.height {
                    for column in 0..<picture.width
                    where pixels[(y + row) * stride + x + column] & 0xFF_FFFF != picture.pixels[row * picture.stride + column] & 0xFF_FFFF {
                        same = false
                        break rows
                    }
                }
                if same { return (x, y) }
            }
        }
        return nil
    }
}
