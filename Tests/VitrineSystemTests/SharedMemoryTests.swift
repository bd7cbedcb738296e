import Glibc
import Testing
import VitrineSystem

@Suite struct SharedMemoryTests {
    @Test func aWriterGrowsInPlaceAndTheReaderSeesWhatItWrote() throws {
        let memory = try SharedMemory(name: "test", capacity: 3 * 4096)
        #expect(memory.size == 0)
        try memory.grow(to: 100)
        memory.bytes.storeBytes(of: 0xABCD, toByteOffset: 96, as: UInt32.self)
        let before = memory.bytes
        try memory.grow(to: 3 * 4096)
        #expect(memory.bytes == before && memory.bytes.load(fromByteOffset: 96, as: UInt32.self) == 0xABCD)
        #expect(memory.bytes.load(fromByteOffset: 2 * 4096, as: UInt32.self) == 0, "grown bytes are zero")
        let reader = try SharedMemory(sealed: try memory.seal(), size: 3 * 4096)
        #expect(reader.bytes.load(fromByteOffset: 96, as: UInt32.self) == 0xABCD)
    }

    @Test func growingPastTheRoomMadeOrAfterTheSealIsRefused() throws {
        let memory = try SharedMemory(name: "test", capacity: 4096)
        #expect(throws: SystemError.self) { try memory.grow(to: 4097) }
        try memory.grow(to: 4096)
        let sealed = try memory.seal()
        #expect(throws: SystemError.self) { try memory.grow(to: 4096 + 1) }
        var info = stat()
        #expect(fstat(sealed.rawValue, &info) == 0 && info.st_size == 4096)
    }
}

extension SharedMemoryTests {
    /// Which of the first `pages` pages of `memory` are in memory.
    func resident(_ memory: SharedMemory, pages: Int) -> [Bool] {
        var vector = [UInt8](repeating: 0, count: pages)
        _ = mincore(memory.bytes, pages * 4096, &vector)
        return vector.map { $0 & 1 == 1 }
    }

    @Test func populatingMakesTheWholePagesOfARangeWithoutChangingThem() throws {
        let memory = try SharedMemory(name: "test", capacity: 8 * 4096)
        try memory.grow(to: 8 * 4096)
        memory.bytes.storeBytes(of: 7, toByteOffset: 4096 + 8, as: UInt8.self)
        #expect(resident(memory, pages: 8) == [false, true, false, false, false, false, false, false])
        #expect(memory.populate(100..<6 * 4096 + 100))
        #expect(resident(memory, pages: 8) == [false, true, true, true, true, true, false, false], "the whole pages in the range")
        #expect(memory.bytes.load(fromByteOffset: 4096 + 8, as: UInt8.self) == 7 && memory.bytes.load(fromByteOffset: 3 * 4096, as: UInt8.self) == 0)
        _ = try memory.seal()
        #expect(!memory.populate(0..<8 * 4096), "nothing to populate once sealed")
    }
}
