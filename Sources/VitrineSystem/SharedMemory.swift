import CSandbox
import Glibc

/// Memory one process fills and another maps: a memfd that its writer seals before handing
/// it over, so that the reader can trust its size and contents not to change under it.
///
/// ```swift
/// // the writer (a decoder helper)
/// let memory = try SharedMemory(name: "picture", size: bytes)
/// fill(memory.bytes)
/// let fd = try memory.seal()          // unmapped here, sealed; send `fd` over a socket
/// // the reader (the daemon)
/// let mapped = try SharedMemory(sealed: received, size: expected)
/// ```
///
/// The reader refuses a descriptor that is not a sealed memfd at least `size` bytes long:
/// a writer that kept the right to shrink or write it could fault or change the reader's
/// pixels while it draws them.
///
/// A writer that does not know its size yet reserves room for it (`init(name:capacity:)`)
/// and grows the memfd in place (`grow(to:)`): what it wrote stays where it is.
public final class SharedMemory: @unchecked Sendable {  // the mapping is written by its writer only, before `seal`
    /// The mapped bytes; valid while this object lives (and, for a writer, until `seal`).
    public let bytes: UnsafeMutableRawPointer
    /// Their number.
    public private(set) var size: Int
    /// The most a writer's memfd may grow to: the address space reserved for it.
    public let capacity: Int
    private let name: String
    private var descriptor: OwnedDescriptor?
    private var mapped: Bool

    /// A new memfd of `size` bytes (at least 1), mapped for writing.
    /// - Throws: `SystemError` when the memfd cannot be made or mapped.
    public convenience init(name: String, size: Int) throws(SystemError) {
        try self.init(name: name, size: max(1, size), capacity: max(1, size))
    }

    /// A new, empty memfd mapped for writing, with room to grow to `capacity` bytes (at
    /// least 1) in place.
    /// - Throws: `SystemError` when the memfd cannot be made or the room reserved.
    public convenience init(name: String, capacity: Int) throws(SystemError) {
        try self.init(name: name, size: 0, capacity: max(1, capacity))
    }

