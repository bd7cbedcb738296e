import CGStreamer
import Glibc
import Synchronization
import VitrineRaster
import VitrineSystem
import VitrineVideo
import VitrineYUV

/// GStreamer, initialized once for the process: `gst_init` scans the plugin registry, which
/// takes a second or more when the registry cache is cold (after an upgrade, on a fresh
/// image), and the player's plugins are loaded.
public enum GStreamer {
    private static let done = Atomic<Bool>(false)
    private static let once: Bool = {
        vitrine_gstreamer_prepare()
        done.store(true, ordering: .releasing)
        return true
    }()

    /// Whether `prepare` has finished.
    public static var isReady: Bool { done.load(ordering: .acquiring) }

    /// Initializes GStreamer; blocking (seconds on a cold registry). Later calls return at
    /// once; calls meanwhile wait for the first.
    public static func prepare() { _ = once }

    /// A file's path as a file:// URI.
    public static func fileURI(_ path: String) -> String? {
        prepare()
        guard let uri = vitrine_file_uri(path) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }
}

/// One video decoded by GStreamer: `playbin` into an `appsink` of I420 or NV12 frames
/// (`VideoPicture.yuv`, converted to BGRA by whoever draws them; BGRA frames are mapped
/// too) at the layer's size, which holds at most `VideoPlayer.queued` frames and blocks
/// the decoder when full, so that the reader paces it. Frames are drawn where GStreamer decoded them,
/// mapped until the surface that shows them goes.
///
/// `wakeup` becomes readable when a frame, the end of the stream or an error may be
/// waiting: a reader that polls (the decoder helper) waits on it.
public final class GStreamerDecoder: VideoDecoding {
    public private(set) var duration: Double?
    /// Readable when a frame, the end or an error may be waiting; read to clear it.
    public let wakeup: CInt
    private let pipeline: UnsafeMutablePointer<GstElement>
    private let sink: UnsafeMutablePointer<GstElement>
    private let sizeFilter: UnsafeMutablePointer<GstElement>
    private let bus: UnsafeMutablePointer<GstBus>
    private var failure: VideoError?
    private var failureTold = false
    /// Prerolled: seeks are possible.
    private var ready = false
    /// A seek asked for before the pipeline could take one.
    private var pendingSeek: Double?

    /// Starts decoding `source` from `uri` (asynchronously: its first frame comes later),
    /// at most `queued` frames ahead of the reader. With `sharesFrames`, frames are written
    /// into a pool of memfds (`DecodedFrame.shared`) by the converter, or by the decoder
    /// when the video is shown at its own size; as many as are out at once: the queue,
    /// the one being written and those taken and not yet let go.
    public init(_ source: VideoSource, uri: String, queued: Int = VideoPlayer.queued, sharesFrames: Bool = false) throws(VideoError) {
        GStreamer.prepare()
        var error: UnsafeMutablePointer<GError>?
        var sink: UnsafeMutablePointer<GstElement>?
        var sizeFilter: UnsafeMutablePointer<GstElement>?
        guard
            let pipeline = vitrine_video_pipeline(
                uri, Int32(source.width), Int32(source.height), source.letterbox ? 1 : 0, Self.code(source.audio), Int32(queued), &sink,
                &sizeFilter, &error),
            let sink, let sizeFilter
        else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "GStreamer cannot build a player"
            if let error { g_error_free(error) }
            throw VideoError(message: message, debug: "")
        }
        let wakeup = vitrine_video_wakeup_new()
        guard wakeup >= 0 else {
            vitrine_object_unref(sink)
            vitrine_object_unref(sizeFilter)
            vitrine_object_unref(pipeline)
            throw VideoError(message: "cannot make an eventfd: \(String(cString: strerror(errno)))", debug: "")
        }
        (self.pipeline, self.sink, self.sizeFilter, self.wakeup) = (pipeline, sink, sizeFilter, wakeup)
        bus = gst_element_get_bus(pipeline)
        vitrine_video_watch(sink, bus, wakeup)
        if sharesFrames { vitrine_video_share_frames(sink) }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
    }

    deinit {
        gst_element_set_state(pipeline, GST_STATE_NULL)
        vitrine_object_unref(bus)
        vitrine_object_unref(sink)
        vitrine_object_unref(sizeFilter)
        vitrine_object_unref(pipeline)
        close(wakeup)
    }

    private static func code(_ audio: VideoAudio) -> Int32 {
        switch audio {
        case .off: 0
        case .muted: 1
        case .on: 2
        }
    }

    public func takeFrame(waiting wait: Double) -> DecodedFrame? {
        var counter: UInt64 = 0
        _ = read(wakeup, &counter, 8)
        let deadline = wait > 0 ? EventLoop.monotonicSeconds + wait : 0
        while !pollBus() {
            var sample = gst_app_sink_try_pull_sample(appsink, 0)
            while sample == nil, wait > 0, gst_app_sink_is_eos(appsink) == 0 {
                let left = deadline - EventLoop.monotonicSeconds
                if left <= 0 || pollBus() { break }
                sample = gst_app_sink_try_pull_sample(appsink, GstClockTime(min(left, 0.01) * 1e9))
            }
            guard let sample else { return nil }
            // Mapped and let go at once: appsink reuses the sample it hands out.
            let t = vitrine_sample_time(sample)
            let mapped = MappedFrame(sample)
            vitrine_sample_unref(sample)
            // (a frame from before a seek asked for meanwhile is not shown)
            if !ready, becomeReady() { continue }
            guard let mapped, let picture = mapped.picture else { continue }
            return DecodedFrame(picture: picture, time: t < 0 ? nil : Double(t) / 1e9, shared: mapped.shared)
        }
        return nil
    }

    public var isDrained: Bool { gst_app_sink_is_eos(appsink) != 0 }

    public func takeFailure() -> VideoError? {
        pollBus()
        guard let failure, !failureTold else { return nil }
        failureTold = true
        return failure
    }

    public func seek(to position: Double) {
        guard failure == nil else { return }
        guard ready else {
            pendingSeek = position
            return
        }
        _ = vitrine_seek(pipeline, Int64(max(0, position) * 1e9))
    }

    public func resize(width: Int, height: Int) {
        vitrine_video_set_size(sizeFilter, Int32(width), Int32(height))
    }

    public func setPlaying(_ on: Bool) {
        guard failure == nil else { return }
        gst_element_set_state(pipeline, on ? GST_STATE_PLAYING : GST_STATE_PAUSED)
    }

    private var appsink: UnsafeMutablePointer<GstAppSink> { UnsafeMutableRawPointer(sink).assumingMemoryBound(to: GstAppSink.self) }

    /// Prerolled: the duration is known and a seek asked for before can be made (true then).
    private func becomeReady() -> Bool {
        ready = true
        let d = vitrine_duration(pipeline)
        if d > 0 { duration = Double(d) / 1e9 }
        guard let pendingSeek else { return false }
        self.pendingSeek = nil
        seek(to: pendingSeek)
        return true
    }

    /// Takes errors and state changes off the bus; true when the decoder failed.
    @discardableResult
    private func pollBus() -> Bool {
        while failure == nil, let message = vitrine_bus_pop(bus) {
            defer { vitrine_message_unref(message) }
            if vitrine_message_is_error(message) != 0 {
                var text: UnsafeMutablePointer<CChar>?
                var debug: UnsafeMutablePointer<CChar>?
                vitrine_message_error(message, &text, &debug)
                failure = VideoError(message: text.map { String(cString: $0) } ?? "", debug: debug.map { String(cString: $0) } ?? "")
                g_free(text)
                g_free(debug)
                gst_element_set_state(pipeline, GST_STATE_NULL)
            } else if vitrine_message_is_eos(message) == 0, duration == nil {
                // ASYNC_DONE: prerolled, the duration may be known now.
                let d = vitrine_duration(pipeline)
                if d > 0 { duration = Double(d) / 1e9 }
            }
        }
        return failure != nil
    }
}

