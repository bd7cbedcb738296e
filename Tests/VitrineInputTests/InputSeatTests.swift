import Testing
import VitrineCore
@testable import VitrineInput

/// What devices' events mean (`InputSeat`, fed here as `InputDevices` feeds it from
/// libinput): keys, repeat, VT switching, touches and pointers mapped onto the scene, and
/// devices that go away mid-gesture.
@Suite struct InputSeatTests {
    /// A seat with one keyboard (id 1) and one touchscreen (id 2), recording what it emits,
    /// the repeat timer's arming and the VT switches.
    final class Harness {
        var events: [InputEvent] = []
        var timer: [KeyRepeat.Timing?] = []
        var switches: [Int] = []
        let seat: InputSeat

        init(_ configure: (inout InputSettings) -> Void = { _ in }, output: OutputGeometry = OutputGeometry(width: 800, height: 600)) throws {
            var settings = InputSettings()
            settings.keymap.layout = "us"
            configure(&settings)
            var sink: (InputEvent) -> Void = { _ in }
            seat = try InputSeat(settings: settings, output: output) { sink($0) }
            sink = { [unowned self] in events.append($0) }
            seat.armRepeat = { [unowned self] in timer.append($0) }
            seat.switchVirtualTerminal = { [unowned self] in switches.append($0) }
            seat.added(1, .init(name: "kbd", node: "/dev/input/event1", capabilities: [.keyboard]))
            seat.added(2, .init(name: "touch", node: "/dev/input/event2", capabilities: [.touch, .pointer]))
        }

        var keys: [KeyEvent] { events.compactMap { if case .key(let k) = $0 { k } else { nil } } }
        var touches: [TouchEvent] { events.compactMap { if case .touch(let t) = $0 { t } else { nil } } }
        var pointers: [PointerEvent] { events.compactMap { if case .pointer(let p) = $0 { p } else { nil } } }
    }

    static let (keyA, keyB, leftShift, leftControl, leftAlt, f3) = (UInt32(30), UInt32(48), UInt32(42), UInt32(29), UInt32(56), UInt32(61))

    @Test func aHeldKeyArmsTheRepeatTimerAndItsReleaseDisarmsIt() throws {
        let h = try Harness()
        h.seat.key(Self.keyA, pressed: true, time: 10, device: 1)
        #expect(h.timer == [KeyRepeat.Timing(delay: 0.6, interval: 0.04)])
        h.seat.repeatFired(2)
        #expect(h.keys.map { ($0.time * 1000).rounded() } == [10_000, 10_600, 10_640])
        #expect(h.keys.dropFirst().allSatisfy { $0.isRepeat && $0.pressed && $0.text == "a" && $0.device == "kbd" })
        h.seat.key(Self.keyA, pressed: false, time: 11, device: 1)
        #expect(h.timer.last == .some(nil), "the release disarms the timer")
        h.seat.repeatFired(1)
        #expect(h.keys.count == 4, "nothing repeats after the release")
    }

    @Test func aModifierArmsNoTimerAndAnotherKeyStopsTheRepeat() throws {
        let h = try Harness()
        h.seat.key(Self.keyA, pressed: true, time: 1, device: 1)
        h.seat.key(Self.leftShift, pressed: true, time: 1.2, device: 1)
        #expect(h.timer.last == .some(nil), "Shift does not repeat, and stops A's repeat")
        h.seat.key(Self.keyB, pressed: true, time: 1.3, device: 1)
        #expect(h.seat.repetition.held?.code == Self.keyB)
        h.seat.key(Self.keyA, pressed: false, time: 1.4, device: 1)
        #expect(h.seat.repetition.held?.code == Self.keyB, "releasing A leaves B repeating")
        h.seat.repeatFired(1)
        #expect(h.keys.last?.text == "B")
    }

    @Test func aRateOfZeroNeverRepeats() throws {
        let h = try Harness { $0.repeatRate = 0 }
        h.seat.key(Self.keyA, pressed: true, time: 1, device: 1)
        #expect(h.timer == [nil])
    }

