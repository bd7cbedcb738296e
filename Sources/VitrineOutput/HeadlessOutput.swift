import VitrineCore
import VitrineRaster
import VitrineSystem

/// Frames in memory: for tests, for layout work without a screen, and for screenshots.
///
/// It keeps `bufferCount` surfaces and hands them out in turn, so that the frame pipeline's
/// buffer-age logic is exercised as it is on a screen with double or triple buffering.
/// `frontBuffer` is the frame last presented.
public final class HeadlessOutput: OutputBackend {
    public let name: String
    public let mode: OutputMode
    public var modes: [OutputMode] { [mode] }
    public var frameDone: (() -> Void)?
    /// Sees each frame as it is presented, before `frameDone`: for one who watches the
    /// pictures (a probe, a capture), while `frameDone` is the frame pacer's.
    public var watcher: ((Surface) -> Void)?
    /// Frames presented so far.
    public private(set) var presentedFrames = 0
    /// The frame last presented, shown as it is presented.
    public private(set) var shownFrame: ShownFrame?
    /// The damage of the last presented frame.
    public private(set) var lastDamage: [PixelRect] = []

    private let buffers: [Surface]
    /// The frame number at which each buffer was last presented; nil if never.
    private var presentedAt: [Int?]
    private var next = 0
    private var acquired: Int?

    /// Whether the output is awake: `setPower(false)` blanks it (its front buffer is then
    /// what was shown last, and no frame may be presented until it wakes).
    public private(set) var isPowered = true

    /// An output of `width`×`height` pixels with `bufferCount` (1…4) buffers; `name` is
    /// what scripts call it ("headless", or an emulated connector's name: "HDMI-A-2").
    public init(name: String = "headless", width: Int, height: Int, refreshRate: Double = 60, bufferCount: Int = 2) throws(OutputError) {
        self.name = name
        guard (1...16384).contains(width), (1...16384).contains(height) else {
            throw OutputError("headless size \(width)x\(height) is out of range: use 1…16384 pixels on each side")
        }
        guard (1...4).contains(bufferCount) else { throw OutputError("headless buffer count must be 1…4, not \(bufferCount)") }
        mode = OutputMode(width: width, height: height, refreshRate: refreshRate)
        buffers = (0..<bufferCount).map { _ in Surface(width: width, height: height) }
        presentedAt = Array(repeating: nil, count: bufferCount)
    }

    public func acquireBuffer() throws -> OutputBuffer {
        let index = next
        acquired = index
        let age = presentedAt[index].map { presentedFrames - $0 + 1 } ?? 0
        return OutputBuffer(surface: buffers[index], age: age)
    }

    public func setPower(_ on: Bool) throws { isPowered = on }

    public func present(damage: [PixelRect]) throws {
        guard isPowered else { throw OutputError("\(name): a frame was presented while the output is blanked") }
        guard let index = acquired else { throw OutputError("present without an acquired buffer") }
        acquired = nil
        presentedFrames += 1
        presentedAt[index] = presentedFrames
        front = index
        next = (index + 1) % buffers.count
        lastDamage = damage
        shownFrame = ShownFrame(number: presentedFrames, time: Double(EventLoop.monotonicNanoseconds()) / 1e9)
        watcher?(buffers[index])
        frameDone?()
    }

    private var front: Int?

    /// The frame last presented, or nil before the first.
    public var frontBuffer: Surface? { front.map { buffers[$0] } }
}

/// Why an output could not be opened or used; the message says what to do.
public struct OutputError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