/// A decoded frame's buffer mapped for reading (not its sample, which appsink reuses),
/// unmapped when the last holder lets go.
final class MappedFrame {
    let planes: VitrinePlanes
    private let mapping: UnsafeMutablePointer<VitrineMappedFrame>

    /// The planes it has (1 for BGRA, 3 for I420, 2 for NV12).
    private var count: Int { planes.format == 0 ? 1 : planes.format == 1 ? 3 : 2 }

    private func plane(_ i: Int) -> (data: UnsafeMutablePointer<UInt8>?, stride: Int) {
        switch i {
        case 0: (planes.data.0, Int(planes.stride.0))
        case 1: (planes.data.1, Int(planes.stride.1))
        default: (planes.data.2, Int(planes.stride.2))
        }
    }

    /// Where the pixels lie when they are in a memfd of the shared pool.
    var shared: SharedPixels? {
        var fd: CInt = -1
        var offset = 0, size = 0
        guard vitrine_frame_memfd(mapping, &fd, &offset, &size) != 0, let first = plane(0).data else { return nil }
        let offsets = (0..<count).map { i in plane(i).data.map { offset + ($0 - first) } ?? -1 }
        guard offsets.allSatisfy({ $0 >= 0 && $0 < size }) else { return nil }
        return SharedPixels(descriptor: fd, offset: offset, size: size, planes: offsets)
    }

    /// The pixels, drawn from the mapping, which they hold; nil when a plane is missing.
    var picture: VideoPicture? {
        let (width, height) = (Int(planes.width), Int(planes.height))
        guard (0..<count).allSatisfy({ plane($0).data != nil }) else { return nil }
        switch planes.format {
        case 0:
            let pixels = UnsafeMutableRawPointer(plane(0).data!).bindMemory(to: UInt32.self, capacity: height * plane(0).stride / 4)
            return .bgra(Surface(wrapping: pixels, width: width, height: height, stride: plane(0).stride / 4) { withExtendedLifetime(self) {} })
        default:
            let matrix: YUVMatrix = planes.matrix == 2 ? .bt2020 : planes.matrix == 1 ? .bt709 : .bt601
            let nv12 = planes.format == 2
            return .yuv(
                YUVFrame(
                    width: width, height: height, layout: nv12 ? .nv12 : .i420, matrix: matrix, fullRange: planes.full_range != 0, luma: plane(0).data!,
                    lumaStride: plane(0).stride, u: plane(1).data!, uStride: plane(1).stride, v: nv12 ? nil : plane(2).data!,
                    vStride: nv12 ? nil : plane(2).stride
                ) { withExtendedLifetime(self) {} })
        }
    }

    /// `sample`'s frame, mapped; nil when it cannot be (another format, BGRA rows not 4-byte aligned).
    init?(_ sample: OpaquePointer) {
        var planes = VitrinePlanes()
        guard let mapping = vitrine_sample_map(sample, &planes) else { return nil }
        (self.mapping, self.planes) = (mapping, planes)
    }

    deinit { vitrine_frame_unmap(mapping) }
}
