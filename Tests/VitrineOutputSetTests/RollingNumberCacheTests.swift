import Testing
import VitrineCore
import VitrineOutput
import VitrineOutputSet
import VitrineRaster
import VitrineRender
import VitrineTestSupport

/// The rolling number renderer keeps fonts, glyphs, resting advances and placements
/// between frames: after any change the frames must still equal a fresh renderer's.
@Suite struct RollingNumberCacheTests {
    func makeScene() throws -> Scene {
        let scene = Scene()
        StandardKinds.register(in: scene)
        try scene.addRoot(id: "root", output: "test", size: Size(width: 480, height: 160))
        var tx = Transaction(disableActions: true)
        tx.set("root", "backgroundColor", .color(Color(css: "#102030")!))
        tx.add(
            layer: "n", kind: "rolling-number", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 440, height: 120)), "position": .point(Point(x: 240, y: 80)),
                "fontSize": .number(48), "value": .number(1234), "format": .string("plain"), "alignmentMode": .string("center"),
                "textColor": .color(Color(css: "#ffd166")!),
            ])
        try scene.commit(tx, at: 0)
        return scene
    }

    /// Columns from the right, each (strip, position, presence).
    static func roll(_ columns: [(String, Double, Double)]) -> Value {
        .dictionary([
            "strips": .array(columns.map { .string($0.0) }),
            "pos": .array(columns.map { .number($0.1) }),
            "presence": .array(columns.map { .number($0.2) }),
        ])
    }

    /// Each change after the first frame, in order: style, bounds and alignment changes
    /// must lay the number out again; going back to an earlier font must not show a
    /// stale layout; column moves take the narrowed damage; a strip that changes under a
    /// column that did not move, and a column that rolls onto a narrower character, must
    /// not keep the last frame's glyphs or places.
    static let changes: [(String, Value)] = [
        ("fontSize", .number(64)),
        ("bounds", .rect(Rect(x: 0, y: 0, width: 300, height: 120))),
        ("font", .string("DejaVu Serif")),
        ("alignmentMode", .string("right")),
        ("characterSpacing", .number(1.5)),
        ("value", .number(98765)),
        ("fontSize", .number(48)),
        ("font", .string("DejaVu Sans")),
        ("roll", roll([("4567", 1.3, 1), ("3", 0, 1), ("2", 0, 1), ("1", 0, 1)])),
        ("roll", roll([("4567", 2.6, 1), ("3", 0, 1), ("2", 0, 1), ("1", 0, 1)])),
        ("roll", roll([("4567", 2.6, 1), ("39", 0.4, 1), ("2", 0, 1), ("1", 0, 0.5)])),
        ("roll", roll([("4587", 2.6, 1), ("39", 0.4, 1), ("2", 0, 1), ("1", 0, 0.5)])),
        ("roll", roll([("4587", 2.6, 1), ("1,", 0.6, 1), ("2", 0, 1), ("1", 0, 0.5)])),
        ("roll", roll([("4587", 2.6, 1), ("1,", 0.4, 1), ("2", 0, 1), ("1", 0, 0.5)])),
        ("textColor", .color(Color(css: "#80ff80")!)),
        ("roll", roll([("4567", 3, 1), ("39", 1, 1), ("2", 0, 1), ("1", 0, 1)])),
    ]

    @Test(arguments: [1, 2])
    func framesAfterChangesEqualAFreshRenderer(bufferCount: Int) throws {
        let scene = try makeScene()
        let output = try HeadlessOutput(width: 480, height: 160, bufferCount: bufferCount)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        for (i, (key, value)) in Self.changes.enumerated() {
            let time = Double(i + 1)
            var tx = Transaction(disableActions: true)
            tx.set("n", KeyPath(stringLiteral: key), value)
            try scene.commit(tx, at: time)
            let report = try pipeline.render(scene.renderTree(root: "root", at: time))
            #expect(report.presented, "change \(i): \(key)")
            try GoldenImage.expectSamePixels(
                output.frontBuffer, as: StandardKinds.renderer().snapshot(scene, root: "root", at: time),
                name: "rolling-cache-\(i)-buffers\(bufferCount)", "change \(i): \(key) = \(value)")
        }
    }

    @Test func aColumnMoveDamagesItsGlyphsOnly() throws {
        let scene = try makeScene()
        let output = try HeadlessOutput(width: 480, height: 160, bufferCount: 1)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        for (i, pos) in [1.0, 1.5].enumerated() {
            var tx = Transaction(disableActions: true)
            tx.set("n", "roll", Self.roll([("4567", pos, 1), ("3", 0, 1), ("2", 0, 1), ("1", 0, 1)]))
            try scene.commit(tx, at: Double(i))
            try pipeline.render(scene.renderTree(root: "root", at: Double(i)))
        }
        // The units column (about 29 px wide at 48 px) moved half a line: its glyphs'
        // boxes, not the number's line or its neighbours.
        let damage = output.lastDamage
        #expect(!damage.isEmpty)
        #expect(damage.allSatisfy { $0.width < 40 }, "\(damage)")
        try GoldenImage.expectSamePixels(
            output.frontBuffer, as: StandardKinds.renderer().snapshot(scene, root: "root", at: 1), name: "rolling-column-move", "the column move")
    }

    @Test func aMoveSmallerThanAPixelRowPresentsNothing() throws {
        let scene = try makeScene()
        let output = try HeadlessOutput(width: 480, height: 160, bufferCount: 1)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        var reports: [FramePipeline.Report] = []
        // A spring's tail: the units column creeps by a ten-thousandth of a line, then
        // by half a line.
        for (i, pos) in [1.0, 1.0001, 1.5].enumerated() {
            var tx = Transaction(disableActions: true)
            tx.set("n", "roll", Self.roll([("4567", pos, 1), ("3", 0, 1), ("2", 0, 1), ("1", 0, 1)]))
            try scene.commit(tx, at: Double(i))
            reports.append(try pipeline.render(scene.renderTree(root: "root", at: Double(i))))
            try GoldenImage.expectSamePixels(
                output.frontBuffer, as: StandardKinds.renderer().snapshot(scene, root: "root", at: Double(i)),
                name: "rolling-subpixel-\(i)", "step \(i)")
        }
        #expect(reports.map(\.presented) == [true, false, true])
    }

    /// Frames of a roll in which only the columns' positions animate reuse the last
    /// frame's layout; each must still equal a fresh renderer's, through a commit that
    /// changes a strip mid-roll, one that makes a column leave, and one of a new colour.
    @Test(arguments: [1, 2])
    func framesOfAnAnimatedRollEqualAFreshRenderer(bufferCount: Int) throws {
        let scene = try makeScene()
        var tx = Transaction(disableActions: true)
        tx.set("n", "roll", Self.roll([("4567", 0, 1), ("3456", 0, 1), ("2", 0, 1), ("1", 0, 1)]))
        try scene.commit(tx, at: 0)
        let output = try HeadlessOutput(width: 480, height: 160, bufferCount: bufferCount)
        let pipeline = FramePipeline(renderer: StandardKinds.renderer(), output: output)
        try pipeline.render(scene.renderTree(root: "root", at: 0))
        var tx2 = Transaction()
        tx2.addAnimation(.basic("roll.pos.0", from: .number(0), to: .number(3), duration: 0.5), to: "n")
        tx2.addAnimation(.spring("roll.pos.1", from: .number(0), to: .number(3), spring: try Spring(damping: 12), duration: 1), to: "n")
        try scene.commit(tx2, at: 0)
        var presented = 0
        for frame in 1...48 {
            let time = Double(frame) / 60
            if frame == 16 {
                var change = Transaction(disableActions: true)
                change.set("n", "roll", Self.roll([("4567", 0, 1), ("3956", 0, 1), ("2", 0, 1), ("1", 0, 1)]))
                try scene.commit(change, at: time)
            } else if frame == 28 {
                var change = Transaction(disableActions: true)
                change.set("n", "roll", Self.roll([("4567", 0, 1), ("3956", 0, 1), ("2", 0, 1), ("19", 0, 0.6)]))
                try scene.commit(change, at: time)
            } else if frame == 36 {
                var change = Transaction(disableActions: true)
                change.set("n", "textColor", .color(Color(css: "#80c0ff")!))
                try scene.commit(change, at: time)
            }
            if try pipeline.render(scene.renderTree(root: "root", at: time)).presented { presented += 1 }
            try GoldenImage.expectSamePixels(
                output.frontBuffer, as: StandardKinds.renderer().snapshot(scene, root: "root", at: time),
                name: "rolling-animated-\(frame)-buffers\(bufferCount)", "frame \(frame)")
        }
        #expect(presented > 30)
    }
}
