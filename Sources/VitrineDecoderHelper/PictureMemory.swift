import Glibc
import Synchronization
import VitrineImage
import VitrineRaster
import VitrineSystem

/// The shared memory the helper decodes one picture into: the decoders take their frames
/// from `frames`, one after another in one memfd, and `seal` hands the memfd over as it is,
/// copying no pixel.
///
/// ```swift
/// let memory = try PictureMemory(budget: request.budget)
/// let picture = try ImageDecoder.decode(bytes, fitting: target, byteLimit: budget, frames: memory.frames)
/// let (layout, fd) = try memory.seal(picture)      // send `layout` and `fd` to the daemon
/// ```
///
/// The frames together may take `budget` bytes, as the daemon counts them (rows with their
/// padding): a decoder asking for more is refused before its pixels exist. Frames live in
/// the memfd, not in the helper's data limit, which bounds the libraries' own memory.
final class PictureMemory: Sendable {
    private let memory: SharedMemory
    /// Threads faulting large frames' pages in while the decoder fills them.
    private let populating = Mutex<[pthread_t]>([])

    /// Room for frames of `budget` bytes in all.
    /// - Throws: `SystemError` when the memfd cannot be made or the room reserved.
    init(budget: Int) throws(SystemError) {
        memory = try SharedMemory(name: "vitrine-picture", capacity: budget)
    }

    deinit { finishPopulating() }

    /// Frames placed end to end in the memfd (each a whole number of 32-byte rows, so each
    /// starts 32-byte aligned); `tooLarge` past the budget.
    ///
    /// A frame of a megabyte or more has its pages faulted in on another thread as it is
    /// handed out: a decoder fills it from the top, slower than the kernel makes pages, so
    /// it rarely waits for one (a page of a memfd costs several microseconds to fault in,
    /// 20 ms for a 3000×2000 frame, taken off the decoder's thread).
    var frames: FrameAllocator {
        FrameAllocator { [self, memory] width, height throws(ImageError) in
            let stride = (width + 7) & ~7
            let offset = memory.size, bytes = max(1, stride * height) * 4
            do { try memory.grow(to: offset + bytes) } catch {
                throw ImageError(
                    .tooLarge, "a \(width)×\(height) frame does not fit the \(memory.capacity >> 20) MB of images allowed (\(offset >> 20) MB taken)",
                    bytes: offset + bytes)
            }
            if bytes >= 1 << 20 { populate(offset..<offset + bytes) }
            return Surface(
                wrapping: (memory.bytes + offset).bindMemory(to: UInt32.self, capacity: bytes / 4), width: width, height: height, stride: stride,
                release: { withExtendedLifetime(memory) {} })
        }
    }

    /// Seals the memfd for the daemon; returns where `picture`'s frames lie in it and its
    /// descriptor. Frames that do not lie in it (a decoder that allocated its own) are
    /// copied in first. The picture's pixels cannot be read here afterwards.
    /// - Throws: `SystemError` when a copied frame does not fit or the memfd cannot be sealed.
    func seal(_ picture: Picture) throws(SystemError) -> (PictureLayout, OwnedDescriptor) {
        finishPopulating()
        var offsets: [Int] = []
        for frame in picture.frames {
            let bytes = frame.height * frame.stride * 4
            let start = memory.bytes.distance(to: UnsafeMutableRawPointer(frame.pixels))
            if start >= 0, start <= memory.size - bytes {
                offsets.append(start)
                continue
            }
            let offset = (memory.size + 63) & ~63
            try memory.grow(to: offset + bytes)
            (memory.bytes + offset).copyMemory(from: frame.pixels, byteCount: bytes)
            offsets.append(offset)
        }
        try memory.grow(to: 1)
        return (PictureLayout(of: picture, offsets: offsets, size: memory.size), try memory.seal())
    }

    /// Faults `range` of the memfd in on a thread of its own; nothing when no thread starts
    /// (the decoder's writes fault the pages in).
    private func populate(_ range: Range<Int>) {
        let job = Unmanaged.passRetained(Populating(memory: memory, range: range)).toOpaque()
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { context in
                let job = Unmanaged<Populating>.fromOpaque(context!).takeRetainedValue()
                job.memory.populate(job.range)
                return nil
            }, job)
        if started == 0 {
            populating.withLock { $0.append(thread) }
        } else {
            Unmanaged<Populating>.fromOpaque(job).release()
        }
    }

    /// Waits for the threads faulting pages in: the writer's view goes at `seal`.
    private func finishPopulating() {
        let threads = populating.withLock { threads in
            defer { threads.removeAll() }
            return threads
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}

/// What a populating thread faults in.
private final class Populating: Sendable {
    let memory: SharedMemory
    let range: Range<Int>

    init(memory: SharedMemory, range: Range<Int>) { (self.memory, self.range) = (memory, range) }
}