    @Test func controlAltFunctionKeySwitchesTheVTAndIsNotPassedOn() throws {
        let h = try Harness()
        for key in [Self.leftControl, Self.leftAlt, Self.f3] { h.seat.key(key, pressed: true, time: 1, device: 1) }
        for key in [Self.f3, Self.leftAlt, Self.leftControl] { h.seat.key(key, pressed: false, time: 2, device: 1) }
        #expect(h.switches == [3])
        #expect(!h.keys.contains { $0.keycode == Self.f3 }, "neither the press nor the release of F3 reaches scripts")
        #expect(h.keys.count == 4)
    }

    @Test func withoutVTSwitchingTheSwitchKeysArePlainKeys() throws {
        let h = try Harness { $0.vtSwitching = false }
        for key in [Self.leftControl, Self.leftAlt, Self.f3] { h.seat.key(key, pressed: true, time: 1, device: 1) }
        #expect(h.switches.isEmpty)
        #expect(h.keys.last?.keysym == "XF86Switch_VT_3")
    }

    @Test func aKeyboardRemovedWithKeysDownReleasesThem() throws {
        let h = try Harness()
        h.seat.key(Self.leftShift, pressed: true, time: 1, device: 1)
        h.seat.key(Self.keyA, pressed: true, time: 1.1, device: 1)
        h.seat.removed(1, at: 2)
        #expect(h.keys.suffix(2).map { "\($0.keycode) \($0.pressed)" } == ["30 false", "42 false"])
        #expect(h.timer.last == .some(nil), "the repeat stops with the device")
        #expect(h.seat.keyboard.modifiers.isEmpty)
        #expect(h.seat.devices.map(\.name) == ["touch"])
    }

    @Test func aKeyHeldOnTwoKeyboardsIsPressedUntilBothReleaseIt() throws {
        let h = try Harness()
        h.seat.added(3, .init(name: "kbd2", node: "/dev/input/event3", capabilities: [.keyboard]))
        h.seat.key(Self.leftShift, pressed: true, time: 1, device: 1)
        h.seat.key(Self.leftShift, pressed: true, time: 1, device: 3)
        h.seat.key(Self.leftShift, pressed: false, time: 2, device: 1)
        h.seat.key(Self.keyA, pressed: true, time: 3, device: 3)
        #expect(h.keys.map(\.text) == ["", "A"], "one press of Shift, and it still holds")
        h.seat.key(Self.leftShift, pressed: false, time: 4, device: 3)
        #expect(h.keys.last?.pressed == false && h.keys.last?.keycode == Self.leftShift)
    }

    @Test func aReleaseOfAKeyNeverPressedIsIgnored() throws {
        let h = try Harness()
        h.seat.key(Self.keyA, pressed: false, time: 1, device: 1)
        #expect(h.events.isEmpty)
    }

    @Test func touchesAreFollowedByTheirSeatSlotAndLiftedWhereTheyWereLast() throws {
        let h = try Harness()
        h.seat.touch(0, down: true, panelX: 100, panelY: 50, time: 1, device: 2)
        h.seat.touch(1, down: true, panelX: 700, panelY: 500, time: 1, device: 2)
        h.seat.touch(0, down: false, panelX: 120, panelY: 60, time: 1.1, device: 2)
        h.seat.touchEnded(0, cancelled: false, time: 1.2, device: 2)
        #expect(h.touches.map { "\($0.phase) \($0.id) \($0.point)" } == ["down 0 [100, 50]", "down 1 [700, 500]", "motion 0 [120, 60]", "up 0 [120, 60]"])
        #expect(h.touches.allSatisfy { $0.device == "touch" })
    }

    @Test func aTouchscreenRemovedWithTouchesDownCancelsThem() throws {
        let h = try Harness()
        h.seat.touch(4, down: true, panelX: 10, panelY: 10, time: 1, device: 2)
        h.seat.touch(5, down: true, panelX: 20, panelY: 20, time: 1, device: 2)
        h.seat.removed(2, at: 2)
        #expect(h.touches.suffix(2).map { "\($0.phase) \($0.id) \($0.point)" } == ["cancel 4 [10, 10]", "cancel 5 [20, 20]"])
        h.seat.touchEnded(4, cancelled: false, time: 3, device: 2)
        #expect(h.touches.count == 4, "a late lift of a cancelled touch is dropped")
    }

