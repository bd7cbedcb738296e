import VitrineCore
import VitrineRaster
import VitrineSystem

/// One output's picture for screen capture (`zwlr_screencopy_frame_v1`): while a capture
/// client is connected, a shadow copy of the output's last presented frame, kept up to date
/// from each frame's damage (`frame(_:damage:)`, which the daemon calls from its frame tap),
/// and the captures waiting for a frame.
///
/// A `copy` is served from the shadow at once; a `copy_with_damage` at once when the
/// output changed since that client's last copy, otherwise after the next frame with
/// damage in its region. Buffers are filled on the loop after the frame was presented,
/// never while it is drawn; only the captured region is copied. The first capture of an
/// output starts the tap (`tapping(true)`: the daemon adds its tap and asks for a frame,
/// which is then drawn whole); the last capture client going stops it and frees the shadow.
public final class OutputCapture {
    /// The output's name (its connector's) and its size in pixels.
    public let name: String
    public let width: Int
    public let height: Int
    /// Output pixels to a logical pixel (`[[outputs]] scale`): regions come in logical pixels.
    let scale: Double
    /// Called with true when captures need frames, false when none does any more: the
    /// daemon adds or removes its frame tap (and asks for a frame on true). Unset: captures fail.
    public var tapping: ((Bool) -> Void)?
    private let loop: EventLoop
    private var shadow: Surface?
    /// CLOCK_MONOTONIC nanoseconds when the shadow's frame was drawn.
    private var shadowTime: UInt64 = 0
    private var waiting: [ScreencopyFrameObject] = []
    /// The damage since each manager's last copy of this output (absent: it copied none yet).
    private var damageSince: [ObjectIdentifier: [PixelRect]] = [:]
    private var serveScheduled = false
    private var isTapping = false

    init(output: WaylandServer.Output, loop: EventLoop) {
        (name, width, height, scale) = (output.name, output.width, output.height, output.scale)
        self.loop = loop
    }

    /// The output's whole area, in pixels.
    var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    /// `surface` is the output's next frame, `damage` what changed since the one before
    /// (all of it the first time): the shadow takes the damaged pixels; waiting captures are
    /// served once the frame loop is done. Runs on the frame loop; copies only the damage.
    public func frame(_ surface: Surface, damage: [PixelRect]) {
        guard isTapping else { return }
        let shadow = self.shadow ?? Surface(width: width, height: height)
        let whole = self.shadow == nil
        self.shadow = shadow
        if whole { shadow.copyPixels(bounds, from: surface) } else { for rect in damage { shadow.copyPixels(rect, from: surface) } }
        shadowTime = EventLoop.monotonicNanoseconds()
        let changed = whole ? [bounds] : damage.map { $0.intersection(bounds) }.filter { !$0.isEmpty }
        for key in damageSince.keys {
            damageSince[key]! += changed
            if damageSince[key]!.count > 32 { damageSince[key] = [damageSince[key]!.reduce(PixelRect.empty) { $0.union($1) }] }
        }
        guard !waiting.isEmpty, !serveScheduled else { return }
        serveScheduled = true
        _ = loop.schedule(after: 0) { [weak self] in self?.serveWaiting() }
    }

    /// Starts `frame`'s copy: at once when the shadow can answer it, else after a frame.
    func copy(_ frame: ScreencopyFrameObject) {
        guard let tapping else { return frame.fail() }
        if !isTapping {
            isTapping = true
            tapping(true)
        }
        if !serve(frame) { waiting.append(frame) }
    }

    /// Forgets `frame`, which went before it was served.
    func forget(_ frame: ScreencopyFrameObject) { waiting.removeAll { $0 === frame } }

    /// Forgets what `manager` copied last (it went).
    func forget(manager: ObjectIdentifier) { damageSince[manager] = nil }

    /// No capture client is left: stops the tap, frees the shadow, fails what waits.
    func stop() {
        for frame in waiting { frame.fail() }
        waiting.removeAll()
        damageSince.removeAll()
        shadow = nil
        guard isTapping else { return }
        isTapping = false
        tapping?(false)
    }

    private func serveWaiting() {
        serveScheduled = false
        let frames = waiting
        waiting.removeAll()
        for frame in frames where !serve(frame) { waiting.append(frame) }
    }

    /// Fills `frame`'s buffer from the shadow when it can be answered now; whether it was.
    private func serve(_ frame: ScreencopyFrameObject) -> Bool {
        guard let shadow else { return false }
        let key = frame.manager
        var damage: [PixelRect]
        if let since = key.flatMap({ damageSince[$0] }) {
            damage = since.map { $0.intersection(frame.region) }.filter { !$0.isEmpty }
            if frame.withDamage, damage.isEmpty { return false }
        } else {
            damage = [frame.region]
        }
        if !frame.withDamage { damage = [frame.region] }
        if let key { damageSince[key] = (damageSince[key] ?? [bounds]).flatMap { $0.outside(frame.region) } }
        frame.complete(from: shadow, damage: damage.map { $0.offsetBy(dx: -frame.region.x, dy: -frame.region.y) }, time: shadowTime)
        return true
    }

    /// The pixels of `x`, `y`, `width` × `height` in logical pixels of the output, clipped to it.
    func region(x: Int32, y: Int32, width: Int32, height: Int32) -> PixelRect {
        guard width > 0, height > 0 else { return .empty }
        let scaled = PixelRect(
            covering: .init(x: Double(x) * scale, y: Double(y) * scale, width: Double(width) * scale, height: Double(height) * scale))
        return scaled.intersection(bounds)
    }
}

extension PixelRect {
    /// The parts of this rectangle outside `cut`: up to four rectangles.
    func outside(_ cut: PixelRect) -> [PixelRect] {
        let i = intersection(cut)
        guard !i.isEmpty else { return [self] }
        return [
            PixelRect(x: x, y: y, width: width, height: i.y - y), PixelRect(x: x, y: i.maxY, width: width, height: maxY - i.maxY),
            PixelRect(x: x, y: i.y, width: i.x - x, height: i.height), PixelRect(x: i.maxX, y: i.y, width: maxX - i.maxX, height: i.height),
        ].filter { !$0.isEmpty }
    }
}
