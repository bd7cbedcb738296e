import CLinuxEvents
import Glibc
import Synchronization
import SystemPackage

/// The daemon's one thread of work: an epoll over every file descriptor it serves (the
/// listening socket, the clients, the DRM device, signals through a signalfd, inotify) with
/// scheduled work as its timeout, and an eventfd through which other threads (the worker
/// pool) hand work over.
///
/// ```swift
/// let loop = try EventLoop()
/// loop.schedule(after: 1 / 60) { render() }          // on the loop's thread
/// try loop.watch(fd, for: .readable) { events in … } // on the loop's thread
/// loop.execute { … }                                 // from any thread
/// try loop.watchSignals([SIGTERM]) { _ in loop.stop() } // through a signalfd
/// loop.run()                                         // until stop(), from any thread
/// ```
///
/// A frame costs one system call: `epoll_pwait2` sleeps until the earliest deadline (its
/// timeout) or a descriptor. On kernels without it, a timerfd is armed for that deadline
/// instead (an `epoll_wait` and a `timerfd_settime` a frame; arming it again clears an
/// expiry already counted, so it is never read). Nothing scheduled and nothing to read
/// means the thread sleeps: no wake-ups when the screen is still.
///
/// Everything but `execute` and `stop` must be called on the thread running the loop (or
/// before it runs).
public final class EventLoop: @unchecked Sendable {  // its state is touched on its thread; `handedOver` is locked
    /// What a descriptor is ready for.
    public struct Events: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Data to read, or the end of it.
        public static let readable = Events(rawValue: EPOLLIN.rawValue)
        /// Room to write.
        public static let writable = Events(rawValue: EPOLLOUT.rawValue)
        /// Hung up or failed (reported whether asked for or not).
        public static let closed = Events(rawValue: EPOLLHUP.rawValue | EPOLLERR.rawValue)
    }

    /// Called with what a watched descriptor is ready for.
    public typealias Handler = (Events) -> Void

    private let epoll: OwnedDescriptor
    private let wake: OwnedDescriptor
    private let timer: OwnedDescriptor
    /// Handlers by descriptor number.
    private var handlers: [Handler?] = []
    /// Scheduled bodies, earliest deadline last.
    private var timers: [Timer] = []
    private var sequence: UInt64 = 0
    /// The deadline the timerfd is armed for (0: disarmed).
    private var armed: UInt64 = 0
    /// Whether the loop sleeps in `epoll_pwait2`, deadlines as its timeout, the timerfd
    /// disarmed; cleared when the kernel (before 5.11) answers ENOSYS.
    private var waitsWithTimeout: Bool
    private let handedOver = Mutex(HandedOver())
    /// The signalfd (nil until signals are watched), its mask and handlers by number.
    private var signalFD: OwnedDescriptor?
    private var signalMask = sigset_t()
    private var signalHandlers: [CInt: (CInt) -> Void] = [:]
    private var stopped = false
    /// Times the loop's wait returned: what a test counts to see that an idle loop sleeps.
    public private(set) var wakeUps = 0

    private struct Timer {
        let deadline: UInt64
        let sequence: UInt64
        let body: () -> Void
    }

    private struct HandedOver: ~Copyable {
        var bodies: [@Sendable () -> Void] = []
        var stop = false
    }

    /// How the loop sleeps until its next deadline.
    public enum Sleep: Sendable {
        /// `epoll_pwait2` with the deadline as its timeout: one system call a frame
        /// (Linux 5.11 and later; older kernels get the timerfd).
        case epollTimeout
        /// A timerfd in the epoll set, armed for the earliest deadline.
        case timerfd
    }

    public init(sleep: Sleep = .epollTimeout) throws(SystemError) {
        waitsWithTimeout = sleep == .epollTimeout
        do {
            epoll = OwnedDescriptor(try valueOrErrno { epoll_create1(Int32(EPOLL_CLOEXEC)) })
            wake = OwnedDescriptor(try valueOrErrno { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) })
            timer = OwnedDescriptor(try valueOrErrno { timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK)) })
        } catch {
            throw SystemError.errno("create", "the event loop's epoll, eventfd and timerfd", error)
        }
        try add(wake.rawValue, EPOLLIN.rawValue)
        try add(timer.rawValue, EPOLLIN.rawValue)
    }

    // MARK: Descriptors

    /// Calls `handler` on the loop whenever `fd` is ready for `events` (level-triggered).
    public func watch(_ fd: CInt, for events: Events, handler: @escaping Handler) throws(SystemError) {
        try add(fd, events.rawValue)
        if handlers.count <= Int(fd) { handlers += Array(repeating: nil, count: Int(fd) + 1 - handlers.count) }
        handlers[Int(fd)] = handler
    }

    /// Changes the events `fd` is watched for.
    public func change(_ fd: CInt, to events: Events) {
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops watching `fd` (before it is closed).
    public func unwatch(_ fd: CInt) {
        _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, fd, nil)
        if Int(fd) < handlers.count { handlers[Int(fd)] = nil }
    }

    private func add(_ fd: CInt, _ events: UInt32) throws(SystemError) {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        guard epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, fd, &event) == 0 else { throw SystemError.errno("watch descriptor \(fd) with", "epoll") }
    }

    // MARK: Signals

    /// Blocks `numbers` in the calling thread and the threads it starts from now on, so
    /// that they reach only a signalfd (`watchSignals`). A program calls this first thing,
    /// before any thread starts: a thread that does not block a signal could take it.
    public static func blockSignals(_ numbers: [CInt]) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Calls `handler` on the loop with each of `numbers` that arrives, read from a
    /// signalfd (the signals are blocked in the calling thread; see `blockSignals`).
    public func watchSignals(_ numbers: [CInt], handler: @escaping (CInt) -> Void) throws(SystemError) {
        Self.blockSignals(numbers)
        for number in numbers {
            sigaddset(&signalMask, number)
            signalHandlers[number] = handler
        }
        let fd = signalfd(signalFD?.rawValue ?? -1, &signalMask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError.errno("create", "a signalfd") }
        if signalFD == nil {
            signalFD = OwnedDescriptor(fd)
            try add(fd, EPOLLIN.rawValue)
        }
    }

    /// Stops handling `numbers` (they stay blocked).
    public func unwatchSignals(_ numbers: [CInt]) {
        for number in numbers {
            sigdelset(&signalMask, number)
            signalHandlers[number] = nil
        }
        if let fd = signalFD?.rawValue { _ = signalfd(fd, &signalMask, Int32(SFD_NONBLOCK | SFD_CLOEXEC)) }
    }

    private func takeSignals() {
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        guard let fd = signalFD?.rawValue else { return }
        while read(fd, &info, size) == size {
            let number = CInt(info.ssi_signo)
            signalHandlers[number]?(number)
        }
    }

    // MARK: Work

    /// Runs `body` on the loop after `seconds` (at once for 0 or less, after what is
    /// ready now). Bodies due at the same time run in the order they were scheduled.
    /// Returns a ticket that `cancel` takes.
    @discardableResult
    public func schedule(after seconds: Double, _ body: @escaping () -> Void) -> UInt64 {
        let delay = seconds > 0 ? UInt64(min(seconds, 1e6) * 1e9) : 0
        sequence += 1
        let entry = Timer(deadline: Self.monotonicNanoseconds() + delay, sequence: sequence, body: body)
        // Kept sorted, latest first: the next due is popped from the end.
        let index = timers.firstIndex { ($0.deadline, $0.sequence) < (entry.deadline, entry.sequence) } ?? timers.count
        timers.insert(entry, at: index)
        return sequence
    }

    /// Forgets a body `schedule` returned `ticket` for, unless it has run: the loop does
    /// not wake for it.
    public func cancel(_ ticket: UInt64) {
        timers.removeAll { $0.sequence == ticket }
    }

    /// Runs `body` on the loop soon; callable from any thread.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        let first = handedOver.withLock { state in
            state.bodies.append(body)
            return state.bodies.count == 1
        }
        if first { signalWake() }
    }

    /// Makes `run` return after the work at hand; callable from any thread.
    public func stop() {
        handedOver.withLock { $0.stop = true }
        signalWake()
    }

    /// Serves descriptors and timers on the calling thread until `stop`. Sets the thread's
    /// timer slack to 1 ns, so that timers run on their deadlines.
    public func run() {
        // Deadlines are frame slots: the default 50 µs of slack, taken on every sleep,
        // would make each frame late by it, as a timerfd's expiry never is.
        _ = vitrine_set_timer_slack(1)
        var events = [epoll_event](repeating: epoll_event(), count: 64)
        while !stopped {
            runDueTimers()
            if stopped { break }
            let count = events.withUnsafeMutableBufferPointer { wait(into: $0) }
            wakeUps += 1
            guard count >= 0 else {
                let code = Errno.last
                if code == .interrupted { continue }
                if code == .noFunction, waitsWithTimeout {
                    waitsWithTimeout = false
                    continue
                }
                fatalError("waiting on epoll: \(code)")
            }
            for i in 0..<Int(count) {
                let fd = events[i].data.fd
                if fd == wake.rawValue {
                    takeHandedOver()
                } else if fd == signalFD?.rawValue {
                    takeSignals()
                } else if fd == timer.rawValue {
                    // The expiry is cleared by arming the timer again (below), not read.
                    armed = .max
                } else if Int(fd) < handlers.count, let handler = handlers[Int(fd)] {
                    handler(Events(rawValue: events[i].events))
                }
            }
        }
        stopped = false
    }

    /// Waits for descriptors until the earliest deadline: as `epoll_pwait2`'s timeout
    /// (one system call a frame), or, on kernels before 5.11, on the timerfd.
    private func wait(into events: UnsafeMutableBufferPointer<epoll_event>) -> Int32 {
        guard waitsWithTimeout else {
            arm()
            return epoll_wait(epoll.rawValue, events.baseAddress, Int32(events.count), -1)
        }
        guard let deadline = timers.last?.deadline else {
            return epoll_pwait2(epoll.rawValue, events.baseAddress, Int32(events.count), nil, nil)
        }
        let now = Self.monotonicNanoseconds()
        let delay = deadline > now ? deadline - now : 0
        var timeout = timespec(tv_sec: Int(delay / 1_000_000_000), tv_nsec: Int(delay % 1_000_000_000))
        return epoll_pwait2(epoll.rawValue, events.baseAddress, Int32(events.count), &timeout, nil)
    }

    private func takeHandedOver() {
        var count: UInt64 = 0
        _ = read(wake.rawValue, &count, 8)
        let (bodies, stop) = handedOver.withLock { state in
            defer { state.bodies.removeAll(); state.stop = false }
            return (state.bodies, state.stop)
        }
        for body in bodies { body() }
        if stop { stopped = true }
    }

    /// Runs the bodies due now, scheduled before this pass: one that schedules work for at
    /// once (a yield) lets the descriptors ready meanwhile be served first.
    private func runDueTimers() {
        guard let last = timers.last else { return }
        let now = Self.monotonicNanoseconds()
        guard last.deadline <= now else { return }
        let scheduled = sequence
        while let next = timers.last, next.deadline <= now, next.sequence <= scheduled, !stopped {
            timers.removeLast()
            next.body()
        }
    }

    /// Arms the timerfd for the earliest deadline, or disarms it; a no-op when it is
    /// armed for that deadline already.
    private func arm() {
        let deadline = timers.last?.deadline ?? 0
        guard deadline != armed else { return }
        armed = deadline
        var spec = itimerspec()
        if deadline > 0 {
            spec.it_value = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        }
        _ = timerfd_settime(timer.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    private func signalWake() {
        var one: UInt64 = 1
        _ = write(wake.rawValue, &one, 8)
    }

    /// CLOCK_MONOTONIC in nanoseconds, the timerfd's clock.
    public static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// CLOCK_MONOTONIC in seconds.
    public static var monotonicSeconds: Double { Double(monotonicNanoseconds()) / 1e9 }
}
