import Testing
import VitrineOutput

/// The pacing of frames, driven by a fake clock and a fake flip: what QEMU's GPUs (flips
/// come back at once, no vblank) cannot show.
@Suite struct FramePacerTests {
    /// A clock and a timer queue under the test's control.
    final class FakeLoop {
        var now = 0.0
        var timers: [(at: Double, body: () -> Void)] = []
        /// How late every timer fires, as a busy machine's wake-ups do.
        var lateness = 0.0

        func schedule(_ delay: Double, _ body: @escaping () -> Void) { timers.append((now + delay + lateness, body)) }

        /// Runs the timers due by `time`, in order, advancing the clock to each.
        func run(until time: Double) {
            while let next = timers.enumerated().filter({ $0.element.at <= time }).min(by: { $0.element.at < $1.element.at }) {
                timers.remove(at: next.offset)
                now = max(now, next.element.at)
                next.element.body()
            }
            now = time
        }
    }

    /// A pacer at 60 Hz whose frames present when `changed` says so and record their time.
    final class Harness {
        let loop = FakeLoop()
        var pacer: FramePacer!
        var frames: [Double] = []
        var changed = true
        var animating = false

        init(rate: Double = 60) {
            pacer = FramePacer(refreshRate: rate, now: { [unowned self] in loop.now }, schedule: { [unowned self] in loop.schedule($0, $1) })
            pacer.render = { [unowned self] in
                guard changed else { return false }
                frames.append(loop.now)
                if animating { pacer.request() }
                return true
            }
        }
    }

    @Test func nothingRequestedNothingRendered() {
        let h = Harness()
        h.loop.run(until: 1)
        #expect(h.frames.isEmpty)
        #expect(h.loop.timers.isEmpty)
    }

    @Test func aRequestRendersAtOnceWhenIdle() {
        let h = Harness()
        h.pacer.request()
        h.loop.run(until: 0)
        #expect(h.frames == [0])
        #expect(h.pacer.inFlight)
    }

    /// While a flip is pending, requests wait; the flip event lets the next frame go.
    @Test func atMostOneFrameInFlight() {
        let h = Harness()
        h.animating = true
        h.pacer.request()
        h.loop.run(until: 0.5)
        #expect(h.frames == [0])  // no flip event came: no second frame
        h.pacer.request()
        h.loop.run(until: 0.6)
        #expect(h.frames == [0])
        h.pacer.frameDone()
        h.loop.run(until: 0.6)
        #expect(h.frames == [0, 0.6])
    }

    /// A compositor's frame callbacks (Wayland) pace the frames: each callback lets the
    /// next frame go at once. Without that, a callback 10 ms into the pacer's 60 Hz slot
    /// waits 6.7 ms for the next slot, and a commit that late can miss the compositor's
    /// repaint (which starts a few ms before its vblank) and lose a frame.
    @Test func framesFollowTheCompositorsCallbacksWhenItPacesThem() {
        for follows in [true, false] {
            let h = Harness()
            h.pacer.followsFrameDone = follows
            h.animating = true
            h.pacer.request()
            h.loop.run(until: 0)
            let callbacks = (0..<4).map { 0.010 + Double($0) / 60 }
            for time in callbacks {
                h.loop.run(until: time)
                h.pacer.frameDone()
                h.loop.run(until: time)
            }
            h.loop.run(until: 0.07)
            let expected = follows ? [0] + callbacks : (0...4).map { Double($0) / 60 }
            #expect(h.frames.count == 5 && zip(h.frames, expected).allSatisfy { abs($0 - $1) < 1e-9 }, "follows \(follows): \(h.frames)")
        }
    }

    /// Flips that complete at once (emulated GPUs) still give at most the refresh rate.
    @Test func immediateFlipsAreCappedAtTheRefreshRate() {
        let h = Harness(rate: 50)
        h.animating = true
        h.pacer.render = { [unowned h] in
            h.frames.append(h.loop.now)
            h.pacer.request()
            h.pacer.frameDone()  // the backend reports the flip from inside present
            return true
        }
        h.pacer.request()
        h.loop.run(until: 0.1001)
        #expect(h.frames.count == 6)
        for (a, b) in zip(h.frames, h.frames.dropFirst()) { #expect(abs(b - a - 0.02) < 1e-9) }
    }

    /// Wake-ups that come 4 ms late, with flips that come back at once: the frames keep
    /// the 60 Hz grid, each 4 ms after its slot, instead of every period growing by 4 ms.
    @Test func lateWakeUpsKeepTheRate() {
        let h = Harness()
        h.animating = true
        h.loop.lateness = 0.004
        h.pacer.render = { [unowned h] in
            h.frames.append(h.loop.now)
            h.pacer.request()
            h.pacer.frameDone()
            return true
        }
        h.pacer.request()
        h.loop.run(until: 1.0)
        #expect(h.frames.count >= 59, "\(h.frames.count) frames in a second")
        for (k, time) in h.frames.enumerated().dropFirst() {
            #expect(abs(time - (Double(k) / 60 + 0.004)) < 1e-9, "frame \(k) at \(time)")
        }
    }

    /// After an idle spell, a request renders at its first wake-up and starts a new grid.
    @Test func aRequestAfterIdleStartsANewGrid() {
        let h = Harness()
        h.pacer.request()
        h.loop.run(until: 0.5)
        h.loop.now = 0.5123
        h.pacer.request()
        h.pacer.frameDone()
        h.loop.run(until: 0.52)
        h.pacer.frameDone()
        h.pacer.request()
        h.loop.run(until: 0.6)
        #expect(h.frames.count == 3 && abs(h.frames[1] - 0.5123) < 1e-9 && abs(h.frames[2] - (0.5123 + 1.0 / 60)) < 1e-9, "\(h.frames)")
    }

    /// Flips paced by a 60 Hz vblank: one frame per flip event, none in between.
    @Test func vblankPacedFlips() {
        let h = Harness()
        h.animating = true
        h.pacer.request()
        for tick in 1...5 {
            h.loop.run(until: Double(tick) / 60)
            h.pacer.frameDone()
            h.loop.run(until: Double(tick) / 60 + 0.001)
        }
        #expect(h.frames.count == 6)
    }

    /// A frame that turns out unchanged presents nothing: no flip is awaited, and the
    /// next request renders without a flip event.
    @Test func unchangedFrameIsNotInFlight() {
        let h = Harness()
        h.changed = false
        h.pacer.request()
        h.loop.run(until: 0)
        #expect(!h.pacer.inFlight)
        h.changed = true
        h.pacer.request()
        h.loop.run(until: 1)
        #expect(h.frames == [1.0 / 60])
    }

    /// Many requests between two frames make one frame.
    @Test func requestsCoalesce() {
        let h = Harness()
        h.pacer.request(); h.pacer.request(); h.pacer.request()
        h.loop.run(until: 0)
        h.pacer.frameDone()
        h.loop.run(until: 1)
        #expect(h.frames == [0])
        #expect(!h.pacer.requested)
    }

    /// When the scene stops animating, frames stop and no timer is left behind.
    @Test func idleAfterAnimation() {
        let h = Harness()
        h.animating = true
        h.pacer.request()
        h.loop.run(until: 0)
        h.animating = false
        h.pacer.frameDone()
        h.loop.run(until: 1)
        h.pacer.frameDone()
        h.loop.run(until: 2)
        #expect(h.frames.count == 2)
        #expect(h.loop.timers.isEmpty)
    }
}
