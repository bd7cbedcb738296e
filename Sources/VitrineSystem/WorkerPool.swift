import Glibc
import Synchronization

/// A few threads for the work that may block — reading and decoding files, writing
/// screenshots and the scene journal — so that the event loop never does.
///
/// ```swift
/// let pool = WorkerPool(loop: loop)
/// let queued = pool.submit({ try? SafeFile.read(path, limit: 1 << 20) }) { bytes in
///     // on the loop's thread, between frames
/// }
/// ```
///
/// The queue is bounded: `submit` refuses work beyond `capacity` jobs waiting, so a flood
/// of requests cannot grow it. Results are handed to the loop with `execute`. The threads
/// block every signal (the loop reads them from its signalfd) and are not joined: a job
/// stuck in the kernel (a dead network file system) cannot hold the daemon's exit.
public final class WorkerPool: @unchecked Sendable {  // the queue is behind `state`'s lock; the rest is immutable
    /// Most jobs waiting for a thread.
    public let capacity: Int
    private let loop: EventLoop
    private let state: Mutex<State>
    /// Signalled when a job is queued or the pool stops: one wakes per job.
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let conditionLock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    private struct State: ~Copyable {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var stopped = false
    }

    /// Starts `threads` worker threads that hand their results to `loop`.
    public init(threads: Int = 2, capacity: Int = 256, loop: EventLoop) {
        self.capacity = capacity
        self.loop = loop
        state = Mutex(State())
        pthread_cond_init(condition, nil)
        pthread_mutex_init(conditionLock, nil)
        for _ in 0..<max(1, threads) { startThread() }
    }

    deinit {
        // Threads hold the pool strongly while they run, so this runs once they are gone.
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(conditionLock)
        condition.deallocate()
        conditionLock.deallocate()
    }

    /// Runs `job` on a worker thread, then `completion` with its result on the loop.
    /// Returns false, and runs neither, when `capacity` jobs are already waiting or the
    /// pool has stopped.
    @discardableResult
    public func submit<T: Sendable>(_ job: @escaping @Sendable () -> T, then completion: @escaping (T) -> Void) -> Bool {
        let deliver = LoopBound(completion)
        let loop = self.loop
        let work: @Sendable () -> Void = {
            let result = job()
            loop.execute { deliver.value(result) }
        }
        let accepted = state.withLock { state -> Bool in
            guard !state.stopped, state.jobs.count - state.head < capacity else { return false }
            state.jobs.append(work)
            return true
        }
        guard accepted else { return false }
        pthread_mutex_lock(conditionLock)
        pthread_cond_signal(condition)
        pthread_mutex_unlock(conditionLock)
        return true
    }

    /// Lets the threads end once the queue is empty; later `submit`s are refused.
    public func stop() {
        state.withLock { $0.stopped = true }
        pthread_mutex_lock(conditionLock)
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(conditionLock)
    }

    private func startThread() {
        let context = Unmanaged.passRetained(self).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                let pool = Unmanaged<WorkerPool>.fromOpaque(context!).takeRetainedValue()
                var all = sigset_t()
                sigfillset(&all)
                pthread_sigmask(SIG_BLOCK, &all, nil)
                pool.work()
                return nil
            }, context)
        if started == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<WorkerPool>.fromOpaque(context).release()
        }
    }

    private func work() {
        while let job = next() { job() }
    }

    /// The next job, waiting for one; nil once the pool has stopped and the queue is empty.
    private func next() -> (@Sendable () -> Void)? {
        pthread_mutex_lock(conditionLock)
        defer { pthread_mutex_unlock(conditionLock) }
        while true {
            let taken = state.withLock { state -> (@Sendable () -> Void)?? in
                if state.head < state.jobs.count {
                    let job = state.jobs[state.head]
                    state.head += 1
                    if state.head == state.jobs.count {
                        state.jobs.removeAll(keepingCapacity: true)
                        state.head = 0
                    }
                    return .some(job)
                }
                return state.stopped ? .some(nil) : nil
            }
            if let taken { return taken }
            pthread_cond_wait(condition, conditionLock)
        }
    }
}

/// Carries a value into a `@Sendable` closure that only ever runs on the event loop the
/// value belongs to.
public struct LoopBound<T>: @unchecked Sendable {
    public let value: T
    public init(_ value: T) { self.value = value }
}