    private init(name: String, size: Int, capacity: Int) throws(SystemError) {
        let fd = OwnedDescriptor(vitrine_memfd_create(name))
        guard fd.isOpen else { throw .errno("make a shared memory file", name) }
        guard ftruncate(fd.rawValue, off_t(size)) == 0 else { throw .errno("size the shared memory file", name) }
        // (past the file's end the mapping is only address space, until `grow` reaches it)
        guard let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd.rawValue, 0), address != MAP_FAILED else {
            throw .errno("map the shared memory file", name)
        }
        bytes = address
        self.size = size
        self.capacity = capacity
        self.name = name
        descriptor = fd
        mapped = true
    }

    /// Grows a writer's memfd to `size` bytes (within `capacity`): new bytes are zero.
    /// - Throws: `SystemError` past the capacity, after `seal`, or when the system has no
    ///   room for it.
    public func grow(to size: Int) throws(SystemError) {
        guard size > self.size else { return }
        guard let descriptor, size <= capacity else {
            let why = descriptor == nil ? "it is sealed" : "room was made for \(capacity)"
            throw SystemError("\(name): cannot grow to \(size) bytes: \(why)", code: .invalidArgument)
        }
        guard ftruncate(descriptor.rawValue, off_t(size)) == 0 else { throw .errno("grow the shared memory file", name) }
        self.size = size
    }

    /// Faults in the whole pages of a writer's bytes `range` for writing, in one call rather
    /// than a fault a page; false when the kernel cannot (before Linux 5.14) or the range
    /// is not mapped (any more), and the pages fault in as they are written.
    @discardableResult
    public func populate(_ range: Range<Int>) -> Bool {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: bytes) + range.lowerBound + page - 1) / page * page
        let end = (Int(bitPattern: bytes) + min(range.upperBound, capacity)) / page * page
        guard end > start else { return true }
        return madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_POPULATE_WRITE) == 0
    }

    /// Maps the sealed memfd `sealed` of at least `size` bytes for reading (copy on write:
    /// writes stay in this process).
    /// - Throws: `SystemError` when it is no memfd sealed against shrinking, growing and
    ///   writing, is shorter than `size`, or cannot be mapped.
    public init(sealed: OwnedDescriptor, size: Int) throws(SystemError) {
        bytes = try Self.map(sealed, size: size, seals: vitrine_reader_seals(), against: "changes", protection: PROT_READ | PROT_WRITE, flags: MAP_PRIVATE)
        (self.size, capacity, name) = (size, size, "the shared memory handed over")
        descriptor = nil
        mapped = true
    }

    /// Maps the memfd `shared`, whose size is sealed and which its writer goes on filling
    /// (a ring of video frames), for reading: `size` bytes of it, shared with the writer.
    /// - Throws: `SystemError` when it is no memfd sealed against shrinking and growing, is
    ///   shorter than `size`, or cannot be mapped.
    public init(sizeSealed shared: OwnedDescriptor, size: Int) throws(SystemError) {
        bytes = try Self.map(shared, size: size, seals: vitrine_size_seals(), against: "resizing", protection: PROT_READ, flags: MAP_SHARED)
        (self.size, capacity, name) = (size, size, "the shared memory handed over")
        descriptor = nil
        mapped = true
    }

    /// `size` bytes of the memfd `fd` mapped, once it has `seals` and is long enough.
    private static func map(
        _ fd: OwnedDescriptor, size: Int, seals needed: CInt, against what: String, protection: CInt, flags: CInt
    ) throws(SystemError) -> UnsafeMutableRawPointer {
        let seals = vitrine_seals(fd.rawValue)
        guard seals >= 0, seals & needed == needed else {
            throw SystemError("the shared memory handed over is not sealed against \(what) (seals \(seals)); it is not read", code: .permissionDenied)
        }
        var info = stat()
        guard fstat(fd.rawValue, &info) == 0 else { throw .errno("inspect it", "the shared memory handed over") }
        guard size > 0, Int(info.st_size) >= size else {
            throw SystemError("the shared memory handed over holds \(info.st_size) bytes, not the \(size) it should", code: .invalidArgument)
        }
        guard let address = mmap(nil, size, protection, flags, fd.rawValue, 0), address != MAP_FAILED else {
            throw .errno("map it", "the shared memory handed over")
        }
        return address
    }

    /// Seals the memfd's size, keeping it mapped for writing; returns a descriptor of it for
    /// handing over (to `init(sizeSealed:size:)`), which the caller closes once sent.
    /// - Throws: `SystemError` when it cannot be sealed or the descriptor duplicated.
    public func shareSealingSize() throws(SystemError) -> OwnedDescriptor {
        guard let descriptor else { throw SystemError("only the writer of shared memory shares it", code: .invalidArgument) }
        let seals = vitrine_seals(descriptor.rawValue)
        if seals & vitrine_size_seals() != vitrine_size_seals() {
            guard vitrine_seal_size(descriptor.rawValue) == 0 else { throw .errno("seal its size", "the shared memory file") }
        }
        let copy = OwnedDescriptor(fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0))
        guard copy.isOpen else { throw .errno("duplicate its descriptor", "the shared memory file") }
        return copy
    }

    /// Takes away the writer's view and seals the memfd; returns it, for handing over.
    /// The view's addresses stay reserved, unreadable, until this object goes: a pointer
    /// into it that outlived the seal faults instead of reading what is mapped there next.
    /// - Throws: `SystemError` when it cannot be sealed.
    public func seal() throws(SystemError) -> OwnedDescriptor {
        guard let descriptor else { throw SystemError("only the writer of shared memory seals it", code: .invalidArgument) }
        if mapped, mmap(bytes, capacity, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) == MAP_FAILED {
            munmap(bytes, capacity)
            mapped = false
        }
        guard vitrine_seal(descriptor.rawValue) == 0 else { throw .errno("seal it", "the shared memory file") }
        self.descriptor = nil
        return descriptor
    }

    deinit {
        if mapped { munmap(bytes, capacity) }
    }
}

