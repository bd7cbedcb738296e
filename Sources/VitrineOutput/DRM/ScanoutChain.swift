import VitrineRaster
import VitrineSystem

/// A scan-out buffer as the chain sees it: memory to write, the framebuffer to commit.
struct ScanoutTarget {
    let pixels: UnsafeMutableRawPointer
    /// Bytes from one row to the next.
    let pitch: Int
    let framebuffer: UInt32
}

/// A framebuffer that is none of the chain's (a client's buffer shown directly), with what
/// must live while it is on screen or on its way there.
struct ExternalFrame {
    let framebuffer: UInt32
    let keep: [AnyObject]
}

/// The frames' way from the rendered picture to the screen, without the device: which
/// buffer is on screen, which flip is pending, what each buffer lacks.
///
/// A rendered frame is copied into the buffer after the one on screen (its missing
/// damage only) and committed — a modeset the first time, a page flip after. While a flip
/// is pending (or the VT is away) a rendered frame waits; `flipCompleted` shows it. At most
/// one commit is ever in flight. A client's framebuffer (`scanOut`) is flipped in the same
/// way, and let go once the flip after it has completed.
final class ScanoutChain {
    let surface: Surface
    private let targets: [ScanoutTarget]
    private let copier: ScanoutCopy
    private let committer: KMSCommitter
    private var damage: BufferDamage
    /// Passed with each commit; comes back with its flip event.
    var userData: UnsafeMutableRawPointer?
    /// Told which rows of a buffer were written (for DirtyFB).
    var wrote: (ScanoutTarget, [PixelRect]) -> Void = { _, _ in }
    /// Runs a flip completion later, for commits that send no event (legacy SetCrtc).
    var later: (@escaping () -> Void) -> Void = { $0() }
    /// A commit reached the screen (the output's `frameDone`).
    var shown: () -> Void = {}
    /// A waiting frame could not be committed after a flip (it stays waiting).
    var failed: (Error) -> Void = { _ in }

    /// The buffer on screen; nil before the first frame.
    private(set) var front: Int?
    /// The buffer whose commit is in flight.
    private(set) var pending: Int?
    /// The client's framebuffer whose flip is in flight, and the one on screen.
    private var pendingExternal: ExternalFrame?
    private var frontExternal: ExternalFrame?
    /// A commit waits for its flip event.
    var isPending: Bool { pending != nil || pendingExternal != nil }
    /// A rendered frame is waiting for the pending flip or the VT.
    private(set) var unshown = false
    private(set) var needsModeset = true
    /// False while the VT is switched away: nothing is committed.
    private(set) var active = true
    private var rendered = false
    /// Frames rendered so far, and how many of them the commit in flight shows.
    private(set) var renderedFrames = 0
    private var pendingFrames = 0
    /// The commit on screen: the frames it shows and when its flip came.
    private(set) var shownFrame: ShownFrame?

    init(surface: Surface, targets: [ScanoutTarget], copier: ScanoutCopy, committer: KMSCommitter) {
        self.surface = surface
        self.targets = targets
        self.copier = copier
        self.committer = committer
        damage = BufferDamage(buffers: targets.count, bounds: surface.bounds)
    }

    /// The surface holds a new frame that changed `frameDamage`.
    func frameRendered(damage frameDamage: [PixelRect]) throws {
        rendered = true
        renderedFrames += 1
        damage.add(frameDamage)
        unshown = true
        guard active, !isPending else { return }
        try show()
    }

    /// Flips to `frame` now, in place of a rendered frame; false (nothing done) while a
    /// flip is in flight, the VT is away or the mode is not set yet.
    func scanOut(_ frame: ExternalFrame) throws -> Bool {
        guard active, !isPending, !needsModeset else { return false }
        try committer.flip(framebuffer: frame.framebuffer, damage: [], userData: userData)
        renderedFrames += 1
        pendingFrames = renderedFrames
        unshown = false
        pendingExternal = frame
        return true
    }

    /// The pending commit is on screen, since `time` (CLOCK_MONOTONIC seconds, the flip
    /// event's, in the vblank numbered `sequence`; nil: now). Shows a frame that waited for
    /// it, then `shown`.
    func flipCompleted(at time: Double? = nil, sequence: UInt32 = 0) {
        if let external = pendingExternal {
            pendingExternal = nil
            frontExternal = external
        } else {
            guard let index = pending else { return }
            pending = nil
            front = index
            frontExternal = nil
        }
        shownFrame =
            if let time {
                ShownFrame(number: pendingFrames, time: time, sequence: UInt64(sequence), byDisplay: true)
            } else {
                ShownFrame(number: pendingFrames, time: Double(EventLoop.monotonicNanoseconds()) / 1e9)
            }
        if unshown, active {
            do { try show() } catch {
                unshown = true
                failed(error)
            }
        }
        shown()
    }

    /// Forgets a commit whose event will not be waited for any longer.
    func abandonPending() {
        if let index = pending { (front, frontExternal) = (index, nil) }
        if let external = pendingExternal { frontExternal = external }
        pending = nil
        pendingExternal = nil
    }

    /// The VT is being left: commit nothing until `resume`.
    func suspend() { active = false }

    /// The VT is back and the screen's state lost: set the mode again with every buffer
    /// rewritten whole.
    func resume() throws {
        active = true
        needsModeset = true
        damage.invalidateAll()
        if rendered, !isPending { try show() }
    }

    private func show() throws {
        let index = front.map { ($0 + 1) % targets.count } ?? 0
        let target = targets[index]
        let rects = damage.missing(in: index)
        for rect in rects { copier.copy(rect, from: surface, to: target.pixels, pitch: target.pitch) }
        damage.written(index)
        wrote(target, rects)
        unshown = false
        pendingFrames = renderedFrames
        if needsModeset {
            let event = try committer.modeset(framebuffer: target.framebuffer, userData: userData)
            needsModeset = false
            pending = index
            if !event { later { [weak self] in self?.flipCompleted() } }
        } else {
            let clips = rects.map { copier.rotation.physicalRect(of: $0, logicalWidth: surface.width, logicalHeight: surface.height) }
            try committer.flip(framebuffer: target.framebuffer, damage: clips, userData: userData)
            pending = index
        }
    }
}
