import Glibc
import Testing
import VitrineCore

@Suite struct Transform3DTests {
    func close(_ a: Transform3D, _ b: Transform3D, _ tolerance: Double = 1e-9) -> Bool {
        zip(a.entries, b.entries).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func rotationAboutZIsTheAffineRotation() {
        let angle = 0.7
        #expect(close(Transform3D(rotationAngle: angle, x: 0, y: 0, z: 1), Transform3D(AffineTransform(rotationAngle: angle))))
        #expect(Transform3D(rotationAngle: angle, x: 0, y: 0, z: 1).affine != nil)
        #expect(Transform3D(rotationAngle: angle, x: 0, y: 1, z: 0).affine == nil)
    }

    @Test func aCardTurnedAboutYInPerspectiveProjectsAsComputedByHand() {
        // A 200-point-wide card centred on the origin, turned 45° about y, seen from 500.
        let turn = Transform3D(rotationAngle: .pi / 4, x: 0, y: 1, z: 0).concatenating(Transform3D(perspective: 500))
        let h = turn.flattened
        let c = cos(Double.pi / 4)
        // The right edge moves away (z = −100·sin 45°): w = 1 + 100·sin 45° / 500.
        let right = try! #require(h.apply(to: Point(x: 100, y: 50)))
        let w = 1 + 100 * c / 500
        #expect(abs(right.x - 100 * c / w) < 1e-9)
        #expect(abs(right.y - 50 / w) < 1e-9)
        let left = try! #require(h.apply(to: Point(x: -100, y: 50)))
        let wl = 1 - 100 * c / 500
        #expect(abs(left.x + 100 * c / wl) < 1e-9)
        #expect(abs(left.y - 50 / wl) < 1e-9)
        #expect(h.showsFront)
        let back = Transform3D(rotationAngle: 3 * .pi / 4, x: 0, y: 1, z: 0).concatenating(Transform3D(perspective: 500))
        #expect(!back.flattened.showsFront)
    }

    @Test func pointsBehindTheEyeAreLeftOut() {
        // Seen from 100 points, a point 150 points towards the viewer is behind the eye.
        let h = Transform3D(rotationAngle: .pi / 2 - 0.1, x: 0, y: 1, z: 0).concatenating(Transform3D(perspective: 100)).flattened
        #expect(h.apply(to: Point(x: -150, y: 0)) == nil)
        #expect(h.apply(to: Point(x: 150, y: 0)) != nil)
        let quad = h.clippedQuad(Rect(x: -150, y: -50, width: 300, height: 100))
        #expect(quad.count == 4)
        #expect(quad.allSatisfy { $0.x.isFinite && $0.y.isFinite })
        let box = h.boundingBox(of: Rect(x: 0, y: -50, width: 150, height: 100))
        #expect(box.minX >= 0 && box.maxX < 20)
    }

    @Test func inverseAndConcatenationAgree() throws {
        let t = Transform3D(rotationAngle: 0.4, x: 1, y: 2, z: 0.5)
            .concatenating(Transform3D(translationX: 30, y: -4, z: 9)).concatenating(Transform3D(perspective: 800))
        let inv = try #require(t.inverted)
        #expect(close(t.concatenating(inv), .identity))
        let h = t.flattened, hi = try #require(h.inverted)
        let p = try #require(h.apply(to: Point(x: 12, y: -7)))
        let back = try #require(hi.apply(to: p))
        #expect(abs(back.x - 12) < 1e-9 && abs(back.y + 7) < 1e-9)
    }

    @Test func decompositionRecomposesTheSameTransform() throws {
        let cases = [
            Transform3D.identity,
            Transform3D(rotationAngle: 2.5, x: 0, y: 1, z: 0),
            Transform3D(rotationAngle: -1.2, x: 1, y: -0.3, z: 0.2).concatenating(Transform3D(scaleX: 2, y: 0.5, z: 3)),
            Transform3D(AffineTransform(a: 1, b: 0.3, c: 0.5, d: -2, tx: 7, ty: 9)),
            Transform3D(rotationAngle: 0.9, x: 0, y: 1, z: 0).concatenating(Transform3D(translationX: 5, y: 6, z: 7))
                .concatenating(Transform3D(perspective: 400)),
        ]
        for t in cases {
            let d = try #require(DecomposedTransform3D(t))
            #expect(close(d.transform, t, 1e-9), "\(t)")
        }
    }

    @Test func interpolationTurnsAboutTheSharedAxis() throws {
        let p = Transform3D(perspective: 500)
        let a = try #require(DecomposedTransform3D(Transform3D.identity.concatenating(p)))
        let b = try #require(DecomposedTransform3D(Transform3D(rotationAngle: .pi / 2, x: 0, y: 1, z: 0).concatenating(p)))
        for t in [0.25, 0.5, 0.75] {
            let mid = DecomposedTransform3D.interpolate(a, b, t).transform
            #expect(close(mid, Transform3D(rotationAngle: t * .pi / 2, x: 0, y: 1, z: 0).concatenating(p), 1e-9), "\(t)")
        }
        // The shorter way round: from 170° to −170° about x passes through 180°.
        let c = try #require(DecomposedTransform3D(Transform3D(rotationAngle: 170 * .pi / 180, x: 1, y: 0, z: 0)))
        let e = try #require(DecomposedTransform3D(Transform3D(rotationAngle: -170 * .pi / 180, x: 1, y: 0, z: 0)))
        #expect(close(DecomposedTransform3D.interpolate(c, e, 0.5).transform, Transform3D(rotationAngle: .pi, x: 1, y: 0, z: 0), 1e-9))
    }
}

@Suite struct Transform3DValueTests {
    @Test func interpolatingTwo3DTransformValuesSlerps() throws {
        let p = Transform3D(perspective: 500)
        let a = Value.transformValue(Transform3D(rotationAngle: 0.2, x: 0, y: 1, z: 0).concatenating(p))
        let b = Value.transformValue(Transform3D(rotationAngle: 1.0, x: 0, y: 1, z: 0).concatenating(p))
        let mid = try #require(Value.interpolate(a, b, 0.5).transform3D)
        let expected = Transform3D(rotationAngle: 0.6, x: 0, y: 1, z: 0).concatenating(p)
        #expect(zip(mid.entries, expected.entries).allSatisfy { abs($0 - $1) < 1e-9 })
        // From an affine transform to a 3D one, and back to the affine one at the end.
        let flat = Value.transform(AffineTransform(translationX: 10, y: 0))
        #expect(Value.interpolate(flat, b, 0) == flat)
        #expect(Value.interpolate(flat, b, 1).transform3D.map { zip($0.entries, b.transform3D!.entries).allSatisfy { abs($0 - $1) < 1e-9 } } == true)
    }

