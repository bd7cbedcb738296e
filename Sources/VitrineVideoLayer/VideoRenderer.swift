import Glibc
import VitrineCore
import VitrineRaster
import VitrineRender
import VitrineSystem
import VitrineVideo
import VitrineYUV

/// The `video` layer kind: a video file or stream played by the layer's time.
public enum VideoLayer {
    public static let kindName = "video"

    public static let kind = LayerKind(
        name: kindName,
        extraProperties: [
            // A path under the content roots, or a stream's URI (rtsp, http, https) where allowed.
            PropertyDescriptor("src", .string(""), animatable: false),
            PropertyDescriptor("loop", .bool(false), animatable: false),
            PropertyDescriptor("audio", .string(VideoAudio.off.rawValue), animatable: false, allowed: VideoAudio.allCases.map(\.rawValue)),
            PropertyDescriptor("videoGravity", .string("resizeAspect"), animatable: false, allowed: ["resizeAspect", "resize"]),
            // The video time shown when the player starts, or when this is set: a seek.
            PropertyDescriptor("start", .number(0), animatable: false, range: 0...1e9),
            // Sources played one after another (each as `src` is); when not empty, `src` is
            // not played. `loop` plays the list again from its first.
            PropertyDescriptor("playlist", .array([]), animatable: false, element: .string),
        ])
}

/// Draws video layers: each layer on screen has a `VideoPlayer`, made when it first shows
/// and dropped when it leaves the tree or its `src`, `audio` or `videoGravity` changes.
///
/// A video plays by its layer's time (the clock of `PictureAnimations`, as animated
/// pictures do): its position is `start` plus the layer's local time since the player
/// started (or since `start` was last set), so the layer's speed is the rate (0 pauses,
/// 0.5 plays at half speed), and each frame of ours shows the video frame due at its
/// media time, dropping or repeating frames, never bending the clock.
public final class VideoRenderer: ContentRenderer {
    /// The clock and the media time of the frame being drawn.
    public let animations: PictureAnimations
    /// Turns a layer's `src` into a file or stream to play, or says why it may not be played.
    public var resolve: (String) -> Result<VideoSource.Location, VideoError> = {
        .failure(VideoError(message: "no source may be played: \($0)", debug: ""))
    }
    /// Makes the decoder of a player (the daemon's: one in the decoder helper).
    public var makeDecoder: (VideoSource) throws(VideoError) -> any VideoDecoding = { _ throws(VideoError) in
        throw VideoError(message: "no video decoder", debug: "")
    }
    /// Seconds a frame waits for the video frame it is due to show (set with a manual
    /// clock, whose frames are then exact); 0 never blocks.
    public var wait = 0.0
    /// Called with a layer's player's events (started, ended, error).
    public var onEvent: ((_ layer: String, _ src: String, _ event: VideoEvent) -> Void)?
    /// Bytes the players may still take (`limits.memory_mb` less what the images hold); a
    /// player whose frames (`VideoPlayer.bytes(of:)`) do not fit is not made, and its layer
    /// gets `video.error`.
    public var memoryAvailable: () -> Int = { .max }
    /// Called when the bytes the players hold change, with the new total.
    public var onMemory: ((Int) -> Void)?
    /// Bytes of frames the players hold at most.
    public private(set) var bytes = 0
    /// Media seconds until a video on screen shows another frame; nil when none will
    /// (none on screen, all paused, ended or failed).
    public private(set) var nextChange: Double?

    private let slots: (src: Int, loop: Int, audio: Int, gravity: Int, start: Int, playlist: Int)

    private struct Key: Equatable {
        /// The sources played in turn (`src` alone, or the playlist).
        var items: [String]
        var audio: VideoAudio
        var letterbox: Bool
    }

    private final class Entry {
        let key: Key
        var player: VideoPlayer?
        /// The layer's local time when `start` took effect.
        var origin: Double
        /// The video time at `origin`.
        var offset: Double
        /// `start` as last seen.
        var start: Double
        /// The playlist's item playing.
        var item = 0
        /// The frame drawn (its player and serial), where.
        var shownSerial: Int?
        var shownPlayer: ObjectIdentifier?
        /// The last frame of a playlist's previous item, shown until the next one's first.
        var held: VideoPicture?
        /// Its frames converted where they are drawn scaled or blended (kept between frames).
        let scratch = YUVScratch()
        /// Its decoder's process ended: when a new one takes over (monotonic seconds).
        var restartAt: Double?
        /// Decoders of it that ended in a row, and when the last did.
        var restarts = 0
        var lastEnding = -Double.infinity
        var area: Rect = .zero
        /// The media time it was brought up to.
        var time = -Double.infinity
        var rate = 0.0
        var position = 0.0

