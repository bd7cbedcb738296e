import Foundation
import PropertyBased
import Testing
@testable import VitrineCore

/// Interpolation, arithmetic and parsing of property values.
@Suite struct InterpolationTests {
    @Test func numbersInterpolateLinearlyAndExtrapolate() throws {
        expectClose(Value.interpolate(.number(10), .number(20), 0.25), .number(12.5))
        expectClose(Value.interpolate(.number(10), .number(20), 0), .number(10))
        expectClose(Value.interpolate(.number(10), .number(20), 1), .number(20))
        // Springs overshoot: t beyond 1 extrapolates.
        expectClose(Value.interpolate(.number(10), .number(20), 1.5), .number(25))
        expectClose(Value.interpolate(.number(10), .number(20), -0.5), .number(5))
    }

    @Test func pointsSizesAndRectsInterpolateComponentWise() throws {
        expectClose(
            Value.interpolate(.point(Point(x: 0, y: 10)), .point(Point(x: 100, y: -10)), 0.3),
            .point(Point(x: 30, y: 4)))
        expectClose(
            Value.interpolate(.size(Size(width: 10, height: 20)), .size(Size(width: 20, height: 60)), 0.75),
            .size(Size(width: 17.5, height: 50)))
        expectClose(
            Value.interpolate(.rect(Rect(x: 0, y: 0, width: 10, height: 10)), .rect(Rect(x: 10, y: -20, width: 30, height: 50)), 0.5),
            .rect(Rect(x: 5, y: -10, width: 20, height: 30)))
    }

    @Test func coloursInterpolateInPremultipliedSpace() throws {
        let red = Color(red: 1, green: 0, blue: 0, alpha: 1)
        let halfBlue = Color(red: 0, green: 0, blue: 1, alpha: 0.5)
        // Premultiplied: (1, 0, 0, 1) and (0, 0, 0.5, 0.5) → midpoint (0.5, 0, 0.25, 0.75).
        let mid = Color.interpolate(red, halfBlue, 0.5)
        expectClose(mid, Color(red: 0.5 / 0.75, green: 0, blue: 0.25 / 0.75, alpha: 0.75))
        // Through the Value enum too.
        expectClose(Value.interpolate(.color(red), .color(halfBlue), 0.5), .color(mid))
        // Straight-alpha interpolation would give (0.5, 0, 0.5): that must not be what we get.
        #expect(abs(mid.blue - 0.5) > 0.1)
        expectClose(Color.interpolate(.clear, .clear, 0.5).alpha, 0)
    }

    @Test func fadingFromClearKeepsTheHue() async {
        await propertyCheck(
            count: 200, input: Gen.double(in: 0...1), Gen.double(in: 0...1), Gen.double(in: 0...1),
            Gen.double(in: 0.05...1), Gen.double(in: 0.01...1)
        ) { r, g, b, a, t in
            let target = Color(red: r, green: g, blue: b, alpha: a)
            let shown = Color.interpolate(.clear, target, t)
            expectClose(shown, Color(red: r, green: g, blue: b, alpha: a * t), tolerance: 1e-12)
            let back = Color.interpolate(target, .clear, 1 - t)
            expectClose(back, Color(red: r, green: g, blue: b, alpha: a * t), tolerance: 1e-12)
        }
    }

