import VitrineCore
import VitrineRaster

/// A decoded image: one frame, or an animation's frames with how long each shows.
///
/// Its size in points (`naturalSize`, what `contentsGravity` places) is the file's full
/// pixel size (EXIF-oriented), or an SVG's intrinsic size; its frames may have fewer or
/// more pixels than that when it was decoded for a size on screen (`resolution`).
public final class Picture: Sendable {
    public let format: ImageFormat
    /// The frames, all of one pixel size; one for a still.
    public let frames: [Surface]
    /// How long each frame shows, in seconds; empty for a still.
    public let durations: [Double]
    /// How many times the animation plays; 0 for ever.
    public let plays: Int
    /// The image's size in points.
    public let naturalSize: Size
    /// Whether decoding again for another size gives other pixels.
    public let scaling: Scaling
    /// Where each frame starts, in seconds from the animation's start; one more entry at
    /// the end: the length of one play.
    private let starts: [Double]

    /// How a picture's pixel size can follow the size it is shown at.
    public enum Scaling: Sendable {
        /// Its pixels are all there are (PNG, GIF, an animated WebP).
        case fixed
        /// It can be decoded smaller, up to its full size (JPEG, a still WebP).
        case upToNatural
        /// It can be drawn at any size (SVG).
        case vector
    }

    /// A picture of its frames. Durations of 10 ms or less (and animations' frames without
    /// one) show for 100 ms, as browsers do.
    public init(frames: [Surface], durations: [Double] = [], plays: Int = 0, naturalSize: Size? = nil, format: ImageFormat, scaling: Scaling = .fixed) {
        precondition(!frames.isEmpty, "a picture has a frame")
        self.format = format
        self.frames = frames
        let durations = frames.count > 1 ? frames.indices.map { $0 < durations.count && durations[$0] > 0.0101 ? durations[$0] : 0.1 } : []
        self.durations = durations
        self.plays = max(0, plays)
        self.naturalSize = naturalSize ?? Size(width: Double(frames[0].width), height: Double(frames[0].height))
        self.scaling = scaling
        var starts = [0.0]
        for d in durations { starts.append(starts.last! + d) }
        self.starts = starts
    }

    /// A still picture.
    public convenience init(still surface: Surface, naturalSize: Size? = nil, format: ImageFormat, scaling: Scaling = .fixed) {
        self.init(frames: [surface], naturalSize: naturalSize, format: format, scaling: scaling)
    }

    /// Whether it has more than one frame.
    public var isAnimated: Bool { frames.count > 1 }

    /// Bytes of its pixels, every frame counted.
    public var bytes: Int { frames.count * frames[0].width * frames[0].height * 4 }

    /// Pixels per point.
    public var resolution: Double { naturalSize.width > 0 ? Double(frames[0].width) / naturalSize.width : 1 }

    /// The length of one play, in seconds; 0 for a still.
    public var playDuration: Double { starts.last! }

    /// The frame shown `time` seconds into the animation (the layer's local time), and the
    /// seconds until the next frame starts (nil when no other frame follows: a still, an
    /// animation that has played out, or a time before the start). A frame starts at its
    /// exact time: at `time` equal to the second frame's start, the second frame shows.
    public func frame(at time: Double) -> (index: Int, untilNext: Double?) {
        guard frames.count > 1, time.isFinite else { return (0, nil) }
        // Sums of durations are a little off (0.1 + 0.2 > 0.3): a frame starts within ε.
        let length = starts.last!, epsilon = 1e-9
        guard time >= 0 else { return (0, -time) }
        if plays > 0, time >= length * Double(plays) - epsilon { return (frames.count - 1, nil) }
        var within = time - (time / length).rounded(.down) * length
        if within >= length - epsilon { within = 0 }
        // The last start at or before `within`.
        var low = 0, high = frames.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= within + epsilon { low = mid } else { high = mid - 1 }
        }
        let next = starts[low + 1] - within
        let isLastOfLastPlay = low == frames.count - 1 && plays > 0 && time + next >= length * Double(plays) - epsilon
        return (low, isLastOfLastPlay ? nil : next)
    }
}
