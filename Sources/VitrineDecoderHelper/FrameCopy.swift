import VitrineRaster
import VitrineVideo
import VitrineYUV

/// A frame that does not lie in shared memory, copied into the helper's own: its rows one
/// after another, each plane with the stride it has.
struct FrameCopy {
    let picture: VideoPicture
    /// Each plane's rows: their first byte, bytes from one to the next, how many.
    private let planes: [(data: UnsafeRawPointer, stride: Int, rows: Int)]

    init(_ picture: VideoPicture) {
        self.picture = picture
        switch picture {
        case .bgra(let surface): planes = [(UnsafeRawPointer(surface.pixels), surface.stride * 4, surface.height)]
        case .yuv(let frame):
            let rows = (frame.height + 1) / 2
            planes =
                [(UnsafeRawPointer(frame.luma), frame.lumaStride, frame.height), (UnsafeRawPointer(frame.u), frame.uStride, rows)]
                + (frame.layout == .i420 ? [(UnsafeRawPointer(frame.v), frame.vStride, rows)] : [])
        }
    }

    /// Bytes the copy takes.
    var bytes: Int { planes.reduce(0) { $0 + $1.stride * $1.rows } }

    /// Copies the planes to `memory` (at least `bytes` long); their offsets in it.
    func write(into memory: UnsafeMutableRawPointer) -> [Int] {
        var offset = 0
        return withExtendedLifetime(picture) {
            planes.map { plane in
                defer { offset += plane.stride * plane.rows }
                (memory + offset).copyMemory(from: plane.data, byteCount: plane.stride * plane.rows)
                return offset
            }
        }
    }
}
