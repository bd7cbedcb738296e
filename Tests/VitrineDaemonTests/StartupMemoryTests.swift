import Testing
@testable import VitrineDaemon

/// vitrined gives back the code pages start-up touched once it serves (every daemon the
/// integration tests start does so before they talk to it).
@Suite struct StartupMemoryTests {
    @Test func theExecutablesCodeIsPagedOut() {
        let mappings = StartupMemory.readOnlyExecutableMappings()
        #expect(!mappings.isEmpty, "no read-only mapping of /proc/self/exe found in /proc/self/maps")
        let (before, after) = StartupMemory.release()
        #expect(after < before, "resident \(before) kB before, \(after) kB after")
    }
}