/// Messages with descriptors over a Unix socket (SCM_RIGHTS): one `send` is one message
/// on a SOCK_SEQPACKET socket, received whole by one `receive`.
public enum DescriptorMessages {
    /// The most descriptors one message carries.
    public static let maximumDescriptors = 8

    /// Sends `bytes` and `descriptors` as one message.
    /// - Throws: `SystemError` (`.wouldBlock` when the socket's buffer is full).
    public static func send(_ bytes: [UInt8], descriptors: [CInt] = [], on socket: CInt) throws(SystemError) {
        let sent = bytes.withUnsafeBytes { raw in
            descriptors.withUnsafeBufferPointer { fds in
                vitrine_send_with_descriptors(socket, raw.baseAddress, raw.count, fds.baseAddress, CInt(fds.count))
            }
        }
        guard sent == bytes.count else { throw .errno("send a message", "the socket") }
    }

    /// One message of at most `limit` bytes: its bytes and descriptors (owned by the
    /// caller), or nil at the end of the connection.
    /// - Throws: `SystemError` (`.wouldBlock` when none is waiting; `.messageTooLong` for a
    ///   message cut off, whose descriptors are closed).
    public static func receive(on socket: CInt, limit: Int) throws(SystemError) -> (bytes: [UInt8], descriptors: [OwnedDescriptor])? {
        var bytes = [UInt8](repeating: 0, count: limit)
        var fds = [CInt](repeating: -1, count: maximumDescriptors)
        var count: CInt = 0, truncated: CInt = 0
        let received = bytes.withUnsafeMutableBytes { raw in
            fds.withUnsafeMutableBufferPointer { fds in
                retryingOnInterrupt { vitrine_receive_with_descriptors(socket, raw.baseAddress, raw.count, fds.baseAddress, &count, &truncated) }
            }
        }
        guard received >= 0 else { throw .errno("receive a message", "the socket") }
        let descriptors = fds.prefix(Int(count)).map(OwnedDescriptor.init)
        guard truncated == 0 else { throw SystemError("a message over \(limit) bytes arrived; it is not read", code: .messageTooLong) }
        if received == 0, descriptors.isEmpty { return nil }
        bytes.removeSubrange(received...)
        return (bytes, descriptors)
    }
}

/// Limits and a system-call filter for a helper process that parses untrusted input.
public enum Confinement {
    /// Caps the process's data (heap and private mappings) at `bytes`: an allocation past
    /// it fails.
    public static func limitData(to bytes: Int) throws(SystemError) {
        guard vitrine_set_limit(CInt(RLIMIT_DATA.rawValue), UInt64(bytes)) == 0 else { throw .errno("limit its data size", "the process") }
    }

    /// Caps the descriptors the process may hold at `count`.
    public static func limitDescriptors(to count: Int) throws(SystemError) {
        guard vitrine_set_limit(CInt(RLIMIT_NOFILE.rawValue), UInt64(count)) == 0 else { throw .errno("limit its descriptors", "the process") }
    }

    /// What a confined helper may do beyond decoding.
    public struct Allowance: OptionSet, Sendable {
        public let rawValue: CInt
        public init(rawValue: CInt) { self.rawValue = rawValue }
        /// Unix sockets: a sound server's (PulseAudio, PipeWire).
        public static let unixSockets = Allowance(rawValue: CInt(VITRINE_ALLOW_UNIX_SOCKETS))
        /// Sockets of any family: a network stream's.
        public static let network = Allowance(rawValue: CInt(VITRINE_ALLOW_NETWORK))
        /// ioctl(2): a sound card's.
        public static let deviceControl = Allowance(rawValue: CInt(VITRINE_ALLOW_DEVICE_CONTROL))
    }

    /// Installs the decoder's system-call filter on every thread, for good: no network, no
    /// programs, no signals but to itself, no namespaces, mounts, modules or BPF, and no
    /// device control (ioctl fails), but for what `allowing` leaves; a forbidden call
    /// kills the process with SIGSYS.
    public static func confineDecoder(allowing: Allowance = []) throws(SystemError) {
        guard vitrine_confine_decoder(getpid(), allowing.rawValue) == 0 else { throw .errno("install its system-call filter", "the process") }
    }
}
