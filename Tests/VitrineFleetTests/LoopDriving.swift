import VitrineSystem

extension EventLoop {
    /// Runs the loop on this thread until `condition` holds (checked every 10 ms) or
    /// `timeout` seconds have passed; whether it held. The timeout only bounds a failing
    /// test: nothing is measured.
    func run(timeout: Double = 20, until condition: @escaping () -> Bool) -> Bool {
        if condition() { return true }
        let deadline = Self.monotonicNanoseconds() + UInt64(timeout * 1e9)
        var held = false
        func check() {
            held = condition()
            if held || Self.monotonicNanoseconds() > deadline { stop() } else { schedule(after: 0.01, check) }
        }
        schedule(after: 0.01, check)
        run()
        return held
    }
}
