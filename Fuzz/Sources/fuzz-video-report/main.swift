import Glibc
import VitrineDecoderHelper
import VitrineSystem
import VitrineVideo

/// libFuzzer's entry point: the input is what a video helper that has been taken over
/// could send the daemon, as a run of reports. Each is two bytes of header — the memory
/// that comes with it (0 or more than 3: none, 1: a memfd sealed against resizing, 2: one
/// sealed against writing too, 3: a pipe, which is no memory; the second byte the memfd's
/// size in 64-byte units) — two bytes
/// of length and the report. Each is read as the daemon reads them (`VideoReports`), the
/// frames of generation 0 wanted; every pixel of a frame it accepts is read, as drawing it
/// would, and frames are let go in turn, as the player does.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVideoReport(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var released = 0
    let reports = VideoReports { _ in released += 1 }
    var queue: [DecodedFrame] = []
    var at = 0
    while at + 4 <= bytes.count {
        let kind = bytes[at], units = Int(bytes[at + 1]), length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        at += 4
        let end = min(bytes.count, at + length)
        let message = Array(bytes[at..<end])
        at = end
        var descriptors: [OwnedDescriptor] = []
        if kind == 1 || kind == 2, let memory = try? SharedMemory(name: "fuzz", size: max(1, units) * 64),
            let descriptor = kind == 1 ? try? memory.shareSealingSize() : try? memory.seal()
        {
            descriptors.append(descriptor)
        } else if kind == 3 {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) == 0 {
                descriptors.append(OwnedDescriptor(ends[0]))
                close(ends[1])
            }
        }
        switch reports.take((message, descriptors), generation: 0, queued: queue.count) {
        case .frame(let frame):
            var sum: UInt32 = 0
            let surface = frame.surface
            for y in 0..<surface.height {
                for x in 0..<surface.width { sum &+= surface.pixels[y * surface.stride + x] }
            }
            queue.append(frame)
            if sum & 1 == 0 || queue.count > 2 { queue.removeFirst() }
        case .violation: return 0
        default: break
        }
    }
    return 0
}