        init(key: Key, origin: Double, start: Double) {
            self.key = key
            self.origin = origin
            self.start = start
            offset = start
        }
    }

    private var entries: [String: Entry] = [:]
    /// Players made before their layers are drawn (`preroll`), by layer, with the
    /// monotonic time they were made: taken by the layer's first frame, dropped after
    /// `prerollLifetime` seconds unused.
    private var prerolled: [String: (entry: Entry, made: Double)] = [:]
    /// Seconds a prerolled player waits for its layer.
    public static let prerollLifetime = 60.0

    public init(animations: PictureAnimations, kind: LayerKind = VideoLayer.kind) {
        self.animations = animations
        slots = (
            kind.slot(of: "src")!, kind.slot(of: "loop")!, kind.slot(of: "audio")!, kind.slot(of: "videoGravity")!, kind.slot(of: "start")!,
            kind.slot(of: "playlist")!
        )
    }

    /// Players alive (for tests and stats).
    public var players: Int { entries.values.count { $0.player != nil } }

    /// Whether `layer` is playing a video: on screen, at a rate other than 0, its player
    /// neither ended nor failed (the content watchdog expects its picture to change).
    public func isPlaying(_ layer: String) -> Bool {
        guard let entry = entries[layer], let player = entry.player else { return false }
        return entry.rate != 0 && !player.ended && !player.failed
    }

    /// Has `layer`'s player made anew at the next frame, at the position it had got to (its
    /// source opened again by a new decoder), its last frame shown meanwhile. False when
    /// the layer plays no video.
    @discardableResult
    public func reload(_ layer: String) -> Bool {
        guard let entry = entries[layer] else { return false }
        entry.restartAt = EventLoop.monotonicSeconds
        return true
    }

    /// The serial of the video frame the layer shows: a shadow drawn from it is made again
    /// when it changes.
    public func contentVersion(of node: RenderTree.Node) -> AnyHashable? { entries[node.id]?.player?.frame?.serial }

    /// A frame (or a playlist's held one) is drawn over the whole bounds, its pixels and
    /// its letterbox bars opaque.
    public func coversBoundsOpaquely(_ node: RenderTree.Node) -> Bool {
        guard let entry = entries[node.id] else { return false }
        return entry.player?.picture != nil || entry.held != nil
    }

    public func draw(_ node: RenderTree.Node, on surface: Surface, transform: AffineTransform, opacity: Double, clip: Clip) {
        guard let entry = update(node, transform: transform), let picture = entry.player?.picture ?? entry.held, opacity > 0 else { return }
        picture.draw(on: surface, in: node.values.rect(.bounds), transform: transform, opacity: opacity, clip: clip, scratch: entry.scratch)
    }

    /// The screen rectangles of the video layers in `tree` whose frame changed since they
    /// were drawn; brings every player up to the frame's time, forgets the layers no
    /// longer in the tree, and sets `nextChange`.
    public func damage(in tree: RenderTree) -> [Rect] {
        nextChange = nil
        var rects: [Rect] = []
        var seen = 0
        for node in tree.nodes where node.kind == VideoLayer.kindName {
            guard let entry = update(node, transform: node.transform) else { continue }
            seen += 1
            fitSize(entry, node)
            if let player = entry.player, let frame = player.frame, frame.serial != entry.shownSerial || ObjectIdentifier(player) != entry.shownPlayer {
                rects.append(node.visualBounds)
                if entry.area != node.visualBounds, entry.shownSerial != nil { rects.append(entry.area) }
                entry.shownSerial = frame.serial
                entry.shownPlayer = ObjectIdentifier(player)
                entry.held = nil
                entry.area = node.visualBounds
            }
            note(entry)
        }
        if !prerolled.isEmpty { dropStalePrerolls() }
        if seen < entries.count {
            let ids = Set(tree.nodes.lazy.filter { $0.kind == VideoLayer.kindName }.map(\.id))
            entries = entries.filter { ids.contains($0.key) }
        }
        countBytes()
        return rects
    }

    /// Restarts after a decoder's process ended: the layer keeps its last frame meanwhile.
    static let restartDelays = [0.25, 1, 2, 4, 8]

    /// Plans a new decoder for `entry`, whose decoder's process ended, after a backoff
    /// that grows with each ending in a row (a minute of play forgets them); after
    /// `restartDelays.count` in a row, none.
    private func scheduleRestart(_ entry: Entry) {
        let now = EventLoop.monotonicSeconds
        if now - entry.lastEnding > 60 { entry.restarts = 0 }
        entry.lastEnding = now
        guard entry.restarts < Self.restartDelays.count else { return }
        entry.restartAt = now + Self.restartDelays[entry.restarts]
        entry.restarts += 1
    }

