import VitrineOutput
import VitrineProtocol

/// Input latency, as issue 23's benchmark counts it: from the kernel's timestamp of the
/// event whose gesture fired a binding to the presentation of the first frame that shows
/// what the binding committed (the page flip's timestamp on DRM; when it is presented
/// elsewhere), both CLOCK_MONOTONIC; and its two parts, the wait until that frame started
/// rendering and the frame's own cost from then until it was on screen.
///
/// A binding commits while its event is handled, on the loop, between frames: the first
/// frame rendered after that holds the change, and the frame being shown meanwhile (in
/// flight, rendered before) does not. So a reaction waits for the next frame rendered,
/// takes that frame's number, and is counted when a frame of that number or later is on
/// screen. A frame that presents nothing (the binding changed nothing drawn) shows no
/// reaction, and its reactions are dropped. The last `window` latencies are kept.
struct InputLatency {
    /// How many latencies the figures are over.
    static let window = 1000
    /// One reaction measured: seconds from its event to its frame on screen, and of those,
    /// from the start of rendering the frame.
    struct Sample: Equatable {
        var latency: Double
        var frame: Double
    }
    /// The kernel times of reactions committed since the last frame was rendered.
    private var waiting: [Double] = []
    /// Reactions in frames presented and not on screen yet: the frame's number, when it
    /// started rendering, the event's kernel time.
    private var inFrames: [(frame: Int, started: Double, kernelTime: Double)] = []
    /// The latest, the newest at `next - 1` once the window is full.
    private(set) var samples: [Sample] = []
    private var next = 0

    /// A binding fired by an event with kernel time `kernelTime` committed its transaction
    /// (counted once per event: its other bindings show in the same frame).
    mutating func committed(kernelTime: Double) {
        guard kernelTime.isFinite, waiting.last != kernelTime, waiting.count < Self.window else { return }
        waiting.append(kernelTime)
    }

    /// The frame that will be presented as number `frame` (the output's count) starts
    /// rendering at `time` (CLOCK_MONOTONIC, read only when a reaction waits): it shows the
    /// reactions committed so far.
    mutating func rendering(frame: Int, at time: @autoclosure () -> Double) {
        guard !waiting.isEmpty else { return }
        if inFrames.count >= Self.window { inFrames.removeFirst(inFrames.count - Self.window / 2) }
        let started = time()
        for kernelTime in waiting { inFrames.append((frame, started, kernelTime)) }
        waiting.removeAll(keepingCapacity: true)
    }

    /// Frame `frame` presented nothing: what waited for it changed nothing on screen.
    mutating func notPresented(frame: Int) {
        guard !inFrames.isEmpty else { return }
        inFrames.removeAll { $0.frame == frame }
    }

    /// `shown` is on screen: the reactions in it and in frames before it are counted.
    mutating func shown(_ shown: ShownFrame) {
        guard !inFrames.isEmpty else { return }
        for reaction in inFrames where reaction.frame <= shown.number {
            let sample = Sample(latency: shown.time - reaction.kernelTime, frame: shown.time - reaction.started)
            // (an injected time ahead of the flip is no measurement)
            if sample.latency >= 0, sample.frame >= 0 { record(sample) }
        }
        inFrames.removeAll { $0.frame <= shown.number }
    }

    private mutating func record(_ sample: Sample) {
        if samples.count < Self.window {
            samples.append(sample)
        } else {
            samples[next] = sample
        }
        next = (next + 1) % Self.window
    }

    /// Over the window (nearest rank, milliseconds): `count`; `p50_ms`, `p99_ms`, `max_ms`
    /// of the latency; `wait_p50_ms`, `wait_p99_ms` of the wait until the frame started
    /// rendering; `frame_p50_ms`, `frame_p99_ms` of the frame's cost. Null while there is
    /// no sample.
    var statistics: JSON {
        var result: [String: JSON] = ["count": .number(Double(samples.count))]
        let parts = [("", samples.map(\.latency)), ("wait_", samples.map { $0.latency - $0.frame }), ("frame_", samples.map(\.frame))]
        for (prefix, values) in parts {
            let sorted = values.sorted()
            for p in [50, 99] { result["\(prefix)p\(p)_ms"] = Self.percentile(Double(p) / 100, of: sorted) }
        }
        result["max_ms"] = samples.map(\.latency).max().map(Self.milliseconds) ?? .null
        return .object(result)
    }

    /// The nearest-rank percentile `p` of `sorted`, in milliseconds.
    private static func percentile(_ p: Double, of sorted: [Double]) -> JSON {
        guard !sorted.isEmpty else { return .null }
        let rank = Int((p * Double(sorted.count)).rounded(.up))
        return milliseconds(sorted[min(sorted.count, max(1, rank)) - 1])
    }

    private static func milliseconds(_ seconds: Double) -> JSON { .number((seconds * 1e6).rounded() / 1e3) }
}
