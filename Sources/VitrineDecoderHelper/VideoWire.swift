import VitrineJSON
import VitrineVideo
import VitrineYUV

/// What the daemon tells a video helper (`vitrine-decoder --video`), which plays one
/// video: the file comes as descriptor 4 when it is started, a stream's URI in `open`.
enum VideoRequest: Equatable {
    /// The first message: what to decode (`uri` nil: the file passed as descriptor 4).
    case open(uri: String?, width: Int, height: Int, letterbox: Bool, audio: VideoAudio)
    /// Decode from `position` seconds on; frames after it carry `generation`.
    case seek(position: Double, generation: Int)
    /// Decode frames of this size from the next one on.
    case resize(width: Int, height: Int)
    /// Play or pause (the sound).
    case play(Bool)
    /// The daemon no longer reads the frame in this slot: it may be written again.
    case release(slot: Int)

    var json: JSON {
        switch self {
        case .open(let uri, let width, let height, let letterbox, let audio):
            var fields: [String: JSON] = [
                "width": .number(Double(width)), "height": .number(Double(height)), "letterbox": .bool(letterbox), "audio": .string(audio.rawValue),
            ]
            if let uri { fields["uri"] = .string(uri) }
            return .object(["open": .object(fields)])
        case .seek(let position, let generation): return .object(["seek": .number(position), "generation": .number(Double(generation))])
        case .resize(let width, let height): return .object(["size": .array([.number(Double(width)), .number(Double(height))])])
        case .play(let on): return .object(["play": .bool(on)])
        case .release(let slot): return .object(["release": .number(Double(slot))])
        }
    }

    init?(_ json: JSON) {
        if let open = json["open"] {
            guard let width = open["width"]?.integer, let height = open["height"]?.integer, Self.side(width), Self.side(height),
                let letterbox = open["letterbox"]?.bool, let audio = open["audio"]?.string.flatMap(VideoAudio.init(rawValue:))
            else { return nil }
            let uri = open["uri"]?.string
            if open["uri"] != nil, uri == nil { return nil }
            self = .open(uri: uri, width: width, height: height, letterbox: letterbox, audio: audio)
        } else if let position = json["seek"]?.number, position.isFinite, position >= 0, let generation = json["generation"]?.integer {
            self = .seek(position: position, generation: generation)
        } else if let size = json["size"]?.array, size.count == 2, let width = size[0].integer, let height = size[1].integer, Self.side(width),
            Self.side(height)
        {
            self = .resize(width: width, height: height)
        } else if let on = json["play"]?.bool {
            self = .play(on)
        } else if let slot = json["release"]?.integer, (0..<VideoRing.slots).contains(slot) {
            self = .release(slot: slot)
        } else {
            return nil
        }
    }

    static func side(_ value: Int) -> Bool { (1...VideoRing.maximumSide).contains(value) }
}

/// What a video helper tells the daemon.
enum VideoReport: Equatable {
    /// Slot `slot` is now the shared memory sent with this message, of `bytes` bytes (its
    /// size sealed; the helper writes frames into it, each after the daemon released the last).
    case slot(Int, bytes: Int)
    /// A frame in `slot` at `offset`, of `width` × `height` pixels `stride` apart, due at
    /// `time` seconds (nil: not stamped), decoded after the seek of `generation`. BGRA,
    /// `stride` pixels; or with `yuv`, its luma plane there (`stride` bytes) and its
    /// chroma planes where `yuv` says.
    case frame(slot: Int, offset: Int, width: Int, height: Int, stride: Int, time: Double?, generation: Int, yuv: YUVPlanes? = nil)
    /// The stream's duration in seconds.
    case duration(Double)
    /// The last frame after the seek of `generation` has been sent.
    case end(generation: Int)
    /// Decoding failed: GStreamer's message and debug string.
    case failure(message: String, debug: String)

    var json: JSON {
        switch self {
        case .slot(let slot, let bytes): return .object(["slot": .number(Double(slot)), "bytes": .number(Double(bytes))])
        case .frame(let slot, let offset, let width, let height, let stride, let time, let generation, let yuv):
            var fields: [String: JSON] = [
                "frame": .number(Double(slot)), "offset": .number(Double(offset)), "width": .number(Double(width)), "height": .number(Double(height)),
                "stride": .number(Double(stride)), "generation": .number(Double(generation)),
            ]
            if let time { fields["time"] = .number(time) }
            if let yuv { fields["yuv"] = yuv.json }
            return .object(fields)
        case .duration(let seconds): return .object(["duration": .number(seconds)])
        case .end(let generation): return .object(["end": .number(Double(generation))])
        case .failure(let message, let debug): return .object(["error": .string(message), "debug": .string(debug)])
        }
    }

