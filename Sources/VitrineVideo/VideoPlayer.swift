import Glibc
import VitrineRaster

/// What a video layer asks of its player: the source, and how it is shown and heard.
public struct VideoSource: Hashable, Sendable {
    /// Where a video comes from.
    public enum Location: Hashable, Sendable {
        /// A file (its canonical path, inside the content roots).
        case file(String)
        /// A network stream's URI (rtsp, http…).
        case stream(String)
    }

    /// What to play.
    public var location: Location
    /// Pixels of the frames decoded: the layer's size on screen.
    public var width: Int, height: Int
    /// Black bars keep the video's aspect ratio; false stretches it to the layer.
    public var letterbox: Bool
    public var audio: VideoAudio

    public init(_ location: Location, width: Int, height: Int, letterbox: Bool = true, audio: VideoAudio = .off) {
        (self.location, self.width, self.height) = (location, width, height)
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
}

/// Something a player has to tell: it showed its first frame, played to its end, or
/// failed (with GStreamer's message and debug string).
public enum VideoEvent: Equatable, Sendable {
    case started(duration: Double?)
    case ended
    case error(message: String, debug: String)
}

/// One video played by its reader's clock: frames come from a `VideoDecoding` (the
/// decoder helper's, in the daemon), paced by the reader, not by GStreamer's clock.
///
/// The reader (the daemon's loop) calls `advance(to:)` with the video time a frame shows;
/// the player takes decoded frames up to the latest whose time is at most that (frames
/// are dropped when the position runs ahead, repeated when it stands still) and keeps the
/// next one back. The decoder works at most `queued` frames ahead and waits when they
/// are not taken, so a paused video decodes nothing and memory stays bounded: the
/// decoder's frames, the one held back, and the one shown, all of the layer's size.
/// Nothing here blocks unless `advance` is asked to wait.
public final class VideoPlayer {
    public let source: VideoSource
    /// Loop at the end (the position is taken modulo the duration).
    public var loops = false
    /// The frame shown: its video time in seconds, and a counter that changes with it.
    public private(set) var frame: (time: Double, serial: Int)?
    /// The pixels of the frame shown (nil before the first).
    public private(set) var picture: VideoPicture?
    /// The frame shown as BGRA (Y′CbCr converted anew: for reading pixels back).
    public var surface: Surface? { picture?.surface }
    /// The stream's duration in seconds, once known.
    public var duration: Double? { decoder.duration }
    /// Why it failed (nothing more is decoded; the last frame stays); nil while playing.
    public private(set) var failure: VideoError?
    /// Failed: nothing more is decoded; the last frame stays.
    public var failed: Bool { failure != nil }
    /// The end of the stream has been reached and shown (without looping).
    public private(set) var ended = false
    /// Events since the last `takeEvents`.
    private var events: [VideoEvent] = []
    /// Frames a decoder works ahead.
    public static let queued = 3

    /// Bytes of the frames a player of `source` holds at most: the decoder's, the one
    /// taken ahead, the one shown.
    public static func bytes(of source: VideoSource) -> Int { bytes(width: source.width, height: source.height) }

    public static func bytes(width: Int, height: Int) -> Int { (queued + 2) * width * height * 4 }

    /// The size frames are decoded at: the source's, or the last `resize`'s.
    public private(set) var size: (width: Int, height: Int)

    /// Bytes of the frames this player holds at most, at its `size`.
    public var bytes: Int { Self.bytes(width: size.width, height: size.height) }

    private let decoder: any VideoDecoding
    /// The frame taken ahead of the position, with its time.
    private var next: (frame: VideoPicture, time: Double)?
    /// The decoder has given its last frame.
    private var drained = false
    private var serial = 0
    /// Where the last seek went, until a frame after it shows.
    private var seekTarget: Double?
    private var playing = true

    /// Plays `source`, whose frames `decoder` decodes (its first frame comes later).
    public init(_ source: VideoSource, decoder: any VideoDecoding) {
        self.source = source
        self.decoder = decoder
        size = (source.width, source.height)
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
        decoder.setPlaying(on)
    }

    /// Shows the frame due at video time `position` (seconds): the latest decoded frame
    /// whose time is at most it. Jumps back, or more than a second ahead of what is
    /// decoded, seek. Waits up to `wait` seconds for the frame due (a manual clock's
    /// exact frames); 0 never blocks. Returns whether the frame shown changed.
    @discardableResult
    public func advance(to position: Double, wait: Double = 0) -> Bool {
        noteFailure()
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
        var taken: VideoPicture?
        var takenTime = 0.0
        while true {
            if next == nil, !drained {
                if let decoded = decoder.takeFrame(waiting: wait > 0 ? max(0, deadline - monotonic()) : 0) {
                    next = (decoded.picture, decoded.time ?? takenTime)
                } else if decoder.isDrained {
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
        noteFailure()
        if drained, next == nil, !ended, !failed {
            if loops, let duration, duration > 0 {
                seek(to: 0)
            } else if frame != nil, duration.map({ position >= $0 - 1e-3 }) ?? true {
                ended = true
                events.append(.ended)
            }
        }
        return frame?.serial != before
    }

    /// Decodes frames of `width` × `height` from the next one the decoder scales on (the
    /// few already decoded keep the size they had; each frame shown is drawn at its own).
    public func resize(width: Int, height: Int) {
        guard (width, height) != size, width > 0, height > 0, !failed else { return }
        size = (width, height)
        decoder.resize(width: width, height: height)
    }

    /// When the frame after the one shown is due, in video seconds, if it is decoded.
    public var nextFrameTime: Double? { next?.time }

    /// A flushing seek; what was decoded ahead is dropped.
    public func seek(to position: Double) {
        guard !failed else { return }
        next = nil
        drained = false
        ended = false
        seekTarget = position
        decoder.seek(to: max(0, position))
    }

    private func show(_ decoded: VideoPicture, time: Double) {
        picture = decoded
        serial += 1
        seekTarget = nil
        let first = frame == nil
        frame = (time, serial)
        if first { events.append(.started(duration: duration)) }
    }

    /// Takes the decoder's failure, if it has one now.
    private func noteFailure() {
        guard !failed, let error = decoder.takeFailure() else { return }
        failure = error
        events.append(.error(message: error.message, debug: error.debug))
    }

    private func monotonic() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// A player could not be made, or its decoder failed.
public struct VideoError: Error, Sendable, Equatable {
    public let message: String
    public let debug: String
    /// The decoder's process ended (crashed, was killed): a new one may play on, where
    /// the stream itself was not at fault.
    public let decoderEnded: Bool

    public init(message: String, debug: String, decoderEnded: Bool = false) {
        (self.message, self.debug, self.decoderEnded) = (message, debug, decoderEnded)
    }
}
