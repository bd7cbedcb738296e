import Foundation
import PropertyBased
import Testing
import VitrineCore

/// `Scene.convert`: points and rects between layers' coordinate spaces, as CALayer's
/// convert(_:from:) — through anchor point, position, bounds origin, transform and the
/// parent's sublayerTransform.
@Suite struct GeometryConversionTests {
    /// Root 800×600 with layer "l": bounds (10, 20, 100, 50) at position (200, 100).
    func scene(_ extra: [String: Value] = [:]) -> Scene {
        let s = makeScene()
        var props: [String: Value] = [
            "bounds": .rect(Rect(x: 10, y: 20, width: 100, height: 50)),
            "position": .point(Point(x: 200, y: 100)),
        ]
        props.merge(extra) { $1 }
        try! commit(s, at: 0) { $0.add(layer: "l", parent: rootID, properties: props) }
        return s
    }

    @Test func anchorPointLandsOnPosition() throws {
        let s = scene()
        // The anchor (centre) of the bounds is (10 + 50, 20 + 25).
        expectClose(try s.convert(Point(x: 60, y: 45), from: "l", to: rootID), Point(x: 200, y: 100))
        expectClose(try s.convert(Point(x: 10, y: 20), from: "l", to: rootID), Point(x: 150, y: 75))
        expectClose(try s.convert(Point(x: 10, y: 20), from: "l", to: nil), Point(x: 150, y: 75))
        expectClose(try s.convert(Point(x: 150, y: 75), from: rootID, to: "l"), Point(x: 10, y: 20))
        expectClose(try s.convert(Point(x: 150, y: 75), from: nil, to: "l"), Point(x: 10, y: 20))
        expectClose(try s.convert(Point(x: 3, y: 4), from: "l", to: "l"), Point(x: 3, y: 4))
    }

    @Test func anchorPointAtTheCorner() throws {
        let s = scene(["anchorPoint": .point(Point(x: 0, y: 0))])
        expectClose(try s.convert(Point(x: 10, y: 20), from: "l", to: rootID), Point(x: 200, y: 100))
        let s2 = scene(["anchorPoint": .point(Point(x: 1, y: 1))])
        expectClose(try s2.convert(Point(x: 110, y: 70), from: "l", to: rootID), Point(x: 200, y: 100))
        expectClose(try s2.convert(Point(x: 10, y: 20), from: "l", to: rootID), Point(x: 100, y: 50))
    }

    @Test func transformTurnsAndScalesAboutTheAnchor() throws {
        // A quarter turn clockwise (y down): the corner 50 left and 25 up of the anchor
        // ends 25 right and 50 up of it.
        let turned = scene(["transform": .transform(AffineTransform(rotationAngle: .pi / 2))])
        expectClose(try turned.convert(Point(x: 10, y: 20), from: "l", to: rootID), Point(x: 225, y: 50))
        expectClose(try turned.convert(Point(x: 60, y: 45), from: "l", to: rootID), Point(x: 200, y: 100))
        let scaled = scene(["transform": .transform(AffineTransform(scaleX: 2, y: 3))])
        expectClose(try scaled.convert(Point(x: 10, y: 20), from: "l", to: rootID), Point(x: 100, y: 25))
        let r = try turned.convert(Rect(x: 10, y: 20, width: 100, height: 50), from: "l", to: rootID)
        expectClose(.rect(r), .rect(Rect(x: 175, y: 50, width: 50, height: 100)))
    }