    /// The report in `json`, its numbers in range; nil when malformed.
    init?(_ json: JSON) {
        if let slot = json["slot"]?.integer {
            guard (0..<VideoRing.slots).contains(slot), let bytes = json["bytes"]?.integer, (1...VideoRing.maximumBytes).contains(bytes) else { return nil }
            self = .slot(slot, bytes: bytes)
        } else if let slot = json["frame"]?.integer {
            guard (0..<VideoRing.slots).contains(slot), let offset = json["offset"]?.integer, offset >= 0, offset % 4 == 0,
                let width = json["width"]?.integer, let height = json["height"]?.integer, VideoRequest.side(width), VideoRequest.side(height),
                let stride = json["stride"]?.integer, stride >= width, stride <= width + 64, let generation = json["generation"]?.integer
            else { return nil }
            let time = json["time"]?.number
            if json["time"] != nil, time == nil || !time!.isFinite { return nil }
            let yuv = json["yuv"].map { YUVPlanes($0, width: width) }
            if case .some(nil) = yuv { return nil }
            self = .frame(slot: slot, offset: offset, width: width, height: height, stride: stride, time: time, generation: generation, yuv: yuv ?? nil)
        } else if let seconds = json["duration"]?.number {
            guard seconds.isFinite, seconds > 0 else { return nil }
            self = .duration(seconds)
        } else if let generation = json["end"]?.integer {
            self = .end(generation: generation)
        } else if let message = json["error"]?.string, let debug = json["debug"]?.string {
            self = .failure(message: message, debug: debug)
        } else {
            return nil
        }
    }
}

/// Where a 4:2:0 frame's chroma lies in its slot, and how its samples read.
struct YUVPlanes: Equatable {
    var layout: YUVLayout
    var matrix: YUVMatrix
    var fullRange: Bool
    /// Each chroma plane's first byte in the slot and its bytes from row to row: U and V
    /// (I420), or the interleaved UV (NV12).
    var chroma: [Plane]

    struct Plane: Equatable {
        var offset: Int, stride: Int
    }

    init(layout: YUVLayout, matrix: YUVMatrix, fullRange: Bool, chroma: [Plane]) {
        (self.layout, self.matrix, self.fullRange, self.chroma) = (layout, matrix, fullRange, chroma)
    }

    var json: JSON {
        .object([
            "layout": .string(layout == .i420 ? "i420" : "nv12"), "matrix": .string(matrix.rawValue), "full": .bool(fullRange),
            "chroma": .array(chroma.map { .array([.number(Double($0.offset)), .number(Double($0.stride))]) }),
        ])
    }

    /// The planes in `json` of a frame `width` wide, each row long enough and no longer
    /// than 64 bytes of padding; nil when malformed.
    init?(_ json: JSON, width: Int) {
        guard let name = json["layout"]?.string, let matrix = json["matrix"]?.string.flatMap(YUVMatrix.init(rawValue:)), let full = json["full"]?.bool,
            let planes = json["chroma"]?.array
        else { return nil }
        let layout: YUVLayout
        switch name {
        case "i420": layout = .i420
        case "nv12": layout = .nv12
        default: return nil
        }
        let row = (width + 1) / 2 * (layout == .nv12 ? 2 : 1)
        let chroma = planes.compactMap { plane -> Plane? in
            guard let pair = plane.array, pair.count == 2, let offset = pair[0].integer, let stride = pair[1].integer, offset >= 0, stride >= row,
                stride <= row + 64
            else { return nil }
            return Plane(offset: offset, stride: stride)
        }
        guard chroma.count == planes.count, chroma.count == (layout == .i420 ? 2 : 1) else { return nil }
        self.init(layout: layout, matrix: matrix, fullRange: full, chroma: chroma)
    }
}

/// The shared memory a video helper writes frames into: a few slots, each one frame.
public enum VideoRing {
    /// Slots: the frames of GStreamer's pool (the one being converted, the appsink's, and
    /// those the daemon holds), or of the helper's own memory.
    public static let slots = VideoPlayer.queued + 2
    /// Frames the daemon may hold unreleased: the one shown, the one taken ahead and one more.
    public static let ahead = VideoPlayer.queued
    /// Frames the appsink holds: the pool is the converter's one, these, and `ahead`.
    public static let appsinkFrames = slots - ahead - 1
    /// The largest side of a frame (a video layer's frames are decoded at most this large).
    static let maximumSide = 4096
    /// The most bytes one slot holds: a frame of the largest side, 64 pixels of row padding.
    static let maximumBytes = maximumSide * (maximumSide + 64) * 4
    /// The largest message either side sends.
    static let messageLimit = 64 << 10
}
