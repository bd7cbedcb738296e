import CSandbox
import Glibc
import Testing
import VitrineDecoderHelper
import VitrineImage
import VitrineJSON
import VitrineProtocol
import VitrineSystem
import VitrineTestSupport

/// What a helper that has been taken over could send the daemon, and what it cannot do.
@Suite struct HostileHelperTests {
    let request = DecodeRequest(id: 7, name: "/c/a.png", target: nil, output: TargetSize(width: 64, height: 64), budget: 1 << 20)

    /// A sealed memfd of `size` bytes.
    func memory(_ size: Int) throws -> OwnedDescriptor {
        try SharedMemory(name: "test", size: size).seal()
    }

    /// A memfd of `size` bytes that its writer could still shrink or write.
    func unsealedMemory(_ size: Int) throws -> OwnedDescriptor {
        let fd = OwnedDescriptor(vitrine_memfd_create("test"))
        try #require(fd.isOpen && ftruncate(fd.rawValue, off_t(size)) == 0)
        return fd
    }

    func reply(_ picture: String, id: Int = 7) -> [UInt8] {
        Array(#"{"id": \#(id), "picture": \#(picture)}"#.utf8)
    }

    func malformed(_ bytes: [UInt8], _ descriptors: [OwnedDescriptor]) -> String? {
        switch DecoderClient.result(of: (bytes, descriptors), for: request) {
        case .success: nil
        case .failure(let failure): failure.malformed
        }
    }

    let good = #"{"format": "png", "frames": [[0, 4, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#

    @Test func aWellFormedReplyIsAPictureDrawnFromTheSharedMemory() throws {
        guard case .success(let picture) = DecoderClient.result(of: (reply(good), [try memory(128)]), for: request) else {
            Issue.record("refused")
            return
        }
        #expect(picture.frames[0].width == 4 && picture.frames[0].stride == 8 && picture.format == .png)
    }

    @Test(arguments: [
        #"{"format": "png", "frames": [[0, 4, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 64}"#,  // past the end
        #"{"format": "png", "frames": [[100, 4, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [[-8, 4, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [[0, 4, 4, 2]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [[0, 0, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [[0, 40000, 1, 40000]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 160000}"#,
        #"{"format": "png", "frames": [[0, 512, 512, 512]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 1048576}"#,
        #"{"format": "png", "frames": [[0, 4, 4, 8], [0, 2, 2, 8]], "durations": [1, 1], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [[0, 4, 4, 8], [0, 4, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "tiff", "frames": [[0, 4, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [[0, 4, 4, 8]], "durations": [], "plays": 0, "natural": [1e300, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [[0, 4.5, 4, 8]], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
        #"{"format": "png", "frames": [], "durations": [], "plays": 0, "natural": [4, 4], "scaling": "fixed", "size": 128}"#,
    ])
    func aPictureThatDoesNotFitWhatItSaysIsRefused(picture: String) throws {
        let large = try memory(160_000), small = try memory(128)
        #expect(malformed(reply(picture), [large]) != nil)
        #expect(malformed(reply(picture), [small]) != nil)
    }

    @Test func sharedMemoryThatIsNotSealedOrTooShortOrNotAMemfdIsRefused() throws {
        #expect(malformed(reply(good), [try unsealedMemory(128)])?.contains("not sealed") == true)
        let files = try FixtureFiles()
        let file = try SafeFile.open(try files.write("pixels", [UInt8](repeating: 0, count: 128)), limit: 1 << 20).file
        #expect(malformed(reply(good), [file])?.contains("not sealed") == true, "a file, not a memfd")
        #expect(malformed(reply(good), [try memory(64)])?.contains("holds 64 bytes") == true)
        var pipe: [CInt] = [-1, -1]
        #expect(Glibc.pipe(&pipe) == 0)
        let ends = pipe.map(OwnedDescriptor.init)
        #expect(malformed(reply(good), [ends[0]]) != nil)
        #expect(malformed(reply(good), []) != nil, "a picture without its memory")
        #expect(malformed(reply(good), [try memory(128), try memory(128)]) != nil)
    }

    @Test func garbageAndAnswersToOtherRequestsAreRefused() throws {
        #expect(malformed(Array("not json".utf8), []) != nil)
        #expect(malformed(Array(#"{"id": 7}"#.utf8), []) != nil)
        #expect(malformed(reply(good, id: 8), [try memory(128)]) != nil)
        #expect(malformed(Array(#"{"id": 7, "code": "no_such_code", "message": "x"}"#.utf8), []) != nil)
        #expect(malformed(Array(#"{"id": 7, "code": "content_failed", "message": "x"}"#.utf8), [try memory(128)]) != nil, "an error with a descriptor")
        let failure = DecoderClient.result(of: (Array(#"{"id": 7, "code": "content_failed", "message": "bad"}"#.utf8), []), for: request)
        guard case .failure(let said) = failure else {
            Issue.record("an error reply became a picture")
            return
        }
        #expect(said.malformed == nil && said.error == ProtocolError(.contentFailed, "bad"))
    }

    /// A child confined as the helper is, which then tries `call`: how it ended.
    func confinedChild(allowing: Confinement.Allowance = [], _ call: @escaping () -> Void) -> Int32 {
        let pid = fork()
        if pid == 0 {
            do { try Confinement.confineDecoder(allowing: allowing) } catch { _exit(3) }
            call()
            _exit(0)
        }
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        return status & 0x7f == 0 ? -((status >> 8) & 0xff) : status & 0x7f
    }

    @Test func theFilterStopsTheNetworkProgramsAndSignalsToOthersAndLeavesDecoding() throws {
        #expect(confinedChild { _ = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) } == SIGSYS)
        #expect(confinedChild { _ = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) } == SIGSYS)
        #expect(confinedChild { _ = execv("/bin/true", [strdup("/bin/true"), nil]) } == SIGSYS)
        #expect(confinedChild { _ = kill(getppid(), 0) } == SIGSYS)
        #expect(confinedChild { _ = socketpair(AF_INET6, Int32(SOCK_STREAM.rawValue), 0, nil) } == SIGSYS)
        // What decoding needs goes on: memory, files read, time, its own signals.
        #expect(
            confinedChild {
                let block = malloc(1 << 20)
                free(block)
                let fd = open("/proc/self/status", O_RDONLY)
                var byte: UInt8 = 0
                guard fd >= 0, read(fd, &byte, 1) == 1, kill(getpid(), 0) == 0 else { _exit(4) }
                var info = winsize()
                guard ioctl(1, UInt(TIOCGWINSZ), &info) == -1, errno == ENOTTY else { _exit(5) }
            } == 0)
    }

    @Test func aVideoHelpersAllowancesOpenWhatTheyNameAndNoMore() {
        var pair: [Int32] = [-1, -1]
        // GStreamer's wakeups: Unix socket pairs, always.
        #expect(confinedChild { guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { _exit(4) } } == 0)
        // A sound server: Unix sockets and connect; a sound card: ioctl. No IP.
        let sound: Confinement.Allowance = [.unixSockets, .deviceControl]
        #expect(confinedChild(allowing: sound) { guard socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0) >= 0 else { _exit(4) } } == 0)
        #expect(confinedChild(allowing: sound) { _ = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) } == SIGSYS)
        #expect(
            confinedChild(allowing: sound) {
                var info = winsize()
                guard ioctl(1, UInt(TIOCGWINSZ), &info) == 0 || errno != ENOTTY || isatty(1) == 0 else { _exit(5) }
            } == 0)
        // A stream: any socket, but still no programs.
        #expect(confinedChild(allowing: .network) { guard socket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0) >= 0 else { _exit(4) } } == 0)
        #expect(confinedChild(allowing: .network) { _ = execv("/bin/true", [strdup("/bin/true"), nil]) } == SIGSYS)
    }
}
