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