    @Test func rotationInterpolatesTheShortWayRound() throws {
        let deg = Double.pi / 180
        let from = AffineTransform(rotationAngle: 170 * deg), to = AffineTransform(rotationAngle: -170 * deg)
        expectClose(
            try #require(Value.interpolate(.transform(from), .transform(to), 0.5).transform),
            AffineTransform(rotationAngle: 180 * deg))
        expectClose(
            try #require(Value.interpolate(.transform(from), .transform(to), 0.25).transform),
            AffineTransform(rotationAngle: 175 * deg))
        let a = AffineTransform(rotationAngle: 10 * deg), b = AffineTransform(rotationAngle: 350 * deg)
        expectClose(try #require(Value.interpolate(.transform(a), .transform(b), 0.5).transform), .identity)
        expectClose(
            try #require(Value.interpolate(.transform(b), .transform(a), 0.75).transform),
            AffineTransform(rotationAngle: 5 * deg))
    }

    @Test func scaleAndTranslationInterpolateLinearly() throws {
        let from = AffineTransform(scaleX: 1, y: 2).concatenating(AffineTransform(translationX: 10, y: 20))
        let to = AffineTransform(scaleX: 3, y: 4).concatenating(AffineTransform(translationX: 30, y: -20))
        let mid = try #require(Value.interpolate(.transform(from), .transform(to), 0.5).transform)
        expectClose(mid, AffineTransform(scaleX: 2, y: 3).concatenating(AffineTransform(translationX: 20, y: 0)))
        // Scale interpolates linearly (not geometrically): 1 → 3 at a quarter is 1.5.
        let quarter = try #require(Value.interpolate(.transform(.identity), .transform(AffineTransform(scaleX: 3, y: 3)), 0.25).transform)
        expectClose(quarter, AffineTransform(scaleX: 1.5, y: 1.5))
        // Rotation and translation together: each part on its own line.
        let turned = AffineTransform(rotationAngle: .pi / 2).concatenating(AffineTransform(translationX: 100, y: 0))
        let half = try #require(Value.interpolate(.transform(.identity), .transform(turned), 0.5).transform)
        expectClose(half, AffineTransform(rotationAngle: .pi / 4).concatenating(AffineTransform(translationX: 50, y: 0)))
    }

    @Test func mirroredTransformsInterpolateTheirScale() throws {
        let from = AffineTransform(scaleX: -1, y: 1), to = AffineTransform(scaleX: -3, y: 1)
        expectClose(
            try #require(Value.interpolate(.transform(from), .transform(to), 0.5).transform),
            AffineTransform(scaleX: -2, y: 1))
    }

    @Test func mirroredShearedTransformRecomposes() throws {
        let t = AffineTransform(a: -1, b: 0, c: 0.5, d: 1, tx: 3, ty: 4)
        expectClose(DecomposedTransform(t).transform, t)
    }

    @Test func decompositionRecomposesForRandomNonSingularTransforms() async {
        let entry = Gen.double(in: -3...3)
        await propertyCheck(count: 300, input: entry, entry, entry, entry, Gen.double(in: -500...500), Gen.double(in: -500...500)) {
            a, b, c, d, tx, ty in
            let t = AffineTransform(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
            guard abs(t.determinant) > 1e-3 else { return }
            expectClose(DecomposedTransform(t).transform, t, tolerance: 1e-9, "det \(t.determinant)")
            // Interpolation towards any transform starts and ends exactly on the endpoints.
            let other = AffineTransform(a: d, b: -c, c: b, d: -a, tx: ty, ty: tx)
            guard abs(other.determinant) > 1e-3 else { return }
            expectClose(try #require(Value.interpolate(.transform(t), .transform(other), 0).transform), t, tolerance: 1e-9)
            expectClose(try #require(Value.interpolate(.transform(t), .transform(other), 1).transform), other, tolerance: 1e-9)
        }
    }

    @Test func discreteValuesSwitchAtHalfway() throws {
        #expect(Value.interpolate(.bool(false), .bool(true), 0.49) == .bool(false))
        #expect(Value.interpolate(.bool(false), .bool(true), 0.5) == .bool(true))
        #expect(Value.interpolate(.string("a"), .string("b"), 0.499) == .string("a"))
        #expect(Value.interpolate(.string("a"), .string("b"), 0.5) == .string("b"))
        #expect(Value.interpolate(.string("a"), .string("b"), 1) == .string("b"))
        // Values of different types cannot be blended either.
        #expect(Value.interpolate(.number(1), .string("x"), 0.3) == .number(1))
        #expect(Value.interpolate(.number(1), .string("x"), 0.7) == .string("x"))
    }

    @Test func dictionariesInterpolateSharedKeys() throws {
        let from = Value.dictionary(["a": .number(0), "gone": .number(1)])
        let to = Value.dictionary(["a": .number(10), "new": .string("n")])
        let early = try #require(Value.interpolate(from, to, 0.25).dictionary)
        expectClose(try #require(early["a"]), .number(2.5))
        #expect(early["gone"] == .number(1) && early["new"] == nil)
        let late = try #require(Value.interpolate(from, to, 0.75).dictionary)
        expectClose(try #require(late["a"]), .number(7.5))
        #expect(late["gone"] == nil && late["new"] == .string("n"))
    }
}

@Suite struct ArithmeticTests {
    @Test func addSubtractAndScaleNumbersAndPoints() throws {
        #expect(Value.add(.number(2), .number(3)) == .number(5))
        #expect(Value.subtract(.number(2), .number(3)) == .number(-1))
        #expect(Value.scale(.number(2), by: 3) == .number(6))
        #expect(Value.add(.point(Point(x: 1, y: 2)), .point(Point(x: 10, y: 20))) == .point(Point(x: 11, y: 22)))
        #expect(Value.scale(.size(Size(width: 1, height: -2)), by: 2) == .size(Size(width: 2, height: -4)))
    }

    @Test func subtractUndoesAddForNumbers() async {
        await propertyCheck(count: 200, input: Gen.double(in: -1e6...1e6), Gen.double(in: -1e6...1e6)) { a, b in
            expectClose(Value.subtract(Value.add(.number(a), .number(b)), .number(b)), .number(a), tolerance: 1e-9)
            expectClose(Value.add(Value.subtract(.number(a), .number(b)), .number(b)), .number(a), tolerance: 1e-9)
        }
    }

    @Test func subtractUndoesAddForPoints() async {
        let c = Gen.double(in: -1e4...1e4)
        await propertyCheck(count: 200, input: c, c, c, c) { ax, ay, bx, by in
            let a = Value.point(Point(x: ax, y: ay)), b = Value.point(Point(x: bx, y: by))
            expectClose(Value.subtract(Value.add(a, b), b), a, tolerance: 1e-9)
        }
    }

    @Test func subtractUndoesAddForTransforms() async {
        let angle = Gen.double(in: -Double.pi...Double.pi), scale = Gen.double(in: 0.2...4), move = Gen.double(in: -200...200)
        await propertyCheck(count: 200, input: angle, scale, move, angle, scale, move) { r1, s1, t1, r2, s2, t2 in
            let a = AffineTransform(scaleX: s1, y: 1 / s1).concatenating(AffineTransform(rotationAngle: r1))
                .concatenating(AffineTransform(translationX: t1, y: -t1))
            let b = AffineTransform(scaleX: -s2, y: s2).concatenating(AffineTransform(rotationAngle: r2))
                .concatenating(AffineTransform(translationX: -t2, y: 2 * t2))
            expectClose(Value.subtract(Value.add(.transform(a), .transform(b)), .transform(b)), .transform(a), tolerance: 1e-8)
            expectClose(Value.add(Value.subtract(.transform(a), .transform(b)), .transform(b)), .transform(a), tolerance: 1e-8)
        }
    }

    @Test func addingATransformActsInTheUnderlyingSpace() throws {
        // b (a quarter turn) acts first, then a (a translation): (1, 0) → (0, 1) → (10, 1).
        let sum = try #require(Value.add(.transform(AffineTransform(translationX: 10, y: 0)), .transform(AffineTransform(rotationAngle: .pi / 2))).transform)
        expectClose(sum.apply(to: Point(x: 1, y: 0)), Point(x: 10, y: 1))
    }

    @Test func scalingATransformRaisesItToAPower() throws {
        expectClose(
            try #require(Value.scale(.transform(AffineTransform(translationX: 10, y: -4)), by: 2).transform),
            AffineTransform(translationX: 20, y: -8))
        expectClose(
            try #require(Value.scale(.transform(AffineTransform(rotationAngle: 0.3)), by: 2).transform),
            AffineTransform(rotationAngle: 0.6))
        expectClose(
            try #require(Value.scale(.transform(AffineTransform(scaleX: 2, y: 3)), by: 2).transform),
            AffineTransform(scaleX: 4, y: 9))
        expectClose(try #require(Value.scale(.transform(AffineTransform(scaleX: 5, y: 7)), by: 0).transform), .identity)
    }
}

@Suite struct ColorParsingTests {
    static let valid: [(String, Color)] = [
        ("#f00", Color(red: 1, green: 0, blue: 0)),
        ("#0f08", Color(red: 0, green: 1, blue: 0, alpha: 0x88 / 255.0)),
        ("#336699", Color(red: 0x33 / 255.0, green: 0x66 / 255.0, blue: 0x99 / 255.0)),
        ("#33669980", Color(red: 0x33 / 255.0, green: 0x66 / 255.0, blue: 0x99 / 255.0, alpha: 0x80 / 255.0)),
        ("#ABCDEF", Color(red: 0xab / 255.0, green: 0xcd / 255.0, blue: 0xef / 255.0)),
        ("red", Color(red: 1, green: 0, blue: 0)),
        ("Red", Color(red: 1, green: 0, blue: 0)),
        ("rebeccapurple", Color(red: 0x66 / 255.0, green: 0x33 / 255.0, blue: 0x99 / 255.0)),
        ("cornflowerblue", Color(red: 0x64 / 255.0, green: 0x95 / 255.0, blue: 0xed / 255.0)),
        ("transparent", Color(red: 0, green: 0, blue: 0, alpha: 0)),
        ("  white ", Color(red: 1, green: 1, blue: 1)),
    ]

    @Test(arguments: valid.indices)
    func parsesValidColours(_ i: Int) throws {
        let (text, expected) = Self.valid[i]
        let parsed = try #require(Color(css: text), "\(text)")
        expectClose(parsed, expected, tolerance: 1e-12, "\(text)")
    }

    @Test(arguments: [
        "", "#", "#12", "#12345", "#1234567", "#123456789", "#ggg", "#12345g", "notacolour",
        "rgb(1, 2, 3)", "##fff", "fff", "#ｆｆｆ", "#１２３",
    ])
    func rejectsInvalidColours(_ text: String) {
        #expect(Color(css: text) == nil, "\(text)")
    }

    @Test func hexStringRoundTrips() throws {
        #expect(try #require(Color(css: "#336699")).hexString == "#336699")
        #expect(try #require(Color(css: "#33669980")).hexString == "#33669980")
        #expect(try #require(Color(css: "#f00")).hexString == "#ff0000")
    }
}

/// `Array.sharesStorage(with:)`: the same array passed on, never merely equal elements.
@Suite struct SharedStorageTests {
    @Test func onlyTheSameStorageIsShared() {
        let a: [Value] = [.number(1), .number(2)]
        let passedOn = a
        var copied = a
        copied[0] = .number(1)  // equal elements, a storage of its own
        #expect(a.sharesStorage(with: passedOn))
        #expect(!a.sharesStorage(with: copied))
        #expect(!a.sharesStorage(with: [.number(1), .number(2)]))
        #expect(!a.sharesStorage(with: [.number(1)]))
        #expect([Value]().sharesStorage(with: []))
    }

    @Test func aDictionaryValueChangesInPlaceWhenItIsThere() {
        var d: [String: Value] = ["pos": .array([.number(1), .number(2)])]
        let changed = d.updateValue(forKey: "pos") { $0.updateComponent(["1"]) { _ in .number(5) } }
        #expect(changed == true && d["pos"] == .array([.number(1), .number(5)]))
        var called = false
        #expect(d.updateValue(forKey: "missing") { _ in called = true } == nil)
        #expect(!called && d.count == 1)
    }
}
