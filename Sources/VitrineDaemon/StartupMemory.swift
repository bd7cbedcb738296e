import FoundationEssentials
import Glibc
import VitrineSystem

/// Start-up work — the command line, the configuration file, font discovery, the first
/// frame — runs once, but the executable's pages it touched would stay in the daemon's
/// resident set for as long as it runs: several megabytes of a kiosk's memory. Once the
/// daemon serves, this gives back the executable's file pages that were only ever read,
/// as the kernel would under memory pressure (`MADV_PAGEOUT`), and what the daemon goes on
/// running faults back in. That is:
/// - its read-only mappings (code, and the read-only data before it), whole;
/// - the pages of its `.rodata` section that the kernel still maps from the file. Swift's
///   objects flag that section writable, so it lies in a writable mapping beside `.data`;
///   only its pages, and of those only the ones never copied on write (/proc/self/pagemap),
///   are unmapped, so no byte anything wrote is dropped.
///
/// The kernel pages out file pages only for the file's owner (or with CAP_FOWNER); under
/// the service, whose user does not own /usr/bin/vitrined, it skips them. The same pages
/// are then unmapped (`MADV_DONTNEED`): they stay in the page cache, and map back in with a
/// minor fault. Paging out is asked first where it is allowed: code faulted back in from
/// the disk maps only the pages read, not whole cached folios, so less stays resident.
enum StartupMemory {
    /// A mapping of the executable in /proc/self/maps.
    struct Mapping {
        let start: UInt
        let end: UInt
        let writable: Bool
        let executable: Bool
        /// Offset in the file of `start`.
        let offset: UInt
    }

    /// Linux's MADV_PAGEOUT (5.4 and later); older kernels refuse it and nothing changes.
    private static let pageOut: Int32 = 21

    /// Gives back the executable's pages described above; returns the resident set in kB
    /// before and after, from /proc/self/statm.
    @discardableResult
    static func release() -> (before: Int, after: Int) {
        let before = residentKilobytes()
        let mappings = executableMappings()
        for mapping in readOnly(mappings) {
            let start = UnsafeMutableRawPointer(bitPattern: mapping.start), length = Int(mapping.end - mapping.start)
            _ = madvise(start, length, pageOut)
            _ = madvise(start, length, MADV_DONTNEED)
        }
        if let rodata = readOnlyDataAddresses(mappings) {
            for mapping in mappings where mapping.writable {
                let start = max(mapping.start, rodata.lowerBound), end = min(mapping.end, rodata.upperBound)
                guard start < end else { continue }
                _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), pageOut)
                unmapFilePages(start..<end)
            }
        }
        return (before, residentKilobytes())
    }

    /// The executable's mappings that are file pages and never written: its code and the
    /// read-only data before it. Mappings after the code are left out: the read-only one
    /// there is relocated data made read-only (RELRO), not file pages.
    static func readOnly(_ mappings: [Mapping]) -> [Mapping] {
        var result: [Mapping] = []
        for mapping in mappings {
            if mapping.executable {
                result.append(mapping)
                break
            }
            if !mapping.writable { result.append(mapping) }
        }
        return result
    }

    /// The executable's mappings, in address order.
    static func executableMappings() -> [Mapping] {
        guard let executable = Subprocess.ownExecutable(), let maps = readText("/proc/self/maps") else { return [] }
        var result: [Mapping] = []
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[5...].joined(separator: " ") == executable else { continue }
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0], let offset = UInt(fields[2], radix: 16) else { continue }
            let permissions = Array(fields[1].utf8)
            result.append(
                Mapping(
                    start: bounds[0], end: bounds[1], writable: permissions.count > 1 && permissions[1] == UInt8(ascii: "w"),
                    executable: permissions.count > 2 && permissions[2] == UInt8(ascii: "x"), offset: offset))
        }
        return result
    }

    /// Where `.rodata` lies in memory, whole pages only: its section header in the
    /// executable, moved by the load address of a position-independent one (where file
    /// offset 0 is mapped: its first segment is at address 0).
    static func readOnlyDataAddresses(_ mappings: [Mapping]) -> Range<UInt>? {
        guard let first = mappings.first(where: { $0.offset == 0 }), let section = ExecutableSections.find(".rodata") else { return nil }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let address = section.address + (section.relocatable ? first.start : 0)
        let start = (address + page - 1) / page * page
        let end = (address + section.size) / page * page
        return start < end ? start..<end : nil
    }

    /// Unmaps the pages of `range` that are mapped from the file (present, not anonymous:
    /// never copied on write), in runs.
    static func unmapFilePages(_ range: Range<UInt>) {
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let count = Int((range.upperBound - range.lowerBound) / page)
        let fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
        guard fd >= 0, count > 0 else { return }
        defer { close(fd) }
        var entries = [UInt64](repeating: 0, count: count)
        let wanted = count * 8
        let got = entries.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(range.lowerBound / page * 8)) }
        guard got == wanted else { return }
        // Bit 63: present; bit 61: a file page (or shared anonymous), not a private copy.
        let filePage: UInt64 = 1 << 63 | 1 << 61
        var index = 0
        while index < count {
            guard entries[index] & filePage == filePage else {
                index += 1
                continue
            }
            var end = index + 1
            while end < count, entries[end] & filePage == filePage { end += 1 }
            _ = madvise(UnsafeMutableRawPointer(bitPattern: range.lowerBound + UInt(index) * page), (end - index) * Int(page), MADV_DONTNEED)
            index = end
        }
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

/// The running executable's ELF section headers (64-bit, little-endian), read from
/// /proc/self/exe.
enum ExecutableSections {
    /// A section's address and size; `relocatable` when the executable is position
    /// independent and the address is relative to where it was loaded.
    struct Section {
        let address: UInt
        let size: UInt
        let relocatable: Bool
    }

    /// The section called `name`, or nil when the file is not such an ELF or has none.
    static func find(_ name: String) -> Section? {
        let fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        func read(_ count: Int, at offset: UInt64) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
            return got == count ? bytes : nil
        }
        guard let header = read(64, at: 0), header[0..<4] == [0x7f, 0x45, 0x4c, 0x46], header[4] == 2, header[5] == 1 else { return nil }
        let tableOffset = word(header, 0x28, 8), entrySize = Int(word(header, 0x3a, 2))
        let count = Int(word(header, 0x3c, 2)), namesIndex = Int(word(header, 0x3e, 2))
        guard entrySize >= 64, count > 0, count < 65_536, namesIndex < count, let table = read(entrySize * count, at: tableOffset) else { return nil }
        let namesHeader = namesIndex * entrySize
        guard let names = read(Int(min(word(table, namesHeader + 0x20, 8), 1 << 20)), at: word(table, namesHeader + 0x18, 8)) else { return nil }
        let wanted = Array(name.utf8)
        for index in 0..<count {
            let base = index * entrySize, nameOffset = Int(word(table, base, 4))
            guard nameOffset + wanted.count < names.count, names[nameOffset..<nameOffset + wanted.count].elementsEqual(wanted),
                names[nameOffset + wanted.count] == 0
            else { continue }
            return Section(
                address: UInt(word(table, base + 0x10, 8)), size: UInt(word(table, base + 0x20, 8)), relocatable: word(header, 0x10, 2) == 3)
        }
        return nil
    }

    /// The little-endian integer of `size` bytes at `offset`.
    private static func word(_ bytes: [UInt8], _ offset: Int, _ size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in (0..<size).reversed() { value = value << 8 | UInt64(bytes[offset + index]) }
        return value
    }
}
