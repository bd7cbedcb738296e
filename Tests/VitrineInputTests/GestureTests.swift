import Testing
import VitrineCore
import VitrineInput

/// Layers as rectangles of the screen, the last on top; a layer's coordinates are the
/// screen's with the origin at its rectangle's.
struct BoxScene {
    var layers: [(id: String, frame: Rect)] = [
        ("root", Rect(x: 0, y: 0, width: 800, height: 600)),
        ("button", Rect(x: 100, y: 100, width: 200, height: 100)),
        ("card", Rect(x: 400, y: 100, width: 200, height: 200)),
    ]

    func hitTest(_ p: Point) -> (layer: String, point: Point)? {
        layers.last { $0.frame.contains(p) }.map { ($0.id, p - $0.frame.origin) }
    }

    func convert(_ p: Point, _ id: String) -> Point? {
        layers.first { $0.id == id }.map { p - $0.frame.origin }
    }

    func bounds(_ id: String) -> Rect? {
        layers.first { $0.id == id }.map { Rect(origin: .zero, size: $0.frame.size) }
    }
}

func down(_ t: Double, _ x: Double, _ y: Double, id: Int = 0, device: String = "") -> TouchEvent {
    TouchEvent(time: t, phase: .down, id: id, point: Point(x: x, y: y), device: device)
}

func move(_ t: Double, _ x: Double, _ y: Double, id: Int = 0) -> TouchEvent {
    TouchEvent(time: t, phase: .motion, id: id, point: Point(x: x, y: y))
}

func up(_ t: Double, _ x: Double, _ y: Double, id: Int = 0) -> TouchEvent {
    TouchEvent(time: t, phase: .up, id: id, point: Point(x: x, y: y))
}

/// Gesture recognition on recorded event sequences: taps, long presses, drags and their
/// velocity, several touches, the pointer, and input no touchscreen should send.
@Suite struct GestureTests {
    let scene = BoxScene()

    /// The gestures of `events` in turn, with `scene`'s geometry (its bounds too unless
    /// `withBounds` is false).
    func run(_ r: GestureRecognizer, _ events: [TouchEvent], scene: BoxScene? = nil, withBounds: Bool = true) -> [Gesture] {
        run(r, events.map(InputEvent.touch), scene: scene, withBounds: withBounds)
    }

    func run(_ r: GestureRecognizer, _ events: [InputEvent], scene: BoxScene? = nil, withBounds: Bool = true) -> [Gesture] {
        let s = scene ?? self.scene
        return events.flatMap { event in
            withBounds
                ? r.handle(event, hitTest: s.hitTest, convert: s.convert, bounds: s.bounds)
                : r.handle(event, hitTest: s.hitTest, convert: s.convert)
        }
    }

    func recognizer(area: Rect? = nil) -> GestureRecognizer {
        let r = GestureRecognizer(settings: InputSettings())
        r.area = area
        return r
    }

    func velocity(of gesture: Gesture?) -> Point? {
        switch gesture {
        case .dragBegan(_, _, _, let v, _, _), .dragChanged(_, _, _, let v, _, _), .dragEnded(_, _, _, let v, _, _): v
        default: nil
        }
    }

    func translation(of gesture: Gesture?) -> Point? {
        switch gesture {
        case .dragBegan(_, _, let t, _, _, _), .dragChanged(_, _, let t, _, _, _), .dragEnded(_, _, let t, _, _, _): t
        default: nil
        }
    }

