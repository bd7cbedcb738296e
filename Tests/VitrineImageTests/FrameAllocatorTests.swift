import Synchronization
import Testing
import VitrineCodecs
import VitrineImage
import VitrineRaster
import VitrineTestSupport

/// An allocator that remembers the frames it handed out.
final class RecordingFrames: Sendable {
    private let handed = Mutex<[UnsafeMutablePointer<UInt32>]>([])

    var allocator: FrameAllocator {
        FrameAllocator { [self] width, height in
            let surface = Surface(width: width, height: height)
            handed.withLock { $0.append(surface.pixels) }
            return surface
        }
    }

    /// Whether `surface` is one of the frames handed out.
    func handedOut(_ surface: Surface) -> Bool { handed.withLock { $0.contains(surface.pixels) } }
}

@Suite struct FrameAllocatorTests {
    @Test func everyFormatDecodesItsFramesIntoTheFramesItIsGiven() throws {
        for (name, bytes) in try ImageFixtures.everyFormat() {
            let recording = RecordingFrames()
            let picture = try ImageDecoder.decode(bytes, fitting: nil, byteLimit: 1 << 20, frames: recording.allocator)
            let onTheHeap = try ImageDecoder.decode(bytes, fitting: nil, byteLimit: 1 << 20)
            #expect(picture.frames.allSatisfy(recording.handedOut), "\(name): a frame came from elsewhere")
            #expect(picture.frames.count == onTheHeap.frames.count, "\(name)")
            for (a, b) in zip(picture.frames, onTheHeap.frames) { #expect(a.hasSamePixels(as: b), "\(name)") }
        }
    }

    @Test func framesWithoutRoomFailTheDecodeWithTheAllocatorsError() throws {
        let full = FrameAllocator { width, height throws(ImageError) in throw ImageError(.tooLarge, "no room for \(width)×\(height)") }
        for (name, bytes) in try ImageFixtures.everyFormat() {
            do {
                _ = try ImageDecoder.decode(bytes, fitting: nil, byteLimit: 1 << 20, frames: full)
                Issue.record("\(name) decoded without room for its frames")
            } catch {
                #expect(error.kind == .tooLarge && error.message.hasPrefix("no room for "), "\(name): \(error)")
            }
        }
    }
}
