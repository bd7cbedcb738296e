import Glibc
import VitrineMetrics
import VitrineOutputSet
import VitrinePlayLog
import VitrineSystem

/// The daemon's health as Prometheus metrics (`[metrics]`, docs/FLEET.md "Health"),
/// written by swift-prometheus's registry (`MetricFamilies`).
///
/// Nothing here runs on the frame path: the frames keep their own plain counters
/// (`FrameStatistics.frameTimes`, each output's dropped frames), and a scrape copies them into
/// the registry between frames. What takes a file or a system call to learn (the resident
/// set from /proc, the kernel's clock sync) is read by a worker first (`Reading`).
final class DaemonMetrics {
    private let families = MetricFamilies()

    /// The quantiles of the frame time reported, over the last `FrameStatistics.window` frames.
    static let quantiles = [0.5, 0.9, 0.99, 1]

    /// What a worker reads for a scrape.
    struct Reading: Sendable {
        var residentBytes: Int
        var clock: ClockSync?
        /// The play log's files' bytes, when there is a play log.
        var playLogBytes: Int?

        /// Reads the resident set (/proc/self/statm), the kernel's clock sync and the size
        /// of the play log in `playLog`; blocking.
        static func now(playLog: String? = nil) -> Reading {
            Reading(
                residentBytes: StartupMemory.residentKilobytes() * 1024, clock: ClockSync.read(), playLogBytes: playLog.map(PlayLogStore.bytes(in:)))
        }
    }