    @Test func tap() {
        let r = recognizer()
        let gestures = run(r, [down(0, 150, 150), move(0.03, 153, 152), move(0.06, 155, 148), up(0.09, 155, 148)])
        #expect(
            gestures == [
                .press(layer: "button", point: Point(x: 50, y: 50), touch: 0, time: 0),
                .release(layer: "button", point: Point(x: 55, y: 48), inside: true, touch: 0, time: 0.09),
                .tap(layer: "button", point: Point(x: 55, y: 48), touch: 0, time: 0.09),
            ])
        #expect(r.activeTouches.isEmpty && r.nextDeadline == nil)
    }

    @Test func noTapAfterMovingBeyondTheSlop() {
        let r = recognizer()
        let gestures = run(r, [down(0, 150, 150), move(0.02, 158, 150), move(0.04, 166, 150), up(0.06, 166, 150)])
        #expect(gestures.map(\.name) == ["press", "dragBegan", "release", "dragEnded"])
        #expect(
            gestures[1]
                == .dragBegan(
                    layer: "button", point: Point(x: 66, y: 50), translation: Point(x: 16, y: 0), velocity: velocity(of: gestures[1]) ?? .zero,
                    touch: 0, time: 0.04))
        // Out beyond the slop and back: still no tap.
        let back = run(r, [down(1, 150, 150), move(1.02, 170, 150), move(1.04, 151, 150), up(1.06, 151, 150)])
        #expect(back.map(\.name) == ["press", "dragBegan", "dragChanged", "release", "dragEnded"])
        #expect(translation(of: back.last) == Point(x: 1, y: 0))
    }

    @Test func longPressFiresAtTheDeadlineAndThenNoTap() {
        let r = recognizer()
        #expect(run(r, [down(10, 150, 150), move(10.2, 153, 150)]).map(\.name) == ["press"])
        #expect(r.nextDeadline == 10.5)
        #expect(r.advance(to: 10.4).isEmpty)
        #expect(r.advance(to: 10.5) == [.longPress(layer: "button", point: Point(x: 53, y: 50), touch: 0, time: 10.5)])
        #expect(r.nextDeadline == nil)
        #expect(r.advance(to: 11).isEmpty)
        #expect(run(r, [up(10.8, 153, 150)]) == [.release(layer: "button", point: Point(x: 53, y: 50), inside: true, touch: 0, time: 10.8)])
    }

    @Test func aLongPressDueFiresBeforeTheNextEvent() {
        // The daemon's timer was late: the up comes first, the long press still fires at
        // its deadline, and the up is no tap.
        let r = recognizer()
        #expect(run(r, [down(0, 150, 150), up(0.7, 150, 150)]).map(\.name) == ["press", "longPress", "release"])
    }

    @Test func movingBeyondTheSlopEndsTheLongPressWait() {
        let r = recognizer()
        _ = run(r, [down(0, 150, 150), move(0.3, 170, 150)])
        #expect(r.nextDeadline == nil)
        #expect(r.advance(to: 1).isEmpty)
        // After a long press, a drag may follow (press, hold, then move it).
        let held = run(r, [down(1, 450, 150, id: 1)]) + r.advance(to: 1.5) + run(r, [move(1.6, 480, 150, id: 1), up(1.7, 480, 150, id: 1)])
        #expect(held.map(\.name) == ["press", "longPress", "dragBegan", "release", "dragEnded"])
    }

    /// A swipe at constant speed, sampled at 125 Hz with timestamps off by up to half a
    /// millisecond: the velocity is the swipe's within 5 %.
    @Test func dragVelocityMatchesAConstantSpeedSwipe() {
        let r = recognizer()
        let speed = Point(x: 600, y: -800)
        var events = [down(0, 150, 190)]
        for i in 1...25 {
            let t = Double(i) * 0.008
            let jitter = (i % 3 == 0 ? 0.0005 : i % 3 == 1 ? -0.0004 : 0.0001)
            events.append(move(t + jitter, 150 + speed.x * t, 190 + speed.y * t))
        }
        let last = events.last!.point
        events.append(up(0.204, last.x, last.y))
        let gestures = run(r, events)
        let ended = gestures.last
        #expect(ended?.name == "dragEnded")
        let v = velocity(of: ended) ?? .zero
        #expect(abs(v.x - speed.x) <= 0.05 * 1000 && abs(v.y - speed.y) <= 0.05 * 1000, "velocity \(v)")
        #expect(translation(of: ended) == last - Point(x: 150, y: 190))
        // Every velocity reported along the way is the swipe's too, once two samples are in.
        for g in gestures.dropFirst(2) where velocity(of: g) != nil {
            let w = velocity(of: g)!
            #expect(abs(w.x - speed.x) <= 50 && abs(w.y - speed.y) <= 50, "\(g)")
        }
    }

    @Test func dragVelocityIsOneThousandPixelsPerSecond() {
        let r = recognizer()
        let events = [down(0, 110, 150)] + (1...12).map { move(Double($0) * 0.01, 110 + 10 * Double($0), 150) } + [up(0.125, 230, 150)]
        let v = velocity(of: run(r, events).last) ?? .zero
        #expect(abs(v.x - 1000) <= 50 && abs(v.y) < 1e-6, "velocity \(v)")
    }

    @Test func aFingerThatStopsBeforeLiftingHasNoVelocity() {
        let r = recognizer()
        let events = [down(0, 110, 150)] + (1...12).map { move(Double($0) * 0.01, 110 + 10 * Double($0), 150) } + [up(0.27, 230, 150)]
        #expect(velocity(of: run(r, events).last) == .zero)
    }

    @Test func twoFingersAreIndependent() {
        let r = recognizer()
        let gestures = run(
            r,
            [
                down(0, 150, 150, id: 0), down(0.01, 450, 150, id: 1), move(0.03, 480, 160, id: 1),
                move(0.05, 152, 151, id: 0), up(0.1, 152, 151, id: 0), move(0.12, 500, 170, id: 1), up(0.2, 500, 170, id: 1),
            ])
        let first = gestures.filter { $0.touch == 0 }, second = gestures.filter { $0.touch == 1 }
        #expect(first.map(\.name) == ["press", "release", "tap"])
        #expect(first.allSatisfy { $0.layer == "button" })
        #expect(second.map(\.name) == ["press", "dragBegan", "dragChanged", "release", "dragEnded"])
        #expect(second.allSatisfy { $0.layer == "card" })
        #expect(translation(of: second.last) == Point(x: 50, y: 20))
    }

    @Test func aCancelEndsTheTouch() {
        let r = recognizer()
        let cancelled = TouchEvent(time: 0.1, phase: .cancel, id: 0, point: Point(x: 170, y: 150))
        let gestures = run(r, [down(0, 150, 150), move(0.05, 170, 150), cancelled, move(0.12, 180, 150), up(0.15, 180, 150)])
        #expect(gestures.map(\.name) == ["press", "dragBegan", "cancel"])
        #expect(gestures.last == .cancel(layer: "button", touch: 0, time: 0.1))
        #expect(r.activeTouches.isEmpty)
    }

    @Test func aVanishedDeviceCancelsItsTouches() {
        let r = recognizer()
        _ = run(r, [down(0, 150, 150, id: 3, device: "screen"), down(0, 450, 150, id: 1, device: "screen"), down(0, 500, 250, id: 2, device: "pad")])
        #expect(
            r.cancelAll(device: "screen", at: 0.2) == [
                .cancel(layer: "card", touch: 1, time: 0.2), .cancel(layer: "button", touch: 3, time: 0.2),
            ])
        #expect(r.activeTouches == [2])
        #expect(r.cancelAll(at: 0.3).map(\.touch) == [2])
        #expect(r.nextDeadline == nil)
    }

    @Test func garbageInputIsIgnoredOrCancelled() {
        let r = recognizer(area: Rect(x: 0, y: 0, width: 800, height: 600))
        // No touch down: ignored.
        #expect(run(r, [up(0, 150, 150), move(0, 150, 150), TouchEvent(time: 0, phase: .cancel, id: 5, point: .zero)]).isEmpty)
        // A down that cannot be: nothing pressed.
        #expect(run(r, [down(0, .nan, 150), down(0, 150, .infinity), down(.nan, 150, 150), down(0, -300, 150)]).isEmpty)
        #expect(r.activeTouches.isEmpty)
        // Coordinates that are not finite, far off the screen, a time that is not: cancelled.
        for bad in [move(1.1, .nan, 150), move(1.1, 150, -.infinity), move(1.1, 5000, 150), move(1.1, 1e12, 150), move(.nan, 150, 150), up(1.1, .nan, 0)] {
            let gestures = run(r, [down(1, 150, 150), bad])
            #expect(
                gestures == [
                    .press(layer: "button", point: Point(x: 50, y: 50), touch: 0, time: 1),
                    .cancel(layer: "button", touch: 0, time: bad.time.isFinite ? 1.1 : 1),
                ], "\(bad)")
        }
        // Just off the screen (within the slop): a drag that went a little too far, not garbage.
        #expect(run(r, [down(2, 150, 150), move(2.1, 150, -5), up(2.2, 150, -5)]).map(\.name) == ["press", "dragBegan", "release", "dragEnded"])
        // A second down with an id already down cancels the first.
        #expect(
            run(r, [down(3, 150, 150), down(3.1, 450, 150)]) == [
                .press(layer: "button", point: Point(x: 50, y: 50), touch: 0, time: 3),
                .cancel(layer: "button", touch: 0, time: 3.1),
                .press(layer: "card", point: Point(x: 50, y: 50), touch: 0, time: 3.1),
            ])
        // Time running backwards: taken as no time passing.
        let back = run(r, [move(2.9, 470, 150), up(2.95, 470, 150)])
        #expect(back.map(\.name) == ["dragBegan", "release", "dragEnded"])
        #expect(back.allSatisfy { $0.time == 3.1 })
        #expect(r.activeTouches.isEmpty && r.nextDeadline == nil)
    }

    @Test func aLayerRemovedUnderATouchCancelsIt() {
        let r = recognizer()
        var gone = scene
        gone.layers.removeAll { $0.id == "button" }
        #expect(run(r, [down(0, 150, 150)]).map(\.name) == ["press"])
        #expect(run(r, [move(0.1, 160, 150)], scene: gone) == [.cancel(layer: "button", touch: 0, time: 0.1)])
    }

    @Test func tooManyTouchesCancelTheOldest() {
        let r = recognizer()
        let gestures = run(r, (0..<40).map { down(Double($0) * 0.001, 150, 150, id: $0) })
        #expect(gestures.filter { $0.name == "cancel" }.map(\.touch) == Array(0..<8))
        #expect(r.activeTouches == Array(8..<40))
    }

    @Test func releaseInsideIsWithinTheSlopOfTheBounds() {
        for withBounds in [true, false] {
            let r = recognizer()
            // The button spans x 100…300: 5 px right of it is inside, 50 px is not.
            let near = run(r, [down(0, 150, 150), move(0.1, 305, 150), up(0.2, 305, 150)], withBounds: withBounds)
            #expect(near.contains(.release(layer: "button", point: Point(x: 205, y: 50), inside: true, touch: 0, time: 0.2)))
            let far = run(r, [down(1, 150, 150), move(1.1, 350, 150), up(1.2, 350, 150)], withBounds: withBounds)
            #expect(far.contains(.release(layer: "button", point: Point(x: 250, y: 50), inside: false, touch: 0, time: 1.2)))
        }
    }

    @Test func thePointersLeftButtonIsATouch() {
        let r = recognizer()
        func pointer(_ t: Double, _ kind: PointerEvent.Kind, _ x: Double) -> InputEvent {
            .pointer(PointerEvent(time: t, kind: kind, point: Point(x: x, y: 150)))
        }
        let ignored = run(r, [pointer(0, .motion, 150), pointer(0.1, .button(0x111, pressed: true), 150), pointer(0.2, .axis(dx: 0, dy: 15), 150)])
        #expect(ignored.isEmpty)
        let gestures = run(
            r,
            [
                pointer(1, .button(0x110, pressed: true), 150), pointer(1.05, .motion, 180), pointer(1.1, .motion, 200),
                pointer(1.15, .button(0x110, pressed: false), 200), pointer(1.2, .motion, 250),
            ])
        #expect(gestures.map(\.name) == ["press", "dragBegan", "dragChanged", "release", "dragEnded"])
        #expect(gestures.allSatisfy { $0.touch == GestureRecognizer.pointerTouch && $0.layer == "button" })
        let key = InputEvent.key(KeyEvent(time: 2, keycode: 30, keysym: "a", text: "a", pressed: true))
        #expect(run(r, [key]).isEmpty)
    }

    /// With a scene's own hit test: the point is in the layer's coordinates (halved by
    /// its doubling transform), the translation in the output's pixels.
    @Test func onASceneTheTranslationIsInOutputPixels() throws {
        let s = Scene()
        try s.addRoot(id: "screen", output: "TEST-1", size: Size(width: 800, height: 600))
        var tx = Transaction(disableActions: true)
        tx.add(
            layer: "knob", parent: "screen",
            properties: [
                "bounds": .rect(Rect(x: 0, y: 0, width: 50, height: 50)), "position": .point(Point(x: 200, y: 200)),
                "transform": .transform(AffineTransform(scaleX: 2, y: 2)),
            ])
        try s.commit(tx, at: 0)
        let r = recognizer()
        var gestures: [Gesture] = []
        for event in [down(0, 160, 160), move(0.1, 200, 160), up(0.2, 200, 160)] {
            gestures += r.handle(
                .touch(event), hitTest: { p in s.hitTest(p, root: "screen", at: event.time).map { ($0.layer, $0.point) } },
                convert: { p, layer in s.convert(p, fromRoot: "screen", to: layer, at: event.time) },
                bounds: { layer in try? s.presentationValue("bounds", of: layer, at: event.time).rect })
        }
        #expect(gestures.first == .press(layer: "knob", point: Point(x: 5, y: 5), touch: 0, time: 0))
        let last = try #require(gestures.last)
        #expect(
            last
                == .dragEnded(
                    layer: "knob", point: Point(x: 25, y: 5), translation: Point(x: 40, y: 0), velocity: velocity(of: last) ?? .zero, touch: 0, time: 0.2))
    }

    /// Random sequences full of bad input: every touch's gestures are well formed (a
    /// press, then long press and drag steps, ending in a release — followed by a tap or
    /// a drag's end — or a cancel), every number finite, and nothing is left down.
    @Test(arguments: 0..<20)
    func randomInputNeverLeavesATouchInABadState(seed: UInt64) {
        var random = Xorshift(seed: seed + 1)
        let r = recognizer(area: Rect(x: 0, y: 0, width: 800, height: 600))
        var gestures: [Gesture] = []
        var time = 0.0
        for _ in 0..<400 {
            time += [0.004, 0.01, 0.2, -0.05, 0.6][random.below(5)]
            let t = random.below(40) == 0 ? Double.nan : time
            let coordinates: [Double] = [.nan, .infinity, -1e15, -30, 5000]
            func coordinate(_ range: Double) -> Double {
                random.below(15) == 0 ? coordinates[random.below(coordinates.count)] : Double(random.below(Int(range)))
            }
            let phase = TouchEvent.Phase.allCases[random.below(4)]
            let event = TouchEvent(time: t, phase: phase, id: random.below(4), point: Point(x: coordinate(800), y: coordinate(600)))
            gestures += run(r, [event])
            if random.below(10) == 0 { gestures += r.advance(to: time) }
        }
        gestures += r.cancelAll(at: time + 1)
        #expect(r.activeTouches.isEmpty && r.nextDeadline == nil)
        enum Stage { case up, down, released }
        var stage: [Int: Stage] = [:]
        for g in gestures {
            let before = stage[g.touch] ?? .up
            let expected: [Stage] =
                switch g.name {
                case "press": [.up, .released]
                case "tap", "dragEnded": [.released]
                default: [.down]
                }
            #expect(expected.contains(before), "seed \(seed): \(g) after \(before)")
            stage[g.touch] =
                switch g.name {
                case "press", "longPress", "dragBegan", "dragChanged": .down
                case "release": .released
                default: .up
                }
            #expect(g.time.isFinite)
            for p in [velocity(of: g), translation(of: g)].compactMap({ $0 }) { #expect(p.x.isFinite && p.y.isFinite, "\(g)") }
        }
        #expect(stage.values.allSatisfy { $0 != .down })
    }
}

/// A small seeded generator, so that a failing random sequence reproduces.
struct Xorshift {
    var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    mutating func below(_ n: Int) -> Int {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Int(state % UInt64(n))
    }
}
