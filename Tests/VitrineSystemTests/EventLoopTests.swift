import Foundation
import Synchronization
import Testing
import VitrineSystem

/// The daemon's event loop: timers in deadline order, work handed over from other
/// threads, descriptors, and sleeping while there is nothing to do.
@Suite struct EventLoopTests {
    /// Each test runs with both ways of sleeping until a deadline.
    static let sleeps: [EventLoop.Sleep] = [.epollTimeout, .timerfd]

    /// Runs `loop` on a thread of its own until it stops; returns when it has.
    static func runToStop(_ loop: EventLoop) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            loop.run(); done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 10) == .success, "the loop did not stop")
    }

    @Test(arguments: Self.sleeps) func timersRunInDeadlineOrderAndTiesInTheOrderScheduled(sleep: EventLoop.Sleep) throws {
        let loop = try EventLoop(sleep: sleep)
        nonisolated(unsafe) var order: [String] = []
        loop.schedule(after: 0.03) { order.append("30 ms") }
        loop.schedule(after: 0.01) { order.append("10 ms") }
        loop.schedule(after: 0) { order.append("now, first") }
        loop.schedule(after: 0) { order.append("now, second") }
        loop.schedule(after: 0.02) {
            order.append("20 ms")
            loop.schedule(after: 0) { order.append("scheduled at 20 ms for at once") }
        }
        loop.schedule(after: 0.05) { loop.stop() }
        let start = Date()
        Self.runToStop(loop)
        #expect(order == ["now, first", "now, second", "10 ms", "20 ms", "scheduled at 20 ms for at once", "30 ms"])
        #expect(Date().timeIntervalSince(start) >= 0.05, "a timer ran before its deadline")
    }

    @Test(arguments: Self.sleeps) func aCancelledTimerNeitherRunsNorWakesTheLoop(sleep: EventLoop.Sleep) throws {
        let loop = try EventLoop(sleep: sleep)
        nonisolated(unsafe) var ran: [String] = []
        let cancelled = loop.schedule(after: 0.05) { ran.append("cancelled") }
        loop.schedule(after: 0.01) { ran.append("kept") }
        loop.cancel(cancelled)
        loop.cancel(cancelled)
        Thread {
            Thread.sleep(forTimeInterval: 0.2)
            loop.stop()
        }.start()
        Self.runToStop(loop)
        #expect(ran == ["kept"])
        // The first pass, the kept timer, the stop: not the cancelled deadline.
        #expect(loop.wakeUps <= 3, "the loop woke \(loop.wakeUps) times")
    }

    @Test(arguments: Self.sleeps) func workFromOtherThreadsRunsOnTheLoopsThread(sleep: EventLoop.Sleep) throws {
        let loop = try EventLoop(sleep: sleep)
        let ran = Mutex<[Bool]>([])
        nonisolated(unsafe) var loopThread: pthread_t?
        loop.schedule(after: 0) { loopThread = pthread_self() }
        let started = DispatchSemaphore(value: 0)
        loop.schedule(after: 0) { started.signal() }
        Thread { loop.run() }.start()
        #expect(started.wait(timeout: .now() + 10) == .success)
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            loop.execute { ran.withLock { $0.append(pthread_equal(pthread_self(), loopThread!) != 0) } }
        }
        let done = DispatchSemaphore(value: 0)
        loop.execute { done.signal() }
        #expect(done.wait(timeout: .now() + 10) == .success)
        loop.stop()
        let results = ran.withLock { $0 }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0 }, "work ran off the loop's thread")
    }

    @Test(arguments: Self.sleeps) func watchedDescriptorsAreServedUntilUnwatched(sleep: EventLoop.Sleep) throws {
        let loop = try EventLoop(sleep: sleep)
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        nonisolated(unsafe) var received: [UInt8] = []
        try loop.watch(ends[0], for: .readable) { _ in
            var byte: UInt8 = 0
            guard read(ends[0], &byte, 1) == 1 else { return }
            received.append(byte)
            if byte == 2 {
                loop.unwatch(ends[0])
                loop.schedule(after: 0.05) { loop.stop() }
            }
        }
        for byte: UInt8 in [1, 2, 3] {
            var value = byte
            _ = write(ends[1], &value, 1)
        }
        Self.runToStop(loop)
        #expect(received == [1, 2], "the byte after unwatch was read anyway")
    }

    @Test(arguments: Self.sleeps) func anIdleLoopSleeps(sleep: EventLoop.Sleep) throws {
        let loop = try EventLoop(sleep: sleep)
        nonisolated(unsafe) var wakeUpsWhenIdle = 0
        // A timer fires (and its expiry must not leave the timerfd ready), then nothing
        // happens for 300 ms.
        loop.schedule(after: 0.01) {
            wakeUpsWhenIdle = loop.wakeUps
            loop.execute { loop.stop() }
        }
        Self.runToStop(loop)
        let afterTimer = loop.wakeUps
        let second = try EventLoop(sleep: sleep)
        second.schedule(after: 0.01) {}
        Thread {
            Thread.sleep(forTimeInterval: 0.3)
            second.stop()
        }.start()
        Self.runToStop(second)
        #expect(afterTimer - wakeUpsWhenIdle <= 2)
        #expect(second.wakeUps <= 3, "an idle loop woke \(second.wakeUps) times in 300 ms")
    }
}
