import CGStreamer
import Glibc
import Synchronization
import VitrineRaster

/// GStreamer, initialized once for the process: `gst_init` scans the plugin registry, which
/// takes a second or more when the registry cache is cold (after an upgrade, on a fresh
/// image), and the player's plugins are loaded. A daemon calls `prepare` on a worker so
/// that no frame waits for it; a player made before then prepares in place.
public enum GStreamer {
    private static let done = Atomic<Bool>(false)
    private static let once: Bool = {
        vitrine_gstreamer_prepare()
        done.store(true, ordering: .releasing)
        return true
    }()

    /// Whether `prepare` has finished: a player is made without waiting for it.
    public static var isReady: Bool { done.load(ordering: .acquiring) }

    /// Initializes GStreamer; blocking (seconds on a cold registry), so call it from a
    /// worker. Later calls return at once; calls meanwhile wait for the first.
    public static func prepare() { _ = once }
}

/// What a video layer asks of its player: the source, and how it is shown and heard.
public struct VideoSource: Hashable, Sendable {
    /// What to play (a file:// URI, or a stream's).
    public var uri: String
    /// Pixels of the frames decoded: the layer's size on screen.
    public var width: Int, height: Int
    /// Black bars keep the video's aspect ratio; false stretches it to the layer.
    public var letterbox: Bool
    public var audio: VideoAudio

    public init(uri: String, width: Int, height: Int, letterbox: Bool = true, audio: VideoAudio = .off) {
        (self.uri, self.width, self.height) = (uri, width, height)
        (self.letterbox, self.audio) = (letterbox, audio)
    }
}

/// Where a video's sound goes.
public enum VideoAudio: String, CaseIterable, Sendable {
    /// No audio branch at all (nothing decoded).
    case off
    /// Decoded and synchronized, silent.
    case muted
    /// To the default sink (autoaudiosink).
    case on

    var code: Int32 {
        switch self {
        case .off: 0
        case .muted: 1
        case .on: 2
        }
    }
}

/// Something a player has to tell: it showed its first frame, played to its end, or
/// failed (with GStreamer's message and debug string).
public enum VideoEvent: Equatable, Sendable {
    case started(duration: Double?)
    case ended
    case error(message: String, debug: String)
}

/// One video decoded by GStreamer (`playbin` into an `appsink` of BGRA frames at the
/// layer's size), paced by its reader, not by GStreamer's clock.
///
/// The reader (the daemon's loop) calls `advance(to:)` with the video time a frame shows;
/// the player takes decoded frames off the appsink up to the latest whose time is at most
/// that (frames are dropped when the position runs ahead, repeated when it stands still)
/// and keeps the next one back. The appsink holds at most `queued` frames and blocks the
/// decoder when full, so a paused video decodes nothing and memory stays bounded: the
/// appsink's frames, the one held back, and the one shown, all of the layer's size.
/// Nothing here blocks unless `advance` is asked to wait.
public final class VideoPlayer {
    public let source: VideoSource
    /// Loop at the end (the position is taken modulo the duration).
    public var loops = false
    /// The frame shown: its video time in seconds, and a counter that changes with it.
    public private(set) var frame: (time: Double, serial: Int)?
    /// The pixels of the frame shown (nil before the first).
    public private(set) var surface: Surface?
    /// The stream's duration in seconds, once known.
    public private(set) var duration: Double?
    /// Failed: nothing more is decoded; the last frame stays.
    public private(set) var failed = false
    /// The end of the stream has been reached and shown (without looping).
    public private(set) var ended = false
    /// Events since the last `takeEvents`.
    private var events: [VideoEvent] = []
    /// Frames the appsink may hold.
    public static let queued = 3

    /// Bytes of the frames a player of `source` holds at most: the appsink's, the one
    /// taken ahead, the one shown.
    public static func bytes(of source: VideoSource) -> Int { bytes(width: source.width, height: source.height) }

    static func bytes(width: Int, height: Int) -> Int { (queued + 2) * width * height * 4 }

    /// The size frames are decoded at: the source's, or the last `resize`'s.
    public private(set) var size: (width: Int, height: Int)

    /// Bytes of the frames this player holds at most, at its `size`.
    public var bytes: Int { Self.bytes(width: size.width, height: size.height) }

    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sink: UnsafeMutablePointer<GstElement>
    private let sizeFilter: UnsafeMutablePointer<GstElement>
    private let bus: UnsafeMutablePointer<GstBus>
    /// The frame taken off the appsink ahead of the position, with its time.
    private var next: (frame: MappedFrame, time: Double)?
    /// The appsink has given its last frame.
    private var drained = false
    /// Prerolled: seeks are possible.
    private var ready = false
    /// A seek asked for before the pipeline could take one.
    private var pendingSeek: Double?
    private var serial = 0
    /// Where the last seek went, until a frame after it shows.
    private var seekTarget: Double?
    private var playing = true