    @Test func rotationAboutXAndYAreKeyPaths() throws {
        let turned = try #require(Value.transform(.identity).settingComponent(["rotation", "y"], to: .number(0.7)))
        let expected = Transform3D(rotationAngle: 0.7, x: 0, y: 1, z: 0)
        #expect(zip(try #require(turned.transform3D).entries, expected.entries).allSatisfy { abs($0 - $1) < 1e-12 })
        #expect(turned.component(["rotation", "y"]).flatMap(\.number).map { abs($0 - 0.7) < 1e-12 } == true)
        #expect(turned.component(["rotation", "x"]).flatMap(\.number).map { abs($0) < 1e-12 } == true)
        let both = try #require(turned.settingComponent(["rotation", "x"], to: .number(-0.3)))
        #expect(both.component(["rotation", "x"]).flatMap(\.number).map { abs($0 + 0.3) < 1e-12 } == true)
        #expect(both.component(["rotation", "y"]).flatMap(\.number).map { abs($0 - 0.7) < 1e-12 } == true)
        // Back to no turn about x or y: a plane transform again.
        let back = try #require(both.settingComponent(["rotation", "x"], to: .number(0))?.settingComponent(["rotation", "y"], to: .number(0)))
        #expect(back.transform.map { abs($0.a - 1) < 1e-12 && abs($0.b) < 1e-12 } == true)
    }
}
