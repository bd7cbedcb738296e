import Foundation
import Testing
import VitrineCore

/// Layers seen in perspective in the model: a card under a stage whose sublayerTransform
/// has m34 = −1/500, turned about y. Hit testing maps points back through the projection,
/// a card that is not doubleSided is neither drawn nor hit while it faces away, and the
/// damage of a turn is the old and new projected quads' boxes.
@Suite struct PerspectiveTests {
    /// A 320×240 screen; "stage" fills it (anchor at its centre, (160, 120)) with
    /// sublayerTransform m34 = −1/500; "card" (160×200, its centre on the stage's) is turned
    /// `degrees` about y and holds "dot" (20×20 at card point (130, 30), the top right).
    func stage(degrees: Double, doubleSided: Bool = true) throws -> Scene {
        let s = makeScene(width: 320, height: 240)
        try commit(s, at: 0, quiet) {
            $0.add(
                layer: "stage", parent: rootID,
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 320, height: 240)), "position": .point(Point(x: 160, y: 120)),
                    "sublayerTransform": .transform3D(Transform3D(perspective: 500)),
                ])
            $0.add(
                layer: "card", parent: "stage",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 160, height: 200)), "position": .point(Point(x: 160, y: 120)),
                    "transform": .transform3D(Transform3D(rotationAngle: degrees * .pi / 180, x: 0, y: 1, z: 0)),
                    "doubleSided": .bool(doubleSided),
                ])
            $0.add(
                layer: "dot", parent: "card",
                properties: ["bounds": .rect(Rect(x: 0, y: 0, width: 20, height: 20)), "position": .point(Point(x: 130, y: 30))])
        }
        return s
    }

    /// Where card point (x, y) shows on screen with the card turned `degrees` about y, worked
    /// by hand: relative to the anchor (80, 100) the point is (x − 80, y − 100, 0); the turn
    /// takes it to ((x − 80)·cos θ, y − 100, −(x − 80)·sin θ); m34 = −1/500 divides by
    /// w = 1 + (x − 80)·sin θ / 500; the stage's centre is the screen's (160, 120).
    func screenPoint(_ x: Double, _ y: Double, degrees: Double) -> Point {
        let t = degrees * .pi / 180, w = 1 + (x - 80) * sin(t) / 500
        return Point(x: 160 + (x - 80) * cos(t) / w, y: 120 + (y - 100) / w)
    }

    @Test func hitsThroughThePerspective() throws {
        let s = try stage(degrees: 45)
        for (x, y) in [(20.0, 100.0), (150, 190), (5, 5), (100, 150)] {
            let hit = s.hitTest(screenPoint(x, y, degrees: 45), root: rootID, at: 0)
            #expect(hit?.layer == "card")
            if let p = hit?.point { expectClose(p, Point(x: x, y: y), tolerance: 1e-6) }
        }
        let dot = s.hitTest(screenPoint(135, 35, degrees: 45), root: rootID, at: 0)
        #expect(dot?.layer == "dot")
        if let p = dot?.point { expectClose(p, Point(x: 15, y: 15), tolerance: 1e-6) }
        // The far (right) edge is pulled in: past it, inside the unturned card, is the stage.
        let right = screenPoint(160, 100, degrees: 45)
        #expect(right.x < 215)
        #expect(s.hitTest(Point(x: right.x + 3, y: 120), root: rootID, at: 0)?.layer == "stage")
        // Conversions go through the same projection.
        let converted = s.convert(screenPoint(40, 60, degrees: 45), fromRoot: rootID, to: "card", at: 0)
        if let converted { expectClose(converted, Point(x: 40, y: 60), tolerance: 1e-6) } else { Issue.record("no conversion") }
        let back = s.convert(Point(x: 40, y: 60), from: "card", toRoot: rootID, at: 0)
        if let back { expectClose(back, screenPoint(40, 60, degrees: 45), tolerance: 1e-6) } else { Issue.record("no conversion") }
    }

    @Test func aCardFacingAwayIsHitOnlyWhenDoubleSided() throws {
        let centre = screenPoint(80, 100, degrees: 135)
        let shown = try stage(degrees: 135)
        let hit = shown.hitTest(centre, root: rootID, at: 0)
        #expect(hit?.layer == "card")
        if let p = hit?.point { expectClose(p, Point(x: 80, y: 100), tolerance: 1e-6) }
        let seenFromBehind = shown.hitTest(screenPoint(40, 100, degrees: 135), root: rootID, at: 0)
        if let p = seenFromBehind?.point { expectClose(p, Point(x: 40, y: 100), tolerance: 1e-6) }
        #expect(try shown.renderTree(root: rootID, at: 0).nodes.contains { $0.id == "card" })

        let culled = try stage(degrees: 135, doubleSided: false)
        #expect(culled.hitTest(centre, root: rootID, at: 0)?.layer == "stage")
        let tree = try culled.renderTree(root: rootID, at: 0)
        #expect(!tree.nodes.contains { $0.id == "card" || $0.id == "dot" })
        // Turned back to face the viewer, it is drawn and hit again.
        try commit(culled, at: 1, quiet) { $0.set("card", "transform", .transform3D(Transform3D(rotationAngle: 0.5, x: 0, y: 1, z: 0))) }
        #expect(culled.hitTest(centre, root: rootID, at: 1)?.layer == "card")
        #expect(try culled.renderTree(root: rootID, at: 1).nodes.contains { $0.id == "dot" })
    }

    /// The screen box of card rect `r` turned `degrees`, from the hand-worked projection
    /// of its corners.
    func projectedBox(_ r: Rect, degrees: Double) -> Rect {
        var box = Rect.null
        for (x, y) in [(r.minX, r.minY), (r.maxX, r.minY), (r.minX, r.maxY), (r.maxX, r.maxY)] {
            box = box.union(Rect(origin: screenPoint(x, y, degrees: degrees), size: .zero))
        }
        return box
    }

    @Test func aTurnDamagesTheOldAndNewProjectedQuads() throws {
        let s = try stage(degrees: 30)
        let before = try s.renderTree(root: rootID, at: 0)
        let node = try #require(before.nodes.first { $0.id == "card" })
        #expect(node.plane?.projection != nil)
        try commit(s, at: 1, quiet) { $0.set("card", "transform", .transform3D(Transform3D(rotationAngle: 60 * .pi / 180, x: 0, y: 1, z: 0))) }
        let after = try s.renderTree(root: rootID, at: 1)
        let damage = after.damage(since: before)
        let card = Rect(x: 0, y: 0, width: 160, height: 200)
        for quad in [projectedBox(card, degrees: 30), projectedBox(card, degrees: 60)] {
            let inner = quad.insetBy(dx: 1, dy: 1)
            #expect(damage.contains { $0.contains(inner) }, "\(quad) not in \(damage)")
        }
        // No more than the two boxes (whole pixels and a pixel of anti-aliasing around).
        let both = projectedBox(card, degrees: 30).union(projectedBox(card, degrees: 60)).insetBy(dx: -3, dy: -3)
        #expect(damage.allSatisfy { both.contains($0) }, "\(damage) outside \(both)")
    }

    @Test func aChangeInsideTheCardDamagesItsProjectedBox() throws {
        let s = try stage(degrees: 45)
        let before = try s.renderTree(root: rootID, at: 0)
        try commit(s, at: 1, quiet) { $0.set("dot", "backgroundColor", .color(.white)) }
        let damage = try s.renderTree(root: rootID, at: 1).damage(since: before)
        let dot = projectedBox(Rect(x: 120, y: 20, width: 20, height: 20), degrees: 45)
        #expect(damage.contains { $0.contains(dot.insetBy(dx: 1, dy: 1)) }, "\(dot) not in \(damage)")
        let area = damage.reduce(0) { $0 + $1.width * $1.height }
        #expect(area < 2 * (dot.width + 4) * (dot.height + 4), "\(damage) for \(dot)")
    }

    @Test func affineLayersKeepAffineTransforms() throws {
        let s = try stage(degrees: 0)
        let tree = try s.renderTree(root: rootID, at: 0)
        #expect(tree.nodes.allSatisfy { $0.plane == nil })
        let card = try #require(tree.nodes.first { $0.id == "card" })
        #expect(card.transform == AffineTransform(translationX: 80, y: 20))
    }
}