    /// Starts playing `source` (asynchronously: its first frame comes later).
    public init(_ source: VideoSource) throws(VideoError) {
        GStreamer.prepare()
        self.source = source
        var error: UnsafeMutablePointer<GError>?
        var sink: UnsafeMutablePointer<GstElement>?
        var sizeFilter: UnsafeMutablePointer<GstElement>?
        guard
            let pipeline = vitrine_video_pipeline(
                source.uri, Int32(source.width), Int32(source.height), source.letterbox ? 1 : 0, source.audio.code, Int32(Self.queued), &sink,
                &sizeFilter, &error),
            let sink, let sizeFilter
        else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "GStreamer cannot build a player"
            if let error { g_error_free(error) }
            throw VideoError(message: message, debug: "")
        }
        self.pipeline = pipeline
        self.sink = sink
        self.sizeFilter = sizeFilter
        size = (source.width, source.height)
        bus = gst_element_get_bus(pipeline)
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
    }

    deinit {
        next = nil
        gst_element_set_state(pipeline, GST_STATE_NULL)
        vitrine_object_unref(bus)
        vitrine_object_unref(sink)
        vitrine_object_unref(sizeFilter)
        vitrine_object_unref(pipeline)
    }

    /// The events since the last call, oldest first.
    public func takeEvents() -> [VideoEvent] {
        defer { events.removeAll() }
        return events
    }

    /// Whether the player still has work to show: it has not shown its first frame, not
    /// failed and not ended.
    public var isStarting: Bool { frame == nil && !failed }

    /// Plays (the position moves) or pauses: only the audio cares, which GStreamer's clock
    /// plays; video frames are taken by position either way.
    public func setPlaying(_ on: Bool) {
        guard on != playing, source.audio != .off, !failed else { return }
        playing = on
        gst_element_set_state(pipeline, on ? GST_STATE_PLAYING : GST_STATE_PAUSED)
    }

    /// Shows the frame due at video time `position` (seconds): the latest decoded frame
    /// whose time is at most it. Jumps back, or more than a second ahead of what is
    /// decoded, seek. Waits up to `wait` seconds for the frame due (a manual clock's
    /// exact frames); 0 never blocks. Returns whether the frame shown changed.
    @discardableResult
    public func advance(to position: Double, wait: Double = 0) -> Bool {
        pollBus()
        guard !failed, position.isFinite else { return false }
        var position = max(0, position)
        if let duration, duration > 0 {
            // (past the end of a video that does not loop, its end: no seek beyond it)
            position = loops ? position.truncatingRemainder(dividingBy: duration) : min(position, duration)
        }
        let before = frame?.serial
        // (not again while a seek that lands at or shortly before the position is under way)
        let underWay = seekTarget.map { $0 <= position + 1e-4 && $0 > position - 1 } ?? false
        if let shown = frame?.time, !underWay, position < shown - 1e-4 || position > max(shown, next?.time ?? shown) + 1 {
            seek(to: position)
        }
        let deadline = wait > 0 ? monotonic() + wait : 0
        var taken: MappedFrame?
        var takenTime = 0.0
        while true {
            if next == nil, !drained {
                var sample = gst_app_sink_try_pull_sample(appsink, 0)
                while sample == nil, wait > 0, gst_app_sink_is_eos(appsink) == 0 {
                    let left = deadline - monotonic()
                    if left <= 0 || pollBus() { break }
                    sample = gst_app_sink_try_pull_sample(appsink, GstClockTime(min(left, 0.01) * 1e9))
                }
                if let sample {
                    // Mapped and let go at once: appsink reuses the sample it hands out.
                    let t = Double(vitrine_sample_time(sample))
                    let mapped = MappedFrame(sample)
                    vitrine_sample_unref(sample)
                    if !ready { becomeReady() }
                    guard let mapped else { continue }
                    next = (mapped, t < 0 ? takenTime : t / 1e9)
                } else if gst_app_sink_is_eos(appsink) != 0 {
                    drained = true
                }
            }
            guard let candidate = next else { break }
            // A first frame shows even when it starts after the position.
            let early = candidate.time > position + 5e-4
            if early, frame != nil || taken != nil { break }
            next = nil
            (taken, takenTime) = (candidate.frame, candidate.time)
            if early { break }
        }
        if let taken { show(taken, time: takenTime) }
        if drained, next == nil, !ended {
            if loops, let duration, duration > 0 {
                seek(to: 0)
            } else if frame != nil, duration.map({ position >= $0 - 1e-3 }) ?? true {
                ended = true
                events.append(.ended)
            }
        }
        return frame?.serial != before
    }

    /// Decodes frames of `width` × `height` from the next one GStreamer scales on (the few
    /// already decoded keep the size they had; each frame shown is drawn at its own).
    public func resize(width: Int, height: Int) {
        guard (width, height) != size, width > 0, height > 0, !failed else { return }
        size = (width, height)
        vitrine_video_set_size(sizeFilter, Int32(width), Int32(height))
    }

    /// When the frame after the one shown is due, in video seconds, if it is decoded.
    public var nextFrameTime: Double? { next?.time }

    private var appsink: UnsafeMutablePointer<GstAppSink> { UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self) }

    /// Shows `decoded`: its pixels drawn where GStreamer decoded them, mapped until the
    /// next frame replaces it.
    private func show(_ decoded: MappedFrame, time: Double) {
        surface = Surface(wrapping: decoded.pixels, width: decoded.width, height: decoded.height, stride: decoded.stride) {
            withExtendedLifetime(decoded) {}
        }
        serial += 1
        seekTarget = nil
        let first = frame == nil
        frame = (time, serial)
        if first { events.append(.started(duration: duration)) }
    }

    private func becomeReady() {
        ready = true
        let d = vitrine_duration(pipeline)
        if d > 0 { duration = Double(d) / 1e9 }
        if let pendingSeek {
            self.pendingSeek = nil
            seek(to: pendingSeek)
        }
    }

    /// A file's path as a file:// URI.
    public static func fileURI(_ path: String) -> String? {
        GStreamer.prepare()
        guard let uri = vitrine_file_uri(path) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    /// A flushing seek; what was decoded ahead is dropped.
    public func seek(to position: Double) {
        guard !failed else { return }
        guard ready else {
            pendingSeek = position
            return
        }
        next = nil
        drained = false
        ended = false
        seekTarget = position
        _ = vitrine_seek(pipeline, Int64(max(0, position) * 1e9))
    }

    /// Takes errors and state changes off the bus; true when the player failed.
    @discardableResult
    private func pollBus() -> Bool {
        while !failed, let message = vitrine_bus_pop(bus) {
            defer { vitrine_message_unref(message) }
            if vitrine_message_is_error(message) != 0 {
                var text: UnsafeMutablePointer<CChar>?
                var debug: UnsafeMutablePointer<CChar>?
                vitrine_message_error(message, &text, &debug)
                failed = true
                events.append(.error(message: text.map { String(cString: $0) } ?? "", debug: debug.map { String(cString: $0) } ?? ""))
                g_free(text)
                g_free(debug)
                gst_element_set_state(pipeline, GST_STATE_NULL)
            } else if vitrine_message_is_eos(message) == 0, duration == nil {
                // ASYNC_DONE: prerolled, the duration may be known now.
                let d = vitrine_duration(pipeline)
                if d > 0 { duration = Double(d) / 1e9 }
            }
        }
        return failed
    }

    private func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A player could not be made.
public struct VideoError: Error, Sendable {
    public let message: String
    public let debug: String

    public init(message: String, debug: String) { (self.message, self.debug) = (message, debug) }
}

/// A decoded frame's buffer mapped for reading (not its sample, which appsink reuses),
/// unmapped when the last holder lets go.
final class MappedFrame {
    let pixels: UnsafeMutablePointer<UInt32>
    let width: Int, height: Int
    /// Pixels from one row's start to the next.
    let stride: Int
    private let mapping: UnsafeMutablePointer<VitrineMappedFrame>

    /// `sample`'s frame, mapped; nil when it cannot be (not BGRA, rows not 4-byte aligned).
    init?(_ sample: OpaquePointer) {
        var pixels: UnsafeMutablePointer<UInt32>?
        var stride: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        guard let mapping = vitrine_sample_map(sample, &pixels, &stride, &width, &height) else { return nil }
        guard let pixels else {
            vitrine_frame_unmap(mapping)
            return nil
        }
        (self.mapping, self.pixels) = (mapping, pixels)
        (self.width, self.height, self.stride) = (Int(width), Int(height), Int(stride))
    }

    deinit { vitrine_frame_unmap(mapping) }
}