    /// Makes `entry`'s new player once its restart is due, at the position it had got to.
    private func restartIfDue(_ entry: Entry, _ node: RenderTree.Node, src: String, transform: AffineTransform) {
        guard let due = entry.restartAt, EventLoop.monotonicSeconds >= due else { return }
        entry.restartAt = nil
        let previous = entry.player
        entry.held = previous?.picture ?? entry.held
        entry.player = makePlayer(node, src: src, key: entry.key, transform: transform, replacing: previous)
        // A looping video's position counts its loops; the new decoder seeks within it.
        var position = entry.position
        if let previous, previous.loops, let duration = previous.duration, duration > 0 { position = position.truncatingRemainder(dividingBy: duration) }
        entry.player?.seek(to: position)
        countBytes()
    }

    /// Lowers `nextChange` to when `entry`'s player shows its next frame, or its decoder restarts.
    private func note(_ entry: Entry) {
        if let due = entry.restartAt { nextChange = min(nextChange ?? .infinity, max(0.001, due - EventLoop.monotonicSeconds)) }
        guard let player = entry.player, !player.failed else { return }
        var delay: Double?
        if player.isStarting {
            delay = 1.0 / 30
        } else if entry.rate != 0, !player.ended {
            if let next = player.nextFrameTime, entry.rate > 0, next > entry.position {
                delay = min(1.0 / 30, (next - entry.position) / entry.rate)
            } else {
                delay = 1.0 / 60
            }
        }
        if let delay { nextChange = min(nextChange ?? .infinity, max(0.001, delay)) }
    }

    /// Brings the player of `node` to the current media time: makes it (or a new one when
    /// its source changed), applies `start` and `loop`, and advances it. Nil when the
    /// layer shows no video.
    private func update(_ node: RenderTree.Node, transform: AffineTransform) -> Entry? {
        let v = node.values
        let list = v[slot: slots.playlist].array?.compactMap(\.string).filter { !$0.isEmpty } ?? []
        let items = list.isEmpty ? [v[slot: slots.src].string ?? ""].filter { !$0.isEmpty } : list
        guard !items.isEmpty else {
            entries[node.id] = nil
            return nil
        }
        let key = Key(
            items: items, audio: VideoAudio(rawValue: v[slot: slots.audio].string ?? "") ?? .off,
            letterbox: v[slot: slots.gravity].string != "resize")
        let start = v[slot: slots.start].number ?? 0
        let time = animations.time
        let clock = animations.clock?(node.id, time)
        var entry = entries[node.id]
        if let existing = entry, existing.key != key { entry = nil }
        if entry == nil, let ready = prerolled[node.id], ready.entry.key == key {
            prerolled[node.id] = nil
            ready.entry.origin = clock?.time ?? 0
            entries[node.id] = ready.entry
            entry = ready.entry
        }
        if entry == nil {
            let made = Entry(key: key, origin: clock?.time ?? 0, start: start)
            entries[node.id] = made
            entry = made
            made.player = makePlayer(node, src: items[0], key: key, transform: transform)
            countBytes()
        }
        guard let entry else { return nil }
        restartIfDue(entry, node, src: items[entry.item], transform: transform)
        guard entry.time != time else { return entry }
        entry.time = time
        if start != entry.start {
            (entry.start, entry.offset) = (start, start)
            entry.origin = clock?.time ?? entry.origin
            entry.player?.seek(to: start)
        }
        guard let clock else { return entry }
        let loops = v[slot: slots.loop].bool ?? false
        entry.rate = clock.rate
        // Each item of a playlist takes over at the time the one before ended.
        for _ in 0..<items.count {
            guard let player = entry.player else { break }
            player.loops = loops && items.count == 1
            entry.position = entry.offset + (clock.time - entry.origin)
            player.setPlaying(clock.rate != 0)
            player.advance(to: entry.position, wait: wait)
            let next = items.count > 1 && player.ended && (loops || entry.item + 1 < items.count) ? player.duration : nil
            for event in player.takeEvents() where !(next != nil && event == .ended) { onEvent?(node.id, items[entry.item], event) }
            if player.failure?.decoderEnded == true, entry.restartAt == nil { scheduleRestart(entry) }
            guard let duration = next else { break }
            entry.origin += duration - entry.offset
            entry.offset = 0
            entry.item = (entry.item + 1) % items.count
            // (the frame shown stays until the next item's first)
            let previous = entry.player
            entry.held = previous?.picture ?? entry.held
            entry.player = makePlayer(node, src: items[entry.item], key: key, transform: transform, replacing: previous)
            countBytes()
        }
        return entry
    }

