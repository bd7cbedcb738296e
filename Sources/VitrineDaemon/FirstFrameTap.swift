import VitrineOutputSet
import VitrineRaster
import VitrineSystem

/// Takes the next frame an output presents, once: its pixels are copied on the loop and
/// hashed (64-bit FNV-1a over the rows' ARGB words) by a worker, for proof of play.
final class FirstFrameTap: FrameTap {
    private weak var pipeline: FramePipeline?
    private let workers: WorkerPool?
    private let done: (String) -> Void

    /// Adds itself to `pipeline`; `done` gets the frame's digest as 16 hex digits, on the loop.
    init(_ pipeline: FramePipeline, workers: WorkerPool?, done: @escaping (String) -> Void) {
        self.pipeline = pipeline
        self.workers = workers
        self.done = done
        pipeline.add(self)
    }

    func frame(_ surface: Surface, damage: [PixelRect]) {
        pipeline?.remove(self)
        let width = surface.width
        let pixels = [UInt32](unsafeUninitializedCapacity: width * surface.height) { buffer, count in
            for y in 0..<surface.height { (buffer.baseAddress! + y * width).initialize(from: surface.pixels + y * surface.stride, count: width) }
            count = width * surface.height
        }
        let queued = workers.offload({ Self.digest(pixels) }, then: done)
        if !queued { done("") }
    }

    /// 64-bit FNV-1a over the words' bytes, little end first, as 16 hex digits.
    static func digest(_ pixels: [UInt32]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for word in pixels {
            var w = word
            for _ in 0..<4 {
                hash = (hash ^ UInt64(w & 0xff)) &* 0x0000_0100_0000_01b3
                w >>= 8
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
