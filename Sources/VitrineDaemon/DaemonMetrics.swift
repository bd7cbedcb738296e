import Glibc
import Prometheus
import VitrineOutputSet
import VitrineFleet
import VitrineSystem

/// The daemon's health as Prometheus metrics (`[metrics]`, docs/FLEET.md "Health"),
/// written by swift-prometheus's registry.
///
/// Nothing here runs on the frame path: the frames keep their own plain counters
/// (`FrameStatistics.frameTimes`, each output's dropped frames), and a scrape copies them into
/// the registry between frames. What takes a file or a system call to learn (the resident
/// set from /proc, the kernel's clock sync) is read by a worker first (`Reading`).
final class DaemonMetrics {
    let registry = PrometheusCollectorRegistry()
    /// The MQTT bridge, when `[fleet]` enables it.
    weak var fleet: FleetBridge?

    /// The quantiles of the frame time reported, over the last `FrameStatistics.window` frames.
    static let quantiles = [0.5, 0.9, 0.99, 1]

    /// What a worker reads for a scrape.
    struct Reading: Sendable {
        var residentBytes: Int
        var clock: ClockSync?

        /// Reads the resident set (/proc/self/statm) and the kernel's clock sync; blocking.
        static func now() -> Reading {
            Reading(residentBytes: StartupMemory.residentKilobytes() * 1024, clock: ClockSync.read())
        }
    }

    /// The exposition text with every figure of `c` as it is now, on the loop.
    func exposition(_ reading: Reading, of c: Coordinator) -> [UInt8] {
        counter("frames_presented_total", "Frames presented on all outputs.", c.framesRendered)
        counter("pixels_repainted_total", "Pixels the presented frames repainted.", c.pixelsRepainted)
        counter(
            "frame_busy_seconds_total", "Seconds the loop spent on presented frames (advancing the scene, drawing, presenting).",
            c.outputSet.statistics.frameTimes.totalSeconds)
        let times = c.outputSet.statistics.frameTimes.percentiles(Self.quantiles)
        for (q, value) in zip(Self.quantiles, times) {
            gauge(
                "frame_time_seconds", "The loop's time per presented frame over the last \(FrameStatistics.window) frames, at each quantile (1: the longest).",
                value, [("quantile", q == 1 ? "1" : String(q))])
        }
        for head in c.outputSet.heads {
            let labels = [("output", head.name)]
            counter("output_frames_presented_total", "Frames presented on each output.", head.framesRendered, labels)
            counter("output_frames_dropped_total", "Refresh intervals each output passed without a frame while something animated.", head.dropped.count, labels)
            gauge("output_powered", "1 while the output shows frames, 0 while it is blanked.", head.powered ? 1 : 0, labels)
            gauge("output_refresh_hertz", "The output's refresh rate.", head.backend.mode.refreshRate, labels)
        }
        counter(
            "frames_dropped_total", "Refresh intervals outputs passed without a frame while something animated.",
            c.outputSet.heads.reduce(0) { $0 + $1.dropped.count })
        gauge("clients", "Connected clients (the socket's, and the broker as one).", Double(c.subscribers.count))
        gauge("layers", "Layers in the scene.", Double(c.scene.layerCount))
        gauge("animating", "1 while anything animates (frames are drawn), 0 while the screen is still.", c.scene.isAnimating ? 1 : 0)
        gauge("resident_memory_bytes", "The daemon's resident set.", Double(reading.residentBytes))
        let budget = Double(c.settings.limits.memoryMB << 20)
        gauge("content_memory_budget_bytes", "limits.memory_mb: what decoded images and video frames may hold.", budget)
        let images = Double(c.renderer.images.usedBytes), videos = Double(c.content.videos.bytes)
        gauge("content_memory_bytes", "Bytes decoded content holds, by kind.", images, [("kind", "image")])
        gauge("content_memory_bytes", "Bytes decoded content holds, by kind.", videos, [("kind", "video")])
        gauge("content_memory_budget_ratio", "The share of limits.memory_mb decoded content holds.", budget > 0 ? (images + videos) / budget : 0)
        gauge("images", "Decoded image files held.", Double(c.renderer.images.paths.count))
        counter("content_errors_total", "content.failed and video.error events sent, by kind.", c.content.errors.images, [("kind", "image")])
        counter("content_errors_total", "content.failed and video.error events sent, by kind.", c.content.errors.videos, [("kind", "video")])
        for client in c.windows?.clientFigures ?? [] {
            let labels = [("name", client.name)]
            gauge("launched_client_up", "1 while a launched client's program runs, 0 otherwise.", client.running ? 1 : 0, labels)
            counter("launched_client_restarts_total", "Times a launched client's program was started again after it exited.", client.restarts, labels)
            counter(
                "launched_client_failures_total", "Times the daemon gave up on a launched client (restarts_per_minute, or it could not start).",
                client.failures, labels)
        }
        if let clock = reading.clock {
            gauge("clock_synchronized", "1 while the kernel says the system clock is synchronized (chrony, ntpd, PTP).", clock.synchronized ? 1 : 0)
            gauge("clock_estimated_error_seconds", "The kernel's estimate of the system clock's error.", Double(clock.estimatedErrorMicroseconds) / 1e6)
            gauge(
                "clock_maximum_error_seconds", "The most the system clock may be off, as the time daemon last said.",
                Double(clock.maximumErrorMicroseconds) / 1e6)
        }
        if let fleet {
            let s = fleet.session
            for state in [MQTTSession.State.connecting, .connected, .disconnected, .stopped] {
                gauge("fleet_broker_state", "1 for the MQTT bridge's state now, 0 for the others.", s.state == state ? 1 : 0, [("state", state.rawValue)])
            }
            counter("fleet_connections_total", "Connections made to the broker.", s.connections)
            counter("fleet_reconnects_total", "Connections made to the broker after the first.", max(0, s.connections - 1))
            counter("fleet_messages_received_total", "Messages received from the broker.", s.received)
            counter("fleet_messages_dropped_total", "Messages not published: disconnected, or past limits.outbound_bytes unacknowledged.", s.dropped)
            gauge("fleet_queued_bytes", "Bytes published and not yet acknowledged by the broker.", Double(s.queuedBytes))
        }
        return registry.emitToBuffer()
    }

    private func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "vitrine", metricName: name, unitName: "", helpText: help)
    }

    private func gauge(_ name: String, _ help: String, _ value: Double, _ labels: [(String, String)] = []) {
        registry.makeGauge(descriptor: descriptor(name, help), labels: labels).set(value)
    }

    private func counter(_ name: String, _ help: String, _ value: Int, _ labels: [(String, String)] = []) {
        let counter = registry.makeCounter(descriptor: descriptor(name, help), labels: labels)
        counter.reset()
        counter.increment(by: Int64(value))
    }

    private func counter(_ name: String, _ help: String, _ value: Double, _ labels: [(String, String)] = []) {
        let counter = registry.makeCounter(descriptor: descriptor(name, help), labels: labels)
        counter.reset()
        if value > 0 { counter.increment(by: value) }
    }
}
