import CSandbox
import Glibc
import Testing
import VitrineDecoderHelper
import VitrineRaster
import VitrineSystem
import VitrineVideo

/// What a video helper that has been taken over could report, checked where the daemon
/// reads it (`VideoReports`): slots that are not memfds sealed against resizing, frames
/// outside them, more frames than the ring holds, garbage; and the slots a well-behaved
/// helper's frames come back to it in.
@Suite struct HostileVideoHelperTests {
    final class Released { var slots: [Int] = [] }
    let released = Released()
    let reports: VideoReports

    init() {
        let released = released
        reports = VideoReports { released.slots.append($0) }
    }

    /// A memfd of `size` bytes, its size sealed, filled with `pixel`; the writer's view.
    func slot(_ size: Int, pixel: UInt32 = 0xFF11_2233) throws -> (memory: SharedMemory, shared: OwnedDescriptor) {
        let memory = try SharedMemory(name: "test", size: size)
        memory.bytes.initializeMemory(as: UInt32.self, repeating: pixel, count: size / 4)
        return (memory, try memory.shareSealingSize())
    }

    func take(_ text: String, _ descriptors: [OwnedDescriptor] = [], generation: Int = 0, queued: Int = 0) -> VideoReports.Outcome {
        reports.take((Array(text.utf8), descriptors), generation: generation, queued: queued)
    }

    func violation(_ outcome: VideoReports.Outcome) -> String? {
        if case .violation(let what) = outcome { what } else { nil }
    }

    let frame = #"{"frame": 1, "offset": 0, "width": 4, "height": 4, "stride": 4, "time": 0.5, "generation": 0}"#

    @Test func aFrameIsDrawnFromItsSlotWhichGoesBackWhenTheFrameGoes() throws {
        let (writer, shared) = try slot(64)
        guard case .none = take(#"{"slot": 1, "bytes": 64}"#, [shared]) else {
            Issue.record("the slot was refused")
            return
        }
        do {
            guard case .frame(let decoded) = take(frame) else {
                Issue.record("the frame was refused")
                return
            }
            #expect(decoded.time == 0.5 && decoded.surface.width == 4 && decoded.surface.pixels[5] == 0xFF11_2233)
            // The daemon reads what the helper wrote into the slot.
            writer.bytes.storeBytes(of: 0xFF44_5566, as: UInt32.self)
            #expect(decoded.surface.pixels[0] == 0xFF44_5566)
            #expect(released.slots.isEmpty)
        }
        // The frame gone, its slot goes back to the helper.
        #expect(released.slots == [1])
    }

    @Test func aFrameOfAnEarlierSeekGivesItsSlotBackAtOnce() throws {
        _ = take(#"{"slot": 1, "bytes": 64}"#, [try slot(64).shared])
        guard case .stale(let slot) = take(frame, generation: 3) else {
            Issue.record("an earlier seek's frame was taken")
            return
        }
        #expect(slot == 1)
    }

    @Test func memoryThatCouldChangeSizeOrIsNoMemfdIsRefused() throws {
        // Not sealed: the helper could shrink it under the daemon's reads.
        let unsealed = OwnedDescriptor(vitrine_memfd_create("test"))
        try #require(ftruncate(unsealed.rawValue, 64) == 0)
        #expect(violation(take(#"{"slot": 0, "bytes": 64}"#, [unsealed]))?.contains("not sealed against resizing") == true)
        // A pipe, not memory.
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let pipe = OwnedDescriptor(ends[0]), other = OwnedDescriptor(ends[1])
        #expect(violation(take(#"{"slot": 0, "bytes": 64}"#, [pipe])) != nil)
        withExtendedLifetime(other) {}
        // Shorter than it says.
        #expect(violation(take(#"{"slot": 0, "bytes": 4096}"#, [try slot(64).shared]))?.contains("holds 64 bytes") == true)
        // No descriptor, or two.
        #expect(violation(take(#"{"slot": 0, "bytes": 64}"#)) != nil)
        #expect(violation(take(#"{"slot": 0, "bytes": 64}"#, [try slot(64).shared, try slot(64).shared])) != nil)
    }

    @Test(arguments: [
        // no such slot yet
        #"{"frame": 2, "offset": 0, "width": 4, "height": 4, "stride": 4, "generation": 0}"#,
        // past the slot's end
        #"{"frame": 1, "offset": 4, "width": 4, "height": 4, "stride": 4, "generation": 0}"#,
        #"{"frame": 1, "offset": 0, "width": 4, "height": 5, "stride": 4, "generation": 0}"#,
        #"{"frame": 1, "offset": 0, "width": 2, "height": 4, "stride": 5, "generation": 0}"#,
        // sizes out of range, misaligned, negative, not numbers
        #"{"frame": 1, "offset": 0, "width": 4, "height": 4, "stride": 3, "generation": 0}"#,
        #"{"frame": 1, "offset": 2, "width": 1, "height": 1, "stride": 1, "generation": 0}"#,
        #"{"frame": 1, "offset": -4, "width": 1, "height": 1, "stride": 1, "generation": 0}"#,
        #"{"frame": 1, "offset": 0, "width": 0, "height": 4, "stride": 4, "generation": 0}"#,
        #"{"frame": 1, "offset": 0, "width": 4, "height": 99999, "stride": 4, "generation": 0}"#,
        #"{"frame": 1, "offset": 0, "width": 4.5, "height": 4, "stride": 4, "generation": 0}"#,
        #"{"frame": 9, "offset": 0, "width": 4, "height": 4, "stride": 4, "generation": 0}"#,
        #"{"frame": 1, "offset": 0, "width": 4, "height": 4, "stride": 4, "time": "soon", "generation": 0}"#,
        // slots too large or not slots
        #"{"slot": 1, "bytes": 1e12}"#, #"{"slot": -1, "bytes": 64}"#,
        // garbage
        "", "{", "[]", #"{"what": 1}"#, #"{"duration": -1}"#, #"{"error": 3}"#,
    ])
    func aReportThatIsNotWhatItSaysIsAViolation(report: String) throws {
        _ = take(#"{"slot": 1, "bytes": 64}"#, [try slot(64).shared])
        #expect(violation(take(report)) != nil, "\(report)")
    }

    @Test func descriptorsWithAnythingButASlotAndMoreFramesThanSlotsAreViolations() throws {
        _ = take(#"{"slot": 1, "bytes": 64}"#, [try slot(64).shared])
        #expect(violation(take(frame, [try slot(64).shared])) == "sent descriptors it was not asked for")
        #expect(violation(take(#"{"duration": 2}"#, [try slot(64).shared])) == "sent descriptors it was not asked for")
        #expect(violation(take(frame, queued: VideoPlayer.queued + 2)) == "sent more frames than it has slots")
    }
}
