import Logging
import Testing
import VitrineConfig
import VitrineCore
import VitrineInput
import VitrineProtocol
import VitrineSystem
import VitrineWayland
import VitrineWindowHost

/// The window host on its own: no daemon, a scene and a surface renderer of the test's,
/// real programs started on a real event loop.
@Suite struct WindowHostTests {
    /// A host over a fresh scene with one surface layer `win`, its notices collected.
    final class Harness {
        let scene = Scene()
        let surfaces = SurfaceRenderer()
        var notices: [WindowNotice] = []
        let loop: EventLoop?
        var host: WindowHost!

        init(withLoop: Bool, allowCommands: Bool = false) throws {
            scene.register(SurfaceLayer.kind)
            try scene.addRoot(id: "root", output: "test", size: Size(width: 320, height: 200))
            var tx = Transaction(disableActions: true)
            tx.add(layer: "win", kind: SurfaceLayer.kindName, parent: "root", properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 50))])
            try scene.commit(tx, at: 0)
            loop = withLoop ? try EventLoop() : nil
            let settings = WindowHost.Settings(
                compositor: Configuration.Compositor(), keymap: InputSettings.Keymap(), clients: [], allowCommands: allowCommands, waylandSocket: nil)
            host = WindowHost(scene: scene, surfaces: surfaces, settings: settings, loop: loop, logger: Logger(label: "test")) { [unowned self] in
                notices.append($0)
            }
        }

        /// Turns the loop until `done` or `seconds` pass.
        func turn(until done: () -> Bool, seconds: Double = 10) {
            guard let loop else { return }
            let deadline = Double(EventLoop.monotonicNanoseconds()) / 1e9 + seconds
            while !done(), Double(EventLoop.monotonicNanoseconds()) / 1e9 < deadline {
                _ = loop.schedule(after: 0.02) { loop.stop() }
                loop.run()
            }
        }

        /// The client events among the notices.
        var clientEvents: [Event] {
            notices.compactMap {
                guard case .event(let event, _) = $0, event.name.rawValue.hasPrefix("client.") else { return nil }
                return event
            }
        }
    }

    @Test func withoutAWaylandServerSurfaceCommandsSayTheCompositorIsOffAndChangeNothing() throws {
        let h = try Harness(withLoop: false)
        #expect(h.host.list() == .object(["surfaces": .array([])]))
        #expect(throws: ProtocolError.self) { try h.host.assign(1, to: "win") }
        #expect(throws: ProtocolError.self) { try h.host.close(nil, layer: "win") }
        h.host.layersChanged(added: true, removed: true)
        #expect(h.surfaces.assignments.isEmpty)
        #expect(h.notices.isEmpty)
    }

    @Test func withoutALoopItRunsNoPrograms() throws {
        let h = try Harness(withLoop: false, allowCommands: true)
        do {
            _ = try h.host.startClient("sleeper", program: ClientProgram(command: ["/bin/sleep", "30"]))
            Issue.record("a host without a loop started a program")
        } catch {
            #expect(error.code == "not_allowed")
        }
        #expect(h.host.clientList() == .object(["clients": .array([])]))
    }

    @Test func aCommandGivenProgramIsRefusedUnlessAllowed() throws {
        let h = try Harness(withLoop: true, allowCommands: false)
        #expect(throws: ProtocolError.self) { try h.host.startClient("sleeper", program: ClientProgram(command: ["/bin/sleep", "30"])) }
        #expect(h.host.clientFigures.isEmpty)
        #expect(h.notices.isEmpty)
    }

    @Test func aLaunchedProgramIsStartedAndStoppedWithItsEvents() throws {
        let h = try Harness(withLoop: true, allowCommands: true)
        var program = ClientProgram(command: ["/bin/sleep", "30"])
        program.restart = .never
        let started = try h.host.startClient("sleeper", program: program)
        #expect(started["state"] == .string("running"))
        // client.started follows the reply of the command that started it.
        guard case .event(.clientStarted(let name, let pid, _), afterReply: true)? = h.notices.first else {
            Issue.record("no client.started after the reply: \(h.notices)")
            return
        }
        #expect(name == "sleeper" && pid > 0)
        #expect(h.host.clientFigures.map(\.name) == ["sleeper"] && h.host.clientFigures[0].running)
        var stopped: JSON?
        h.host.stopClient("sleeper") { result in stopped = try? result.get() }
        h.turn(until: { stopped != nil })
        #expect(stopped?["state"] == .string("stopped"))
        guard case .clientExited(_, _, let exit, let state)? = h.clientEvents.last else {
            Issue.record("no client.exited: \(h.notices)")
            return
        }
        #expect(state == .stopped)
        #expect(exit == .signaled("SIGTERM"))
        #expect(h.host.clientFigures.first?.running == false)
    }
}
