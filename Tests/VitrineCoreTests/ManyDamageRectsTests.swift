import Testing
import VitrineCore

/// A layer with many sublayers that moves damages its old and new place, and a small
/// change far from it damages only itself: the sublayers' own rectangles do not collapse
/// everything into one box spanning the screen.
@Suite struct ManyDamageRectsTests {
    @Test func movingPanelOfManyKeysAndAFarChangeStayApart() throws {
        let scene = Scene()
        try scene.addRoot(id: "root", output: "test", size: Size(width: 1920, height: 1080))
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "panel", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 1920, height: 400)), "position": .point(Point(x: 960, y: 900)), "backgroundColor": .color(.white),
            ])
        for k in 0..<120 {
            tx.add(
                layer: "key\(k)", parent: "panel",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 90, height: 60)),
                    "position": .point(Point(x: 50 + Double(k % 20) * 95, y: 40 + Double(k / 20) * 62)),
                    "backgroundColor": .color(.black),
                ])
        }
        tx.add(
            layer: "dot", parent: "root",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 40, height: 40)), "position": .point(Point(x: 1800, y: 100)), "backgroundColor": .color(.black),
            ])
        try scene.commit(tx, at: 0)
        let before = try scene.renderTree(root: "root", at: 0)
        tx = Transaction(disableActions: true)
        tx.set("panel", "position", .point(Point(x: 960, y: 890)))
        tx.set("dot", "opacity", .number(0.5))
        try scene.commit(tx, at: 1)
        let damage = try scene.renderTree(root: "root", at: 1).damage(since: before)
        let area = damage.reduce(0.0) { $0 + $1.width * $1.height }
        #expect(damage.contains { $0.contains(Rect(x: 1780, y: 80, width: 40, height: 40)) }, "\(damage)")
        #expect(damage.contains { $0.contains(Rect(x: 0, y: 690, width: 1920, height: 390)) }, "\(damage)")
        #expect(area < 1920 * 500, "the damage spans \(area) pixels: \(damage)")
    }
}