    /// The pixels `node`'s bounds cover on screen through `transform`: the size its
    /// frames are decoded at.
    private static func pixelSize(_ node: RenderTree.Node, transform: AffineTransform) -> (width: Int, height: Int) {
        let bounds = node.values.rect(.bounds)
        let scale = (
            x: (transform.a * transform.a + transform.b * transform.b).squareRoot(), y: (transform.c * transform.c + transform.d * transform.d).squareRoot()
        )
        func side(_ v: Double) -> Int { v.isFinite ? max(2, min(4096, Int(v.rounded(.up)))) : 2 }
        return (side(bounds.width * scale.x), side(bounds.height * scale.y))
    }

    /// Has `entry`'s player decode at the size `node` now covers on screen, where the
    /// frames at that size fit the memory left (else it keeps its size, drawn scaled).
    private func fitSize(_ entry: Entry, _ node: RenderTree.Node) {
        guard let player = entry.player else { return }
        let size = Self.pixelSize(node, transform: node.transform)
        guard size != player.size, VideoPlayer.bytes(width: size.width, height: size.height) <= memoryAvailable() + player.bytes else { return }
        player.resize(width: size.width, height: size.height)
        countBytes()
    }

    /// Sums the players' bytes, and tells `onMemory` when the sum changed.
    private func countBytes() {
        let total = (entries.values.map(\.player) + prerolled.values.map(\.entry.player)).reduce(0) { $0 + ($1?.bytes ?? 0) }
        guard total != bytes else { return }
        bytes = total
        onMemory?(total)
    }

    /// A player of `src` for `node`; `replacing` is the one it takes over from (a
    /// playlist's previous item), whose frames no longer count.
    private func makePlayer(_ node: RenderTree.Node, src: String, key: Key, transform: AffineTransform, replacing: VideoPlayer? = nil) -> VideoPlayer? {
        switch makePlayer(src: src, key: key, size: Self.pixelSize(node, transform: transform), replacing: replacing) {
        case .success(let player): return player
        case .failure(let error):
            onEvent?(node.id, src, .error(message: error.message, debug: error.debug))
            return nil
        }
    }

    private func makePlayer(src: String, key: Key, size: (width: Int, height: Int), replacing: VideoPlayer? = nil) -> Result<VideoPlayer, VideoError> {
        let location: VideoSource.Location
        switch resolve(src) {
        case .success(let resolved): location = resolved
        case .failure(let error): return .failure(error)
        }
        let source = VideoSource(location, width: size.width, height: size.height, letterbox: key.letterbox, audio: key.audio)
        let needed = VideoPlayer.bytes(of: source), available = memoryAvailable() + (replacing?.bytes ?? 0)
        guard needed <= available else {
            let message =
                "\(source.width)×\(source.height) frames take \(needed >> 20) MB; limits.memory_mb leaves \(max(0, available) >> 20) MB beside the images and videos held"
            return .failure(VideoError(message: message, debug: ""))
        }
        do {
            return .success(VideoPlayer(source, decoder: try makeDecoder(source)))
        } catch {
            return .failure(error)
        }
    }

    // MARK: Preroll

    /// Makes the player of `layer` before the layer shows `src`, decoding at `width` ×
    /// `height` (its bounds on screen), so that its first frame is there when the layer is
    /// first drawn (`isPrerolled`): a scene or a playlist's item switches to a video
    /// without a blank frame. The layer's first frame with those `src`, `audio` and
    /// `videoGravity` takes the player, from the video's start. Throws when it cannot be played.
    public func preroll(layer: String, src: String, width: Int, height: Int, letterbox: Bool = true, audio: VideoAudio = .off) throws(VideoError) {
        dropStalePrerolls()
        let key = Key(items: [src], audio: audio, letterbox: letterbox)
        if let ready = prerolled[layer], ready.entry.key == key { return }
        let entry = Entry(key: key, origin: 0, start: 0)
        switch makePlayer(src: src, key: key, size: (max(2, min(4096, width)), max(2, min(4096, height)))) {
        case .success(let player): entry.player = player
        case .failure(let error): throw error
        }
        prerolled[layer] = (entry, EventLoop.monotonicSeconds)
        countBytes()
    }

    /// Whether `layer`'s prerolled player has decoded its first frame (true), is still
    /// starting (false), or failed (throws); true when none waits (already taken).
    public func isPrerolled(_ layer: String) throws(VideoError) -> Bool {
        guard let player = prerolled[layer]?.entry.player else { return true }
        if player.frame == nil { player.advance(to: 0) }
        if let failure = player.failure { throw failure }
        return player.frame != nil
    }

    /// Drops `layer`'s prerolled player, if it was not taken.
    public func cancelPreroll(_ layer: String) {
        guard prerolled.removeValue(forKey: layer) != nil else { return }
        countBytes()
    }

    private func dropStalePrerolls() {
        let now = EventLoop.monotonicSeconds
        let before = prerolled.count
        prerolled = prerolled.filter { now - $0.value.made < Self.prerollLifetime }
        if prerolled.count != before { countBytes() }
    }
}
