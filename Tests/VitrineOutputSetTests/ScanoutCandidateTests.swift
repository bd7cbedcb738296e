import Testing
import VitrineCore
import VitrineOutputSet
import VitrineRender

/// Which frames an output may show as a hosted window's buffer (direct scan-out) and which
/// it must composite: the decision on real render trees of a 320×200 screen whose `win`
/// surface layer shows a client buffer of the screen's size.
@Suite struct ScanoutCandidateTests {
    static let screen = Rect(x: 0, y: 0, width: 320, height: 200)

    /// A scene with a black root and the window `win` covering the screen 1:1, changed by
    /// `change`; the node `find` chose, by id.
    private func candidate(
        opaque: Bool = true, buffer: (width: Int, height: Int) = (320, 200), screen: Rect = screen, clearIsBlack: Bool = true,
        rootSize: Size = Size(width: 320, height: 200), _ change: (inout Transaction) -> Void = { _ in }
    ) throws -> String? {
        let scene = Scene()
        StandardKinds.register(in: scene)
        scene.register(LayerKind(name: "surface"))
        try scene.addRoot(id: "root", output: "test", size: rootSize)
        var tx = Transaction(disableActions: true)
        tx.set("root", "backgroundColor", .color(.black))
        tx.add(
            layer: "win", kind: "surface", parent: "root",
            properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 320, height: 200)), "position": .point(Point(x: 160, y: 100))])
        change(&tx)
        try scene.commit(tx, at: 0)
        let tree = try scene.renderTree(root: "root", at: 0)
        let shown = ScanoutCandidate.Buffer(width: buffer.width, height: buffer.height, isOpaque: opaque)
        let index = ScanoutCandidate.find(in: tree, screen: screen, clearIsBlack: clearIsBlack) { $0.kind == "surface" ? shown : nil }
        return index.map { tree.nodes[$0].id }
    }

    private func box(_ tx: inout Transaction, _ id: String, parent: String = "root", at point: Point = Point(x: 160, y: 100), _ extra: [String: Value] = [:]) {
        var properties: [String: Value] = ["bounds": .rect(Rect(x: 0, y: 0, width: 40, height: 40)), "position": .point(point)]
        properties.merge(extra) { $1 }
        tx.add(layer: id, parent: parent, properties: properties)
    }

    @Test func aWindowCoveringTheScreenQualifies() throws {
        #expect(try candidate() == "win")
    }

    @Test func aVisibleLayerOverItForcesComposition() throws {
        #expect(try candidate { box(&$0, "badge", ["backgroundColor": .color(.white)]) } == nil)
        #expect(try candidate { box(&$0, "faint", ["backgroundColor": .color(.white), "opacity": .number(0.01)]) } == nil)
        #expect(try candidate { box(&$0, "framed", ["borderWidth": .number(2), "borderColor": .color(.white)]) } == nil)
        #expect(try candidate { box(&$0, "child", parent: "win", ["backgroundColor": .color(.white)]) } == nil)
    }

    @Test func whatDrawsNothingOverItDoesNotCount() throws {
        #expect(try candidate { box(&$0, "faded", ["backgroundColor": .color(.white), "opacity": .number(0)]) } == "win")
        #expect(try candidate { box(&$0, "empty") } == "win")
        #expect(try candidate { box(&$0, "offscreen", at: Point(x: 1000, y: 100), ["backgroundColor": .color(.white)]) } == "win")
    }

    @Test func anythingThatChangesItsPixelsForcesComposition() throws {
        #expect(try candidate { $0.set("win", "opacity", .number(0.5)) } == nil)
        #expect(try candidate { $0.set("root", "opacity", .number(0.99)) } == nil)
        #expect(try candidate { $0.set("win", "position", .point(Point(x: 161, y: 100))) } == nil)
        #expect(try candidate { $0.set("win", "position", .point(Point(x: 160.5, y: 100))) } == nil)
        #expect(try candidate { $0.set("win", "transform.scale.x", .number(1.01)) } == nil)
        #expect(try candidate { $0.set("win", "transform.rotation.z", .number(0.01)) } == nil)
        #expect(try candidate { $0.set("win", "cornerRadius", .number(8)) } == nil)
        #expect(try candidate { $0.set("win", "shadowOpacity", .number(0.5)) } == nil)
        #expect(try candidate { $0.set("win", "borderWidth", .number(1)) } == nil)
        #expect(
            try candidate {
                $0.set("root", "cornerRadius", .number(8)); $0.set("root", "masksToBounds", .bool(true))
            } == nil)
    }

    @Test func theBufferMustBeTheScreensSize() throws {
        #expect(try candidate(buffer: (160, 100)) == nil)
        #expect(try candidate(buffer: (320, 201)) == nil)
        #expect(try candidate { $0.set("win", "bounds", .rect(Rect(x: 0, y: 0, width: 160, height: 100))) } == nil)
    }

    @Test func aBufferWithAlphaQualifiesOnlyOverBlack() throws {
        #expect(try candidate(opaque: false) == "win")
        #expect(try candidate(opaque: false, clearIsBlack: false) == nil)
        #expect(try candidate(opaque: false) { $0.set("root", "backgroundColor", .color(.white)) } == nil)
        #expect(try candidate(opaque: false) { $0.set("win", "backgroundColor", .color(.white)) } == nil)
        #expect(
            try candidate(opaque: false) {
                box(&$0, "under", ["backgroundColor": .color(.white)]); $0.move(layer: "under", to: "root", placement: .bottom)
            } == nil)
        #expect(try candidate(opaque: true) { $0.set("root", "backgroundColor", .color(.white)) } == "win")
    }

    @Test func oneScreenOfAWallShowsItsRectangle() throws {
        let wall = Size(width: 640, height: 200)
        let right = Rect(x: 320, y: 0, width: 320, height: 200)
        #expect(try candidate(screen: right, rootSize: wall) { $0.set("win", "position", .point(Point(x: 480, y: 100))) } == "win")
        #expect(try candidate(screen: right, rootSize: wall) == nil)
    }
}
