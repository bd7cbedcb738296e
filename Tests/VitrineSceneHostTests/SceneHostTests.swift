import Testing
import VitrineCore
import VitrineJSON
import VitrineProtocol
import VitrineRender
import VitrineSceneHost
import VitrineSystem

/// The scene host on its own: commands that change and read the scene, what it says of
/// them, and rolls followed to their end.
@Suite struct SceneHostTests {
    /// A host on a manual clock over a scene with one root, and the notices it gave.
    final class Fixture {
        let scene = Scene()
        let clock = MediaClock(mode: .manual)
        var notices: [SceneNotice] = []
        var host: SceneHost!

        init() throws {
            StandardKinds.register(in: scene)
            try scene.addRoot(id: "root", output: "test", size: Size(width: 320, height: 200))
            host = SceneHost(scene: scene, clock: clock, root: "root", settings: SceneHost.Settings(spring: try Spring())) { [unowned self] in
                notices.append($0)
            }
        }

        /// Runs a request line for client `client`.
        @discardableResult
        func run(_ line: String, client: Int = 7) throws -> JSON {
            guard case .success(let request) = Request.decode(Array(line.utf8)) else { throw SystemError("not a request: \(line)") }
            #expect(SceneHost.executes(request.command))
            return try host.execute(request.command, from: client)
        }

        /// The events said so far, with their owners.
        var events: [(Event, Int?)] {
            notices.compactMap { if case .event(let event, let owner) = $0 { (event, owner) } else { nil } }
        }
    }

    @Test func aLayerWithoutParentGoesUnderTheRootAndTheCommitIsSaid() throws {
        let fixture = try Fixture()
        try fixture.run(#"{"id": 1, "cmd": "layer.add", "layer": "card", "properties": {"opacity": 0.5}}"#)
        #expect(try fixture.scene.parent(of: "card") == "root")
        guard case .committed(addsLayers: true, removesLayers: false) = fixture.notices.last else {
            Issue.record("expected a commit adding layers, got \(fixture.notices)")
            return
        }
        let got = try fixture.run(#"{"id": 2, "cmd": "layer.get", "layer": "card", "keys": ["opacity"]}"#)
        #expect(got["properties"]?["opacity"] == .number(0.5))
        try fixture.run(#"{"id": 3, "cmd": "layer.remove", "layer": "card"}"#)
        guard case .committed(addsLayers: false, removesLayers: true) = fixture.notices.last else {
            Issue.record("expected a commit removing layers, got \(fixture.notices)")
            return
        }
        #expect(!fixture.scene.contains("card"))
    }

    @Test func aTransactionsCompletionGoesToTheClientThatCommittedIt() throws {
        let fixture = try Fixture()
        try fixture.run(#"{"id": 1, "cmd": "layer.add", "layer": "card", "properties": {}}"#)
        let reply = try fixture.run(#"{"id": 2, "cmd": "layer.set", "layer": "card", "properties": {"opacity": 0}}"#, client: 9)
        guard case .number(let id)? = reply["transaction"] else {
            Issue.record("layer.set's reply has no transaction: \(reply)")
            return
        }
        fixture.notices = []
        fixture.host.advance(to: 1)
        let completions = fixture.events.compactMap { event, owner -> Int? in
            if case .transactionCompleted(let tx) = event, Double(tx) == id { owner } else { nil }
        }
        #expect(completions == [9])
        fixture.notices = []
        fixture.host.forget(client: 9)
        try fixture.run(#"{"id": 3, "cmd": "layer.set", "layer": "card", "properties": {"opacity": 1}}"#, client: 9)
        fixture.host.forget(client: 9)
        fixture.host.advance(to: 2)
        #expect(fixture.events.allSatisfy { $0.1 == nil }, "a client gone owns nothing")
    }

    @Test func aRollSaysNumberCompletedOnceItSettles() throws {
        let fixture = try Fixture()
        try fixture.run(#"{"id": 1, "cmd": "layer.add", "layer": "count", "kind": "rolling-number", "properties": {"value": 10}}"#)
        fixture.clock.set(5)
        fixture.host.advance(to: 5)
        fixture.notices = []
        let reply = try fixture.run(#"{"id": 2, "cmd": "number.set", "layer": "count", "value": 12}"#, client: 3)
        #expect(reply["text"] == .string("12"))
        fixture.host.advance(to: 5.01)
        #expect(!fixture.events.contains { if case .numberCompleted = $0.0 { true } else { false } }, "still rolling")
        fixture.host.advance(to: 20)
        let completed = fixture.events.compactMap { event, owner -> (Double, Bool, Int?)? in
            if case .numberCompleted(let layer, let value, let finished, _) = event, layer == "count" { (value, finished, owner) } else { nil }
        }
        #expect(completed.count == 1)
        #expect(completed.first?.0 == 12 && completed.first?.1 == true && completed.first?.2 == 3)
    }

    @Test func aRequestHeldForItsAtIsAppliedAtThatTime() throws {
        let fixture = try Fixture()
        fixture.clock.set(10)
        let time = try fixture.host.applying(at: 4) { () throws -> JSON in
            try fixture.run(#"{"id": 1, "cmd": "time"}"#)
        }
        #expect(time["time"] == .number(4))
        #expect(fixture.host.now == 10)
    }

    @Test func commandsOfOthersAreNotTheScenes() throws {
        #expect(!SceneHost.executes(.outputList))
        #expect(!SceneHost.executes(.clockSet(time: 1)))
        let fixture = try Fixture()
        #expect(throws: ProtocolError.self) { try fixture.host.execute(.outputList, from: 1) }
        #expect(throws: ProtocolError.self) { try fixture.run(#"{"id": 1, "cmd": "layer.set", "layer": "nowhere", "properties": {"opacity": 1}}"#) }
        #expect(fixture.notices.isEmpty, "a refused command commits nothing")
    }
}
