import VitrineCore
import VitrineRaster
import VitrineSystem

/// A buffer to draw the next frame into, and how many frames ago it was last drawn.
public struct OutputBuffer {
    /// Premultiplied ARGB8888 in system memory, the output's size.
    public let surface: Surface
    /// 0 when its contents are unknown (draw everything); N when it holds the frame
    /// presented N frames ago, so that only the damage of the last N frames needs drawing.
    public let age: Int

    public init(surface: Surface, age: Int) {
        self.surface = surface
        self.age = age
    }
}

/// A presented frame that reached the screen.
public struct ShownFrame: Equatable, Sendable {
    /// Which frame: the output's `presentedFrames` after its `present` (1 for the first).
    /// A frame on screen holds every frame presented before it too.
    public var number: Int
    /// When it reached the screen, CLOCK_MONOTONIC seconds: the page flip's timestamp where
    /// the kernel gives one, otherwise when it was shown.
    public var time: Double
    /// The display's vertical retrace counter at `time` (the page flip's sequence); 0 where
    /// the output has none.
    public var sequence: UInt64
    /// `time` is the display's own: the vblank the kernel flipped the frame in, told by its
    /// flip event (DRM). False where the frame's arrival is a reading taken when the
    /// backend learnt of it.
    public var byDisplay: Bool

    public init(number: Int, time: Double, sequence: UInt64 = 0, byDisplay: Bool = false) {
        self.number = number
        self.time = time
        self.sequence = sequence
        self.byDisplay = byDisplay
    }
}

/// A display mode: size in pixels and refresh rate.
public struct OutputMode: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Hertz; 0 where unknown.
    public var refreshRate: Double

    public init(width: Int, height: Int, refreshRate: Double = 60) {
        self.width = width
        self.height = height
        self.refreshRate = refreshRate
    }

    public var description: String { "\(width)x\(height)@\(refreshRate.rounded() == refreshRate ? String(Int(refreshRate)) : String(refreshRate))" }
}

/// Where frames go: a screen (DRM, fbdev), a window, or memory (headless).
///
/// A frame is: `acquireBuffer()`, draw the damaged region into it, `present(damage:)`.
/// `frameDone` fires when the presented frame reached the screen (a page flip); only then
/// may the next frame be presented.
public protocol OutputBackend: AnyObject {
    /// A short name for logs: "headless", "drm:HDMI-A-1", …
    var name: String { get }
    /// The output's name as scripts and the configuration's `[[outputs]]` know it: the
    /// connector ("HDMI-A-1", "Virtual-2"), or an emulated output's name; `name` where
    /// there is no connector.
    var connector: String { get }
    /// The mode in use.
    var mode: OutputMode { get }
    /// The modes the output offers, preferred first.
    var modes: [OutputMode] { get }
    /// The buffer to draw the next frame into.
    func acquireBuffer() throws -> OutputBuffer
    /// Shows the buffer last acquired; `damage` is the region drawn this frame (device
    /// pixels), which a backend that copies out of system memory limits itself to.
    func present(damage: [PixelRect]) throws
    /// Called when a presented frame is on screen.
    var frameDone: (() -> Void)? { get set }
    /// Frames given to `present` so far.
    var presentedFrames: Int { get }
    /// The frame on screen and when it got there, set before `frameDone` is called; nil
    /// before the first.
    var shownFrame: ShownFrame? { get }
    /// Gives the backend the event loop every call to it is made on, so that its device
    /// events (page flips, VT switch signals) are read there too, with no other thread.
    /// Called once, before the first frame.
    func attach(to loop: EventLoop)
    /// Gives the screen back: waits for a pending flip, restores what was shown before,
    /// frees buffers. The daemon calls it on stop; the backend is unusable afterwards.
    func close()
    /// The VT the output shows on (DRM and fbdev started on one), for the input side: its
    /// keyboard mode (`silenceKeyboard`), switches asked for by Ctrl+Alt+Fn (`activate`)
    /// and switch notices (`switched`). nil for other outputs.
    var virtualTerminal: VirtualTerminal? { get }
    /// Whether `frameDone` is the display asking for the next frame (a Wayland frame
    /// callback), so that the frame pacer draws it at once instead of at its own slots.
    var pacesFrames: Bool { get }
    /// Blanks the screen (`false`: DPMS off) or wakes it (`true`). The caller presents no
    /// frame while it is blanked, and draws the first one after waking whole.
    func setPower(_ on: Bool) throws
}

extension OutputBackend {
    public func attach(to loop: EventLoop) {}
    public func close() {}
    public var virtualTerminal: VirtualTerminal? { nil }
    public var pacesFrames: Bool { false }
    public var connector: String { name }
    public func setPower(_ on: Bool) throws {}
}