    /// The exposition text with every figure of `c` as it is now, on the loop.
    func exposition(_ reading: Reading, of c: Coordinator) -> [UInt8] {
        families.counter("frames_presented_total", "Frames presented on all outputs.", c.framesRendered)
        families.counter("pixels_repainted_total", "Pixels the presented frames repainted.", c.pixelsRepainted)
        families.counter(
            "frame_busy_seconds_total", "Seconds the loop spent on presented frames (advancing the scene, drawing, presenting).",
            c.outputSet.statistics.frameTimes.totalSeconds)
        let times = c.outputSet.statistics.frameTimes.percentiles(Self.quantiles)
        for (q, value) in zip(Self.quantiles, times) {
            families.gauge(
                "frame_time_seconds", "The loop's time per presented frame over the last \(FrameStatistics.window) frames, at each quantile (1: the longest).",
                value, [("quantile", q == 1 ? "1" : String(q))])
        }
        for head in c.outputSet.heads {
            let labels = [("output", head.name)]
            families.counter("output_frames_presented_total", "Frames presented on each output.", head.framesRendered, labels)
            families.counter(
                "output_frames_direct_total", "Frames each output showed as a client's buffer, without compositing (direct scan-out).", head.framesDirect,
                labels)
            families.counter(
                "output_frames_dropped_total", "Refresh intervals each output passed without a frame while something animated.", head.dropped.count, labels)
            families.gauge("output_powered", "1 while the output shows frames, 0 while it is blanked.", head.powered ? 1 : 0, labels)
            families.gauge("output_refresh_hertz", "The output's refresh rate.", head.backend.mode.refreshRate, labels)
        }
        families.counter(
            "frames_dropped_total", "Refresh intervals outputs passed without a frame while something animated.",
            c.outputSet.heads.reduce(0) { $0 + $1.dropped.count })
        if let remote = c.remote {
            families.gauge("remote_sessions", "VNC viewers connected now.", Double(remote.current))
            families.counter("remote_sessions_total", "VNC sessions since the daemon started.", remote.total)
            for listener in remote.server.listeners {
                families.counter(
                    "remote_frames_skipped_total", "Frames a VNC listener did not feed because its viewers still held every buffer.", listener.framesSkipped,
                    [("listener", listener.settings.address.description)])
                families.counter(
                    "remote_updates_total", "Pictures a VNC listener sent its viewers (at most its max_rate a second).", listener.updatesSent,
                    [("listener", listener.settings.address.description)])
            }
        }
        families.gauge("clients", "Connected clients of the socket (vitrine-fleet, the broker's bridge, among them).", Double(c.subscribers.count))
        families.gauge("layers", "Layers in the scene.", Double(c.scene.layerCount))
        families.gauge("animating", "1 while anything animates (frames are drawn), 0 while the screen is still.", c.scene.isAnimating ? 1 : 0)
        families.gauge("resident_memory_bytes", "The daemon's resident set.", Double(reading.residentBytes))
        let budget = Double(c.settings.limits.memoryMB << 20)
        families.gauge("content_memory_budget_bytes", "limits.memory_mb: what decoded images and video frames may hold.", budget)
        let images = Double(c.renderer.images.usedBytes), videos = Double(c.content.videos.bytes)
        families.gauge("content_memory_bytes", "Bytes decoded content holds, by kind.", images, [("kind", "image")])
        families.gauge("content_memory_bytes", "Bytes decoded content holds, by kind.", videos, [("kind", "video")])
        families.gauge("content_memory_budget_ratio", "The share of limits.memory_mb decoded content holds.", budget > 0 ? (images + videos) / budget : 0)
        families.gauge("images", "Decoded image files held.", Double(c.renderer.images.paths.count))
        families.counter("content_errors_total", "content.failed and video.error events sent, by kind.", c.content.errors.images, [("kind", "image")])
        families.counter("content_errors_total", "content.failed and video.error events sent, by kind.", c.content.errors.videos, [("kind", "video")])
        for client in c.windows?.clientFigures ?? [] {
            let labels = [("name", client.name)]
            families.gauge("launched_client_up", "1 while a launched client's program runs, 0 otherwise.", client.running ? 1 : 0, labels)
            families.counter("launched_client_restarts_total", "Times a launched client's program was started again after it exited.", client.restarts, labels)
            families.counter(
                "launched_client_failures_total", "Times the daemon gave up on a launched client (restarts_per_minute, or it could not start).",
                client.failures, labels)
        }
        for watched in c.watchdog?.figures ?? [] {
            let labels = [("kind", watched.kind), ("name", watched.name)]
            families.gauge("content_stalled", "1 while a [[watch]] picture is stalled (content.stalled), 0 otherwise.", watched.stalled ? 1 : 0, labels)
            families.counter("content_stalls_total", "Times a [[watch]] picture stalled.", watched.stalls, labels)
        }
        if let log = c.playLog {
            families.counter("playlog_items_started_total", "Playlist items begun, as the play log recorded them.", log.figures.started)
            let ended = "Playlist items ended, by whether they ran their whole time (completed) or were cut short or failed (cut_short)."
            families.counter("playlog_items_ended_total", ended, log.figures.completed, [("result", "completed")])
            families.counter("playlog_items_ended_total", ended, log.figures.cutShort, [("result", "cut_short")])
            families.counter(
                "playlog_write_failures_total", "Batches of the play log that could not be written (each is tried again).", log.figures.writeFailures)
            families.counter("playlog_entries_lost_total", "Play log entries dropped unwritten while writes kept failing.", log.figures.lost)
            families.gauge("playlog_bytes", "Bytes the play log's files hold.", Double(reading.playLogBytes ?? 0))
        }
        if let clock = reading.clock {
            families.gauge("clock_synchronized", "1 while the kernel says the system clock is synchronized (chrony, ntpd, PTP).", clock.synchronized ? 1 : 0)
            families.gauge(
                "clock_estimated_error_seconds", "The kernel's estimate of the system clock's error.", Double(clock.estimatedErrorMicroseconds) / 1e6)
            families.gauge(
                "clock_maximum_error_seconds", "The most the system clock may be off, as the time daemon last said.",
                Double(clock.maximumErrorMicroseconds) / 1e6)
        }
        return families.text()
    }
}
