import VitrineRaster

/// What a window backend draws into: one surface in system memory that the window's own
/// buffers (a MIT-SHM segment, `wl_shm` buffers) are copied from. Its age is 1 once a frame
/// was drawn in it, 0 at start and after a resize.
struct WindowFrame {
    private(set) var surface: Surface
    /// A frame was drawn since the last resize: the surface holds it.
    private(set) var drawn = false
    private var acquired = false

    /// A frame of `width`×`height`.
    /// - Throws: `OutputError` for a side outside 1…16384.
    init(width: Int, height: Int) throws(OutputError) {
        guard Self.sides.contains(width), Self.sides.contains(height) else {
            throw OutputError("window size \(width)x\(height) is out of range: use 1…16384 pixels on each side")
        }
        surface = Surface(width: width, height: height)
    }

    /// The sides a window may have.
    static let sides = 1...16384

    /// `OutputBackend.acquireBuffer` of a window named `name`, unless it is closed.
    mutating func acquire(closed: Bool, name: String) throws(OutputError) -> OutputBuffer {
        guard !closed else { throw OutputError("\(name): the window is closed") }
        acquired = true
        return OutputBuffer(surface: surface, age: drawn ? 1 : 0)
    }

    /// The start of `OutputBackend.present`: the acquired surface now holds a frame.
    mutating func present() throws(OutputError) {
        guard acquired else { throw OutputError("present without an acquired buffer") }
        acquired = false
        drawn = true
    }

    /// The window has a new size: a fresh surface, drawn whole next.
    mutating func resize(width: Int, height: Int) {
        surface = Surface(width: min(width, Self.sides.upperBound), height: min(height, Self.sides.upperBound))
        drawn = false
    }
}
