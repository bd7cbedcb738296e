import Glibc
import Testing
import VitrineCore
@testable import VitrineInput

/// Key repeat's timing, without a clock: which key repeats and at which kernel times.
@Suite struct KeyRepeatTests {
    @Test func repeatsComeAfterTheDelayThenAtTheRate() {
        var repetition = KeyRepeat(delay: 0.5, rate: 10)
        let timing = repetition.press(30, device: 1, at: 100, repeats: true)
        #expect(timing == KeyRepeat.Timing(delay: 0.5, interval: 0.1))
        let first = repetition.expired(1)
        #expect(first == [100.5])
        let next = repetition.expired(2)
        #expect(next.count == 2 && abs(next[0] - 100.6) < 1e-9 && abs(next[1] - 100.7) < 1e-9)
        #expect(repetition.count == 3)
    }

    @Test func aLateLoopSendsOnlyTheLastFewRepeatsItMissed() {
        var repetition = KeyRepeat(delay: 0.25, rate: 40)
        _ = repetition.press(30, device: 1, at: 0, repeats: true)
        let times = repetition.expired(400)
        #expect(times.count == KeyRepeat.burst)
        #expect(abs(times.last! - (0.25 + 399 * 0.025)) < 1e-9, "the times stay those of the timer's ticks")
    }

    @Test func releaseStopsOnlyTheKeyRepeatingAndRemovalStopsItsDevice() {
        var repetition = KeyRepeat(delay: 0.5, rate: 10)
        _ = repetition.press(30, device: 1, at: 0, repeats: true)
        let (other, same) = (repetition.release(31), repetition.release(30))
        #expect(!other && same)
        let after = repetition.expired(1)
        #expect(after.isEmpty)
        _ = repetition.press(30, device: 1, at: 0, repeats: true)
        let (otherDevice, sameDevice) = (repetition.remove(device: 2), repetition.remove(device: 1))
        #expect(!otherDevice && sameDevice)
        #expect(repetition.held == nil)
    }

    @Test func aKeyThatDoesNotRepeatStopsTheOneThatDid() {
        var repetition = KeyRepeat(delay: 0.5, rate: 10)
        _ = repetition.press(30, device: 1, at: 0, repeats: true)
        let timing = repetition.press(42, device: 1, at: 0.2, repeats: false)
        #expect(timing == nil)
        #expect(repetition.held == nil)
    }

    @Test func settingsGiveMillisecondsAndTheRate() {
        var settings = InputSettings()
        settings.repeatDelayMilliseconds = 250
        settings.repeatRate = 0
        let repetition = KeyRepeat(settings)
        #expect(repetition.delay == 0.25 && repetition.interval == nil)
    }

    @Test func theTimerIsArmedOnlyWhileAKeyRepeats() throws {
        let timer = try RepeatTimer()
        #expect(!timer.isArmed)
        timer.arm(KeyRepeat.Timing(delay: 0.001, interval: 0.001))
        #expect(timer.isArmed)
        usleep(5000)
        #expect(timer.read() >= 2)
        timer.disarm()
        #expect(!timer.isArmed)
        #expect(timer.read() == 0)
    }
}

/// Positions from the panel onto the scene, for each rotation.
@Suite struct OutputGeometryTests {
    @Test func thePanelIsTheSceneWithItsSidesSwappedForQuarterTurns() {
        let portrait = OutputGeometry(width: 600, height: 800, rotation: 270)
        #expect((portrait.panelWidth, portrait.panelHeight) == (800, 600))
        #expect(OutputGeometry(width: 600, height: 800, rotation: 180).panelWidth == 600)
        #expect(OutputGeometry(width: 10, height: 10, rotation: -90).rotation == 270)
        #expect(OutputGeometry(width: 10, height: 10, rotation: 100).rotation == 90)
    }

    /// The panel's corners, in order top-left, top-right, bottom-right, bottom-left, land on
    /// the scene's corners turned back.
    @Test(arguments: [
        (0, ["0 0", "80 0", "80 60", "0 60"]), (90, ["0 80", "0 0", "60 0", "60 80"]),
        (180, ["80 60", "0 60", "0 0", "80 0"]), (270, ["60 0", "60 80", "0 80", "0 0"]),
    ])
    func panelCornersLandOnTheSceneCornersTheyShow(rotation: Int, expected: [String]) throws {
        let sides = rotation % 180 == 0 ? (80, 60) : (60, 80)
        let output = OutputGeometry(width: sides.0, height: sides.1, rotation: rotation)
        let (w, h) = (Double(output.panelWidth), Double(output.panelHeight))
        let corners = try [(0.0, 0.0), (w, 0), (w, h), (0, h)].map { x, y in
            let p = try #require(output.scenePoint(panelX: x, panelY: y))
            return "\(Int(p.x)) \(Int(p.y))"
        }
        #expect(corners == expected)
    }

    @Test func positionsAreClampedAndNonFiniteOnesRefused() {
        let output = OutputGeometry(width: 100, height: 50)
        #expect(output.scenePoint(panelX: -5, panelY: 70) == Point(x: 0, y: 50))
        #expect(output.scenePoint(panelX: -5, panelY: 58, clampingWithin: 8) == Point(x: 0, y: 50))
        #expect(output.scenePoint(panelX: -5, panelY: 59, clampingWithin: 8) == Point(x: -5, y: 59))
        #expect(output.scenePoint(panelX: .nan, panelY: 1) == nil)
        #expect(output.scenePoint(panelX: 1, panelY: -.infinity) == nil)
    }
}
