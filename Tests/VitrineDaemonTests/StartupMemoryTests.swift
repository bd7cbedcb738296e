import CSandbox
import Glibc
import Testing

@testable import VitrineDaemon

/// vitrined gives back the executable's pages start-up touched once it serves (every
/// daemon the integration tests start does so before they talk to it).
@Suite struct StartupMemoryTests {
    @Test func theExecutablesCodeIsUnmapped() {
        let mappings = StartupMemory.executableMappings()
        #expect(!StartupMemory.readOnly(mappings).isEmpty, "no read-only mapping of /proc/self/exe found in /proc/self/maps")
        let (before, after) = StartupMemory.release()
        #expect(after < before, "resident \(before) kB before, \(after) kB after")
    }

    /// As under the service: a user who does not own the executable and has no
    /// capability (the kernel pages out file pages only for their owner). The effective
    /// user is changed for this thread alone (the raw system call; glibc's seteuid would
    /// change every thread's).
    @Test func anUnprivilegedDaemonGivesItsPagesBackToo() throws {
        let nobody = 65_534
        let switched = geteuid() == 0
        if switched { try #require(vitrine_thread_set_users(-1, nobody, -1) == 0) }
        defer { if switched { _ = vitrine_thread_set_users(-1, 0, -1) } }
        // Fault the code and the read-only data in again, as a daemon running after start-up would.
        _ = StartupMemory.executableMappings()
        _ = ExecutableSections.find(".rodata")
        let (before, after) = StartupMemory.release()
        #expect(after < before, "resident \(before) kB before, \(after) kB after")
    }

    @Test func theReadOnlyDataSectionIsFoundInTheExecutable() throws {
        let section = try #require(ExecutableSections.find(".rodata"))
        #expect(section.size > 0)
        #expect(ExecutableSections.find(".no-such-section") == nil)
        let range = try #require(StartupMemory.readOnlyDataAddresses(StartupMemory.executableMappings()))
        // A string literal of this test's lies in it (Swift keeps them in .rodata).
        let literal = "a literal kept in .rodata"
        let address = literal.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) }
        if let address, address != 0 { #expect(address >= range.lowerBound - 4096 && address < range.upperBound + 4096) }
    }
}
