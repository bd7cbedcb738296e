import Foundation
import Synchronization
import Testing
import VitrineSystem

/// Signals through the loop's signalfd, the worker pool, and safe file reads and writes.
@Suite struct SignalAndWorkerTests {
    @Test func aSignalToTheLoopsThreadIsHandledOnTheLoop() throws {
        let loop = try EventLoop()
        nonisolated(unsafe) var received: [CInt] = []
        nonisolated(unsafe) var loopThread = pthread_self()
        nonisolated(unsafe) var handlerThread: pthread_t?
        loop.schedule(after: 0) {
            loopThread = pthread_self()
            do {
                try loop.watchSignals([SIGUSR2]) { number in
                    received.append(number)
                    handlerThread = pthread_self()
                    loop.stop()
                }
            } catch {
                Issue.record("watchSignals: \(error)")
                loop.stop()
            }
            // Thread-directed, so that no other thread of the test process can take it.
            pthread_kill(loopThread, SIGUSR2)
        }
        loop.schedule(after: 5) { loop.stop() }
        EventLoopTests.runToStop(loop)
        #expect(received == [SIGUSR2])
        #expect(handlerThread.map { pthread_equal($0, loopThread) != 0 } == true)
    }

    @Test func jobsRunOffTheLoopAndTheirResultsComeBackOnIt() throws {
        let loop = try EventLoop()
        let pool = WorkerPool(threads: 2, capacity: 8, loop: loop)
        defer { pool.stop() }
        nonisolated(unsafe) var results: [Int] = []
        nonisolated(unsafe) var onLoop = true
        nonisolated(unsafe) var loopThread = pthread_self()
        loop.schedule(after: 0) {
            loopThread = pthread_self()
            for i in 0..<6 {
                let queued = pool.submit({ () -> Int in
                    usleep(2000)
                    return i * i
                }) { value in
                    if pthread_equal(pthread_self(), loopThread) == 0 { onLoop = false }
                    results.append(value)
                    if results.count == 6 { loop.stop() }
                }
                #expect(queued)
            }
        }
        loop.schedule(after: 10) { loop.stop() }
        EventLoopTests.runToStop(loop)
        #expect(results.sorted() == [0, 1, 4, 9, 16, 25])
        #expect(onLoop, "a completion ran off the loop's thread")
    }

    @Test func aFullQueueRefusesWorkInsteadOfGrowing() throws {
        let loop = try EventLoop()
        let pool = WorkerPool(threads: 1, capacity: 2, loop: loop)
        defer { pool.stop() }
        let gate = DispatchSemaphore(value: 0)
        var accepted = 0
        // One job holds the only thread; two more wait; the rest are refused.
        for _ in 0..<6 where pool.submit({ gate.wait() }, then: { _ in }) { accepted += 1 }
        #expect(accepted >= 2 && accepted <= 3)
        for _ in 0..<accepted { gate.signal() }
    }
}

@Suite struct SafeFileTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "vitrine-safefile-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
    }

    @Test func readingAFIFOFailsAtOnceInsteadOfWaitingForAWriter() throws {
        let fifo = directory + "/pipe.png"
        #expect(mkfifo(fifo, 0o644) == 0)
        let start = Date()
        #expect(throws: SystemError.self) { try SafeFile.read(fifo, limit: 1 << 20) }
        #expect(Date().timeIntervalSince(start) < 1)
        do { _ = try SafeFile.read(fifo, limit: 1 << 20) } catch { #expect(error.message.contains("FIFO")) }
    }

    @Test func aFileOverTheCapIsRefusedAndOneUnderItIsRead() throws {
        let path = directory + "/data"
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: path))
        #expect(throws: SystemError.self) { try SafeFile.read(path, limit: 999) }
        let (bytes, identity) = try SafeFile.read(path, limit: 1000)
        #expect(bytes.count == 1000)
        #expect(identity == FileIdentity(path: path))
    }

    @Test func aGeneratedFileIsReadToItsEndWithinTheCap() throws {
        let maps = try SafeFile.read("/proc/self/maps", limit: 16 << 20).bytes
        #expect(maps.count > 0 && maps.last == UInt8(ascii: "\n"))
        #expect(throws: SystemError.self) { try SafeFile.read("/proc/self/maps", limit: 10) }
        do { _ = try SafeFile.read("/nonexistent/file", limit: 10) } catch {
            #expect(error.reason == "no such file" && error.message == "/nonexistent/file: cannot read: no such file")
        }
    }

    @Test func aRewrittenFileHasANewIdentity() throws {
        let path = directory + "/data"
        try SafeFile.write(Array("one".utf8), to: path)
        let first = FileIdentity(path: path)
        try SafeFile.write(Array("two!".utf8), to: path)
        #expect(FileIdentity(path: path) != first)
        #expect(try SafeFile.read(path, limit: 100).bytes == Array("two!".utf8))
    }

    @Test func aWriteReplacesTheFileWithoutFollowingALinkPlantedAtIt() throws {
        let victim = directory + "/victim"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let target = directory + "/latest.png"
        #expect(symlink(victim, target) == 0)
        #expect(throws: SystemError.self) { try SafeFile.write(Array("x".utf8), to: target) }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == ["latest.png", "victim"])
    }

    @Test func aDirectoryOthersCanWriteIsRefused() throws {
        chmod(directory, 0o777)
        do {
            try SafeFile.write(Array("x".utf8), to: directory + "/shot.png")
            Issue.record("wrote into a world-writable directory")
        } catch {
            #expect(error.message.contains("writable by every user"))
        }
        chmod(directory, 0o1777)
        #expect(throws: SystemError.self) { try SafeFile.write(Array("x".utf8), to: directory + "/shot.png") }
        chmod(directory, 0o755)
        try SafeFile.write(Array("x".utf8), to: directory + "/shot.png")
        #expect(FileManager.default.fileExists(atPath: directory + "/shot.png"))
    }
}

@Suite struct OwnedDescriptorTests {
    /// A connected pair of Unix sockets: whether the first end is closed shows on the second
    /// (a send fails with EPIPE), whatever other tests open meanwhile.
    func pair() -> (CInt, CInt) {
        var ends: [CInt] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0)
        return (ends[0], ends[1])
    }

    func peerClosed(_ fd: CInt) -> Bool {
        var byte: UInt8 = 0
        return send(fd, &byte, 1, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) < 0 && errno == EPIPE
    }

    @Test func itClosesOnceWhenDroppedOrClosedAndNeverOnceReleased() throws {
        let (dropped, watcher) = pair()
        var owner: OwnedDescriptor? = OwnedDescriptor(dropped)
        #expect(!peerClosed(watcher))
        owner = nil
        #expect(owner == nil && peerClosed(watcher), "closed when its owner lets go")
        close(watcher)

        let (closed, closedWatcher) = pair()
        let closing = OwnedDescriptor(closed)
        closing.close()
        #expect(peerClosed(closedWatcher) && closing.rawValue == -1 && !closing.isOpen)
        closing.close()
        close(closedWatcher)

        let (kept, keptWatcher) = pair()
        let released = OwnedDescriptor(kept).release()
        #expect(released == kept && !peerClosed(keptWatcher), "released: still open, the caller's now")
        close(released)
        close(keptWatcher)
    }
}
