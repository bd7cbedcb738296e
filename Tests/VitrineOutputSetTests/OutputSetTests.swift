import Logging
import Testing
import VitrineConfig
import VitrineCore
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol
import VitrineRender
import VitrineSystem

/// The output set on its own: heads and their roots, frames and what it says of them,
/// power, outputs plugged in and unplugged.
@Suite struct OutputSetTests {
    /// An output set on a manual clock over a fresh scene, and the notices it gave.
    final class Fixture {
        let scene = Scene()
        let clock = MediaClock(mode: .manual)
        var notices: [OutputNotice] = []
        var outputs: OutputSet!

        init(_ backends: [OutputBackend], entries: [Configuration.OutputEntry] = [], grace: Double = 0) throws {
            StandardKinds.register(in: scene)
            let settings = OutputSet.Settings(outputs: entries, wall: Configuration.Wall(), background: Color(css: "#102030")!, hotplugGrace: grace)
            outputs = try OutputSet(
                backends, settings: settings, scene: scene, renderer: StandardKinds.renderer(), clock: clock, loop: nil, logger: Logger(label: "test")
            ) { [unowned self] in notices.append($0) }
        }

        /// The notices' cases, by name, in order.
        var names: [String] { notices.map { "\($0)".prefix { $0 != "(" }.description } }
    }

    @Test func eachOutputShowsItsOwnRoot() throws {
        let first = try HeadlessOutput(name: "HDMI-A-1", width: 64, height: 48)
        let second = try HeadlessOutput(name: "DP-1", width: 32, height: 24)
        let fixture = try Fixture([first, second])
        #expect(fixture.outputs.heads.map(\.root) == ["root", "DP-1"])
        #expect(fixture.outputs.root == "root")
        #expect(try fixture.scene.modelValues(of: "DP-1").rect(.bounds).size == Size(width: 32, height: 24))
        #expect(try fixture.outputs.head(named: "DP-1") === fixture.outputs.heads[1])
        #expect(try fixture.outputs.head(named: nil) === fixture.outputs.heads[0])
        #expect(throws: ProtocolError.self) { try fixture.outputs.head(named: "VGA-1") }
    }

    @Test func aFrameAdvancesTheSceneFirstAndPresentsOnEveryOutput() throws {
        let first = try HeadlessOutput(name: "HDMI-A-1", width: 64, height: 48)
        let second = try HeadlessOutput(name: "DP-1", width: 32, height: 24)
        let fixture = try Fixture([first, second])
        #expect(fixture.outputs.renderFrame())
        // (a headless output shows its frame as it is presented: the primary's is `shown`)
        #expect(fixture.names == ["frameStarting", "rendering", "shown", "rendered", "rendering", "rendered", "frameEnded"])
        #expect(first.presentedFrames == 1 && second.presentedFrames == 1)
        #expect(first.frontBuffer?.pixel(x: 10, y: 10).argb == 0xFF10_2030)
        #expect(fixture.outputs.statistics.frames == 2)
        #expect(fixture.outputs.statistics.pixels == 64 * 48 + 32 * 24)
        fixture.notices = []
        #expect(!fixture.outputs.renderFrame(), "nothing changed: nothing presented")
        #expect(first.presentedFrames == 1)
        guard case .rendered(_, let frame, let presented) = fixture.notices[2], case .rendering = fixture.notices[1] else {
            Issue.record("expected rendered, got \(fixture.notices)")
            return
        }
        #expect(frame == 2 && !presented)
    }

    @Test func blankingTellsWhetherAnyOutputIsAwakeAndSendsTheEventAfterTheReply() throws {
        let output = try HeadlessOutput(name: "HDMI-A-1", width: 64, height: 48)
        let fixture = try Fixture([output])
        try fixture.outputs.setPower(fixture.outputs.heads[0], on: false, reason: .command)
        #expect(!output.isPowered)
        guard case .powered(false) = fixture.notices.first,
            case .event(.outputPower(let name, _, let on, .command), afterReply: true) = fixture.notices.last
        else {
            Issue.record("expected powered(false) and the event after the reply, got \(fixture.notices)")
            return
        }
        #expect(name == "HDMI-A-1" && !on)
        fixture.notices = []
        #expect(!fixture.outputs.renderFrame(), "a blanked output draws nothing")
        try fixture.outputs.setPower(fixture.outputs.heads[0], on: true, reason: .schedule)
        #expect(output.isPowered && output.presentedFrames == 1, "woken: drawn whole at once")
        guard case .event(_, afterReply: false) = fixture.notices.last else {
            Issue.record("a schedule's event goes out at once, got \(fixture.notices)")
            return
        }
    }

    @Test func anUnpluggedOutputsRootGoesAfterItsGraceAndAReturningOneGetsAFreshRoot() throws {
        let first = try HeadlessOutput(name: "HDMI-A-1", width: 64, height: 48)
        let second = try HeadlessOutput(name: "DP-1", width: 32, height: 24)
        let fixture = try Fixture([first, second], grace: 0)
        fixture.notices = []
        fixture.outputs.unplug(second)
        #expect(fixture.outputs.heads.count == 1)
        #expect(!fixture.scene.contains("DP-1"), "a grace of 0: the root goes at once")
        #expect(fixture.names == ["powered", "headRemoved", "event", "sceneChanged"])
        fixture.notices = []
        let again = try HeadlessOutput(name: "DP-1", width: 40, height: 30)
        fixture.outputs.plug(again)
        #expect(fixture.outputs.heads.map(\.root) == ["root", "DP-1"])
        #expect(!fixture.outputs.heads[1].restored)
        #expect(fixture.names.prefix(3) == ["powered", "headAdded", "event"])
        #expect(again.presentedFrames == 1, "drawn at once with the manual clock")
        fixture.outputs.plug(try HeadlessOutput(name: "DP-1", width: 40, height: 30))
        #expect(fixture.outputs.heads.count == 2, "the same connector twice is not drawn twice")
    }

    @Test func anOutputReturningWithinItsGraceKeepsItsRoot() throws {
        let first = try HeadlessOutput(name: "HDMI-A-1", width: 64, height: 48)
        let second = try HeadlessOutput(name: "DP-1", width: 32, height: 24)
        let fixture = try Fixture([first, second], grace: 600)
        var tx = Transaction(disableActions: true)
        tx.add(layer: "clock", parent: "DP-1", properties: [:])
        _ = try fixture.scene.commit(tx, at: 0)
        fixture.outputs.unplug(second)
        #expect(fixture.scene.contains("clock"), "kept for the grace")
        fixture.outputs.plug(try HeadlessOutput(name: "DP-1", width: 32, height: 24))
        #expect(fixture.outputs.heads[1].restored)
        #expect(fixture.scene.contains("clock"))
    }
}
