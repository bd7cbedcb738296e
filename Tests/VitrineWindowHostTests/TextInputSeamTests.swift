import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
import VitrineInput
import VitrineSystem
import VitrineWayland
import VitrineWindowHost

/// The seam the daemon's own on-screen keyboard uses (WindowHost+TextInput.swift), with a
/// real Wayland server on a real loop and foot (which speaks `zwp_text_input_v3`) in the
/// surface layer `win`: a touch on it brings `WindowNotice.textInput` with foot's purpose
/// and its cursor in root coordinates; `commitText` and `pressKey` reach foot's shell; foot
/// gone, the notice says no field is enabled.
@Suite(.serialized) struct TextInputSeamTests {
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/foot"), "apt-get install foot"))
    func theKeyboardSeamHearsFootsFieldAndTypesIntoIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-seam-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let scene = Scene()
        scene.register(SurfaceLayer.kind)
        try scene.addRoot(id: "root", output: "TEST-1", size: Size(width: 640, height: 400))
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "win", kind: SurfaceLayer.kindName, parent: "root",
            properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 400, height: 200)), "position": .point(Point(x: 300, y: 200))])
        try scene.commit(tx, at: 0)
        let loop = try EventLoop()
        var compositor = Configuration.Compositor()
        compositor.rules = [.init(appID: "foot", layer: "win")]
        let settings = WindowHost.Settings(compositor: compositor, keymap: InputSettings.Keymap(), clients: [], allowCommands: false, waylandSocket: nil)
        var notices: [WindowNotice] = []
        let host = WindowHost(scene: scene, surfaces: SurfaceRenderer(), settings: settings, loop: loop, logger: Logger(label: "test")) {
            notices.append($0)
        }
        let path = directory + "/wl"
        let server = try WaylandServer(
            listening: try Self.listen(path), outputs: [.init(name: "TEST-1", width: 640, height: 400, rate: 60)], loop: loop, logger: Logger(label: "test"))
        host.serve(server)
        defer { server.disconnectClients() }
        func turn(until done: () -> Bool) {
            let deadline = Date().addingTimeInterval(15)
            while !done(), Date() < deadline {
                _ = loop.schedule(after: 0.02) { loop.stop() }
                loop.run()
            }
        }

        let typed = directory + "/typed"
        try "[main]\nfont=DejaVu Sans Mono:size=10\n[csd]\npreferred=none\n".write(toFile: directory + "/foot.ini", atomically: true, encoding: .utf8)
        let foot = Process()
        foot.executableURL = URL(fileURLWithPath: "/usr/bin/foot")
        foot.arguments = ["--config", directory + "/foot.ini", "/bin/sh", "-c", "stty -icanon -echo; exec cat > \(typed)"]
        foot.environment = ["WAYLAND_DISPLAY": path, "XDG_RUNTIME_DIR": directory, "HOME": directory, "PATH": "/usr/bin:/bin"]
        foot.standardError = FileHandle.nullDevice
        try foot.run()
        defer { if foot.isRunning { foot.terminate() } }
        turn { host.list().text.contains("\"layer\":\"win\"") }
        #expect(host.textInputFocus == nil)

        host.handle(.touch(TouchEvent(time: 1, phase: .down, id: 1, point: Point(x: 300, y: 200))), at: 0, on: InputPlacement(root: "root"))
        host.handle(.touch(TouchEvent(time: 1.05, phase: .up, id: 1, point: Point(x: 300, y: 200))), at: 0, on: InputPlacement(root: "root"))
        turn { host.textInputFocus != nil }
        let focus = try #require(host.textInputFocus, "foot enabled no text input on the touch")
        #expect(focus.state.purpose == .terminal)
        #expect(notices.contains(.textInput(focus)))
        let cursor = try #require(focus.cursor, "foot gives its cursor")
        #expect(cursor.minX >= 100 && cursor.maxX <= 500 && cursor.minY >= 100 && cursor.maxY <= 300, "\(cursor) is within the layer at (100, 100)–(500, 300)")

        #expect(host.commitText("seam "))
        host.pressKey(30, pressed: true)
        host.pressKey(30, pressed: false)
        var text = ""
        turn {
            text = (try? String(contentsOfFile: typed, encoding: .utf8)) ?? ""
            return text == "seam a"
        }
        #expect(text == "seam a")

        foot.terminate()
        turn { host.textInputFocus == nil }
        #expect(host.textInputFocus == nil && notices.last(where: { if case .textInput = $0 { true } else { false } }) == .textInput(nil))
        #expect(!host.commitText("gone"), "no field is enabled")
    }

    /// A listening, non-blocking, close-on-exec Unix socket at `path`.
    static func listen(_ path: String) throws -> OwnedDescriptor {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0, Glibc.listen(fd, 16) == 0 else { throw SystemError("cannot listen on \(path)") }
        return OwnedDescriptor(fd)
    }
}
