import FoundationEssentials
import Glibc
import VitrineSystem

/// Start-up work — the command line, the configuration file, font discovery, the first
/// frame — runs once, but the code pages it touched would stay in the daemon's resident
/// set for as long as it runs: several megabytes of a kiosk's memory. Once the daemon
/// serves, this gives them back, as the kernel would under memory pressure: the
/// executable's read-only file pages are paged out (`MADV_PAGEOUT`; the code the daemon
/// goes on running faults back in, from the page cache or the disk). The executable's
/// writable and relocated pages are left alone.
enum StartupMemory {
    /// Linux's MADV_PAGEOUT (5.4 and later); older kernels refuse it and nothing changes.
    private static let pageOut: Int32 = 21

    /// Pages out the executable's read-only file mappings; returns the resident set in kB
    /// before and after, from /proc/self/statm.
    @discardableResult
    static func release() -> (before: Int, after: Int) {
        let before = residentKilobytes()
        for (start, length) in readOnlyExecutableMappings() {
            _ = madvise(UnsafeMutableRawPointer(bitPattern: start), length, pageOut)
        }
        return (before, residentKilobytes())
    }

    /// The executable's mappings that are file pages and never written: its code and the
    /// read-only data before it. Mappings after the code are left alone: the read-only one
    /// there is relocated data made read-only (RELRO), not file pages.
    static func readOnlyExecutableMappings() -> [(start: UInt, length: Int)] {
        guard let executable = Subprocess.ownExecutable(), let maps = readText("/proc/self/maps") else { return [] }
        var result: [(UInt, Int)] = []
        var pastCode = false
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5...].joined(separator: " ") == executable else { continue }
            if fields[1] == "r-xp" {
                pastCode = true
            } else if pastCode || fields[1] != "r--p" {
                if pastCode { break }
                continue
            }
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0] else { continue }
            result.append((bounds[0], Int(bounds[1] - bounds[0])))
        }
        return result
    }

    /// The resident set in kB.
    static func residentKilobytes() -> Int {
        guard let statm = readText("/proc/self/statm") else { return 0 }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
    }

    /// A /proc file's text (the kernel writes it as it is read; SafeFile reads it to its end).
    private static func readText(_ path: String) -> String? {
        guard let bytes = try? SafeFile.read(path, limit: 4 << 20).bytes else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}
