import VitrineCore
import VitrineImage
import VitrineJSON
import VitrineProtocol
import VitrineRaster
import VitrineSystem

/// What the daemon asks the decoder helper: one file (sent with the message as an open
/// descriptor, so the helper needs no access to its path) decoded for a size.
public struct DecodeRequest: Sendable, Equatable {
    /// Matches the reply to the request.
    public var id: Int
    /// The file's path, for messages.
    public var name: String
    /// The size the picture is shown at; nil: the output's for a raster image, its own for an SVG.
    public var target: TargetSize?
    /// The largest output's size.
    public var output: TargetSize
    /// The bytes the decoded picture may take (what `limits.memory_mb` leaves for images).
    public var budget: Int

    public init(id: Int, name: String, target: TargetSize?, output: TargetSize, budget: Int) {
        (self.id, self.name, self.target, self.output, self.budget) = (id, name, target, output, budget)
    }

    /// The largest message either side sends.
    public static let messageLimit = 64 << 10

    /// The request as the helper reads it.
    public var json: JSON {
        var fields: [String: JSON] = [
            "id": .number(Double(id)), "name": .string(name), "output": Self.size(output), "budget": .number(Double(budget)),
        ]
        if let target { fields["target"] = Self.size(target) }
        return .object(fields)
    }

    init?(_ json: JSON) {
        guard let id = json["id"]?.integer, let name = json["name"]?.string, let output = Self.size(json["output"]),
            let budget = json["budget"]?.integer, budget >= 0
        else { return nil }
        let target = json["target"].map(Self.size)
        if case .some(.none) = target { return nil }
        self.init(id: id, name: name, target: target ?? nil, output: output, budget: budget)
    }

    static func size(_ size: TargetSize) -> JSON { .array([.number(Double(size.width)), .number(Double(size.height))]) }

    static func size(_ json: JSON?) -> TargetSize? {
        guard let values = json?.array, values.count == 2, let width = values[0].integer, let height = values[1].integer,
            (0...ImageLimits.maximumSide * 4).contains(width), (0...ImageLimits.maximumSide * 4).contains(height)
        else { return nil }
        return TargetSize(width: width, height: height)
    }
}

/// Where one frame lies in the shared memory of a decoded picture.
struct FrameLayout: Equatable {
    var offset: Int
    var width: Int
    var height: Int
    /// Pixels from one row's start to the next.
    var stride: Int

    var bytes: Int { height * stride * 4 }
}

/// A decoded picture as the helper hands it back: its pixels in one sealed memfd, the
/// rest in the message.
struct PictureLayout: Equatable {
    var format: ImageFormat
    var frames: [FrameLayout]
    var durations: [Double]
    var plays: Int
    var naturalSize: Size
    var scaling: Picture.Scaling
    /// The shared memory's size.
    var size: Int

    /// `picture` with its frames at `offsets` in shared memory of `size` bytes.
    init(of picture: Picture, offsets: [Int], size: Int) {
        frames = zip(picture.frames, offsets).map { frame, offset in
            FrameLayout(offset: offset, width: frame.width, height: frame.height, stride: frame.stride)
        }
        format = picture.format
        durations = picture.durations
        plays = picture.plays
        naturalSize = picture.naturalSize
        scaling = picture.scaling
        self.size = size
    }

    var json: JSON {
        .object([
            "format": .string(format.rawValue),
            "frames": .array(frames.map { .array([$0.offset, $0.width, $0.height, $0.stride].map { .number(Double($0)) }) }),
            "durations": .array(durations.map(JSON.number)), "plays": .number(Double(plays)),
            "natural": .array([.number(naturalSize.width), .number(naturalSize.height)]),
            "scaling": .string(Self.scalingNames[scaling]!), "size": .number(Double(size)),
        ])
    }

    static let scalingNames: [Picture.Scaling: String] = [.fixed: "fixed", .upToNatural: "upToNatural", .vector: "vector"]