    @Test func touchesJustOutsideTheScreenAreClampedFarOnesPassedOnAndNonFiniteOnesCancelled() throws {
        let h = try Harness()
        h.seat.touch(0, down: true, panelX: -3, panelY: 610, time: 1, device: 2)
        #expect(h.touches.last?.point == Point(x: 0, y: 600), "within tap_slop (12 px): onto the screen")
        h.seat.touch(0, down: false, panelX: -30, panelY: 9000, time: 1.5, device: 2)
        #expect(h.touches.last?.point == Point(x: -30, y: 9000), "farther: as it is, for the gesture recognizer to cancel")
        h.seat.touch(0, down: false, panelX: .nan, panelY: 5, time: 2, device: 2)
        #expect(h.touches.last?.phase == .cancel)
        h.seat.touch(1, down: true, panelX: .infinity, panelY: 5, time: 3, device: 2)
        #expect(h.touches.count == 3, "a touch that is not a position does not go down")
    }

    @Test func touchesLandOnWhatIsDrawnUnderThemOnARotatedOutput() throws {
        // A 600×800 portrait scene on an 800×600 panel turned a quarter clockwise: the
        // panel's top-left corner shows the scene's bottom-left.
        let h = try Harness(output: OutputGeometry(width: 600, height: 800, rotation: 90))
        h.seat.touch(0, down: true, panelX: 0, panelY: 0, time: 1, device: 2)
        h.seat.touch(1, down: true, panelX: 800, panelY: 0, time: 1, device: 2)
        h.seat.touch(2, down: true, panelX: 100, panelY: 500, time: 1, device: 2)
        #expect(h.touches.map(\.point) == [Point(x: 0, y: 800), Point(x: 0, y: 0), Point(x: 500, y: 700)])
    }

    @Test func theRelativePointerStartsInTheMiddleAndStaysOnTheScreen() throws {
        let h = try Harness()
        h.seat.pointerMoved(dx: 10, dy: -20, time: 1, device: 2)
        #expect(h.pointers.last?.point == Point(x: 410, y: 280))
        h.seat.pointerMoved(dx: 5000, dy: 5000, time: 2, device: 2)
        #expect(h.pointers.last?.point == Point(x: 800, y: 600))
        h.seat.pointerMoved(dx: .nan, dy: 1, time: 3, device: 2)
        #expect(h.pointers.count == 2)
        h.seat.update(output: OutputGeometry(width: 400, height: 300))
        h.seat.pointerMoved(dx: 0, dy: 0, time: 4, device: 2)
        #expect(h.pointers.last?.point == Point(x: 400, y: 300), "a smaller output takes the pointer with it")
    }

    @Test func buttonsAndScrollingCarryThePointersPosition() throws {
        let h = try Harness()
        h.seat.pointerMoved(panelX: 20, panelY: 30, time: 1, device: 2)
        h.seat.button(0x110, pressed: true, time: 2, device: 2)
        h.seat.button(0x110, pressed: true, time: 2, device: 2)
        h.seat.scroll(dx: 0, dy: 15, time: 3, device: 2)
        h.seat.scroll(dx: 0, dy: 0, time: 3, device: 2)
        h.seat.removed(2, at: 4)
        #expect(h.pointers.map(\.kind) == [.motion, .button(0x110, pressed: true), .axis(dx: 0, dy: 15), .button(0x110, pressed: false)])
        #expect(h.pointers.allSatisfy { $0.point == Point(x: 20, y: 30) })
    }

    @Test func applyingSettingsChangesTheKeymapAndTheRepeatButNotTheSeat() throws {
        let h = try Harness()
        var new = h.seat.settings
        new.keymap.layout = "de"
        new.repeatRate = 10
        new.seat = "seat1"
        try h.seat.apply(new)
        h.seat.key(21, pressed: true, time: 1, device: 1)
        #expect(h.keys.last?.text == "z")
        #expect(h.timer.last == .some(KeyRepeat.Timing(delay: 0.6, interval: 0.1)))
        #expect(h.seat.settings.seat == "seat0")
        new.keymap.layout = "zz"
        #expect(throws: InputError.self) { try h.seat.apply(new) }
        #expect(h.seat.keyboard.names.layout == "de", "a keymap that does not compile changes nothing")
    }
}
