import VitrineProtocol

/// A request held until the first frame whose time is at or past its `at`.
public struct ScheduledRequest {
    /// The request.
    public let request: Request
    /// Its `at` in media time: the frame it waits for, and the time it is applied at.
    public let time: Double
    /// The client that sent it.
    public let client: Int
    /// Sends its reply line (the client's later requests wait for it).
    public let finish: (String) -> Void

    /// `request` from `client`, held until media time `time`, answered through `finish`.
    public init(request: Request, time: Double, client: Int, finish: @escaping (String) -> Void) {
        self.request = request
        self.time = time
        self.client = client
        self.finish = finish
    }
}

/// Requests held for their `at`: the scene's timeline of changes to come.
extension SceneHost {
    /// How far from now, either way, an `at` may lie.
    public static let scheduleHorizon = 86_400.0

    /// Holds `entry` until its time; entries due at one time keep their order.
    public func hold(_ entry: ScheduledRequest) {
        scheduled.insert(entry, at: scheduled.firstIndex { $0.time > entry.time } ?? scheduled.endIndex)
    }

    /// Takes the requests due by `time`, in the order of their `at`.
    public func takeDue(upTo time: Double) -> ArraySlice<ScheduledRequest> {
        guard let first = scheduled.first, first.time <= time else { return [] }
        let due = scheduled.prefix { $0.time <= time }
        scheduled.removeFirst(due.count)
        return due
    }
}