    /// The layout in `json`, checked against what a well-behaved helper sends: frames of
    /// one size within `ImageLimits.maximumSide`, inside `size`, each at most `budget`
    /// bytes together; nil for anything else.
    init?(_ json: JSON, budget: Int) {
        guard let format = json["format"]?.string.flatMap(ImageFormat.init(rawValue:)),
            let scalingName = json["scaling"]?.string, let scaling = Self.scalingNames.first(where: { $0.value == scalingName })?.key,
            let size = json["size"]?.integer, size > 0, let plays = json["plays"]?.integer, plays >= 0,
            let natural = json["natural"]?.array, natural.count == 2, let w = natural[0].number, let h = natural[1].number,
            w.isFinite, h.isFinite, w > 0, h > 0, w <= 1e6, h <= 1e6,
            let durations = json["durations"]?.array?.compactMap(\.number), let entries = json["frames"]?.array, !entries.isEmpty
        else { return nil }
        var frames: [FrameLayout] = []
        var total = 0
        for entry in entries {
            guard let values = entry.array?.compactMap(\.integer), values.count == 4 else { return nil }
            let frame = FrameLayout(offset: values[0], width: values[1], height: values[2], stride: values[3])
            guard (1...ImageLimits.maximumSide).contains(frame.width), (1...ImageLimits.maximumSide).contains(frame.height),
                frame.stride >= frame.width, frame.stride <= frame.width + 64, frame.offset >= 0, frame.offset % 4 == 0,
                frame.width == (frames.first?.width ?? frame.width), frame.height == (frames.first?.height ?? frame.height),
                frame.offset <= size, frame.bytes <= size - frame.offset
            else { return nil }
            total += frame.bytes
            guard total <= budget else { return nil }
            frames.append(frame)
        }
        guard durations.count == (frames.count > 1 ? frames.count : 0), durations.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
        (self.format, self.frames, self.durations, self.plays) = (format, frames, durations, plays)
        (naturalSize, self.scaling, self.size) = (Size(width: w, height: h), scaling, size)
    }

    /// The picture whose frames lie in `memory`, which they keep mapped while they live.
    func picture(in memory: SharedMemory) -> Picture {
        let surfaces = frames.map { frame in
            Surface(
                wrapping: (memory.bytes + frame.offset).bindMemory(to: UInt32.self, capacity: frame.height * frame.stride),
                width: frame.width, height: frame.height, stride: frame.stride, release: { withExtendedLifetime(memory) {} })
        }
        return Picture(frames: surfaces, durations: durations, plays: plays, naturalSize: naturalSize, format: format, scaling: scaling)
    }
}

/// The helper's answer to one request.
enum DecodeReply {
    case picture(id: Int, PictureLayout)
    case failure(id: Int, ProtocolError)

    var json: JSON {
        switch self {
        case .picture(let id, let layout): .object(["id": .number(Double(id)), "picture": layout.json])
        case .failure(let id, let error): .object(["id": .number(Double(id)), "code": .string(error.code), "message": .string(error.message)])
        }
    }

    /// The reply in `json` with its picture checked against `budget`; nil when malformed.
    init?(_ json: JSON, budget: Int) {
        guard let id = json["id"]?.integer else { return nil }
        if let picture = json["picture"] {
            guard let layout = PictureLayout(picture, budget: budget) else { return nil }
            self = .picture(id: id, layout)
        } else {
            guard let code = json["code"]?.string.flatMap(ProtocolError.Code.init(rawValue:)), let message = json["message"]?.string else { return nil }
            self = .failure(id: id, ProtocolError(code, message))
        }
    }
}

extension JSON {
    /// The number as an Int, when it is a whole number that fits.
    var integer: Int? {
        guard let value = number, value.rounded() == value, abs(value) < 9e15 else { return nil }
        return Int(value)
    }
}
