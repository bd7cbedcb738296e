import VitrineSystem

extension WorkerPool? {
    /// Runs `job` on a worker and `completion` with its result back on the loop; in place
    /// when there are no workers (programs and tests that drive a coordinator by hand).
    /// Returns false when the workers' queue is full.
    func offload<T: Sendable>(_ job: @escaping @Sendable () -> T, then completion: @escaping (T) -> Void) -> Bool {
        guard let workers = self else {
            completion(job())
            return true
        }
        return workers.submit(job, then: completion)
    }
}