    @Test func parentsSublayerTransformActsAboutItsAnchor() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(
                layer: "p", parent: rootID,
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 200, height: 200)), "position": .point(Point(x: 300, y: 300)),
                    "sublayerTransform": .transform(AffineTransform(scaleX: 2, y: 2)),
                ])
            $0.add(
                layer: "c", parent: "p",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 20, height: 20)), "position": .point(Point(x: 150, y: 100)),
                ])
        }
        // c's centre is at (150, 100) in p before the sublayer transform; scaled ×2 about
        // p's anchor (100, 100) → (200, 100); p's (100, 100) is the root's (300, 300).
        expectClose(try s.convert(Point(x: 10, y: 10), from: "c", to: "p"), Point(x: 200, y: 100))
        expectClose(try s.convert(Point(x: 10, y: 10), from: "c", to: rootID), Point(x: 400, y: 300))
        expectClose(try s.convert(Point(x: 0, y: 0), from: "c", to: rootID), Point(x: 380, y: 280))
        expectClose(try s.convert(Point(x: 380, y: 280), from: rootID, to: "c"), Point(x: 0, y: 0))
        // The sublayer transform does not move p itself.
        expectClose(try s.convert(Point(x: 0, y: 0), from: "p", to: rootID), Point(x: 200, y: 200))
    }

    @Test func nestedLayersCompose() throws {
        let s = makeScene()
        try commit(s, at: 0) {
            $0.add(
                layer: "p", parent: rootID,
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 100, height: 100)), "position": .point(Point(x: 100, y: 100)),
                    "transform": .transform(AffineTransform(rotationAngle: .pi)),
                ])
            $0.add(
                layer: "c", parent: "p",
                properties: [
                    "bounds": .rect(Rect(x: 0, y: 0, width: 10, height: 10)), "position": .point(Point(x: 20, y: 30)),
                    "anchorPoint": .point(Point(x: 0, y: 0)),
                ])
        }
        // c's origin is p's (20, 30): 30 left and 20 above p's centre; p turned half way
        // round puts it 30 right and 20 below the centre (100, 100).
        expectClose(try s.convert(Point(x: 0, y: 0), from: "c", to: rootID), Point(x: 130, y: 120), tolerance: 1e-9)
        expectClose(try s.convert(Point(x: 0, y: 0), from: "c", to: "p"), Point(x: 20, y: 30))
    }

    @Test func presentationGeometryFollowsAnimations() throws {
        let s = scene()
        try commit(s, at: 0) {
            $0.addAnimation(.basic("position.x", from: .number(0), to: .number(100), duration: 1), to: "l")
        }
        expectClose(try s.convert(Point(x: 60, y: 45), from: "l", to: rootID, at: 0.5), Point(x: 50, y: 100))
        expectClose(try s.convert(Point(x: 60, y: 45), from: "l", to: rootID), Point(x: 200, y: 100))
    }

    @Test func convertingIntoACollapsedLayerFails() throws {
        let s = scene(["transform": .transform(AffineTransform(scaleX: 0, y: 1))])
        expectError("invalid_value") { _ = try s.convert(Point(x: 1, y: 1), from: rootID, to: "l") }
        expectError("unknown_layer") { _ = try s.convert(Point(x: 1, y: 1), from: "zz", to: "l") }
    }

    @Test func conversionRoundTrips() async {
        let angle = Gen.double(in: -Double.pi...Double.pi), scale = Gen.double(in: 0.25...4)
        let coord = Gen.double(in: -300...300), unit = Gen.double(in: 0...1)
        await seededCheck(count: 150, input: angle, scale, coord, unit, angle, coord) { r1, s1, x, ax, r2, y in
            let s = makeScene()
            try commit(s, at: 0) {
                $0.add(
                    layer: "a", parent: rootID,
                    properties: [
                        "bounds": .rect(Rect(x: x / 10, y: -5, width: 80, height: 40)), "position": .point(Point(x: x, y: y)),
                        "anchorPoint": .point(Point(x: ax, y: 1 - ax)),
                        "transform": .transform(AffineTransform(scaleX: -s1, y: 1 / s1).concatenating(AffineTransform(rotationAngle: r1))),
                        "sublayerTransform": .transform(AffineTransform(rotationAngle: r2)),
                    ])
                $0.add(
                    layer: "a1", parent: "a",
                    properties: [
                        "bounds": .rect(Rect(x: 0, y: 0, width: 10, height: 30)), "position": .point(Point(x: y, y: 7)),
                        "transform": .transform(AffineTransform(rotationAngle: r2).concatenating(AffineTransform(scaleX: s1, y: s1))),
                    ])
                $0.add(
                    layer: "b", parent: rootID,
                    properties: [
                        "bounds": .rect(Rect(x: 0, y: 0, width: 50, height: 50)), "position": .point(Point(x: y, y: x)),
                        "transform": .transform(AffineTransform(rotationAngle: r1 + r2)),
                    ])
            }
            let p = Point(x: x, y: y)
            for (from, to) in [("a1", "b"), ("b", "a1"), ("a", "a1"), ("a1", rootID)] {
                let there = try s.convert(p, from: from, to: to)
                let back = try s.convert(there, from: to, to: from)
                expectClose(back, p, tolerance: 1e-7, "\(from) → \(to) → \(from)")
            }
            // Going through the root is the same as going directly.
            let direct = try s.convert(p, from: "a1", to: "b")
            let viaRoot = try s.convert(try s.convert(p, from: "a1", to: rootID), from: rootID, to: "b")
            expectClose(direct, viaRoot, tolerance: 1e-7)
        }
    }
}
