import Foundation
import Testing
import VitrineSystem

/// A child started by `Subprocess` and seen through its pidfd, and output cut into lines.
@Suite struct SubprocessTests {
    /// Waits at most 10 s for the pidfd to say the process ended.
    static func waitForEnd(_ child: Subprocess) -> Bool {
        var ready = pollfd(fd: child.pidfd, events: Int16(POLLIN), revents: 0)
        return poll(&ready, 1, 10_000) == 1
    }

    @Test func theEndingIsReadWithoutWaitingAndTheOutputComesThroughThePipe() throws {
        let child = try Subprocess(program: "/bin/sh", arguments: ["sh", "-c", "echo out; echo err >&2; exit 7"], environment: [])
        #expect(Self.waitForEnd(child))
        #expect(child.reap() == .exited(7))
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while case let n = read(child.output, &chunk, chunk.count), n > 0 { text += chunk[..<n] }
        #expect(String(decoding: text, as: UTF8.self) == "out\nerr\n")
    }

    @Test func aRunningProcessIsNotReapedAndASignalEndsItsGroup() throws {
        let child = try Subprocess(program: "/bin/sh", arguments: ["sh", "-c", "sleep 100 & sleep 100"], environment: [])
        #expect(child.reap() == nil)
        usleep(100_000)
        child.signalGroup(SIGTERM)
        #expect(Self.waitForEnd(child))
        #expect(child.reap() == .signaled(SIGTERM))
        #expect(child.ending?.description == "signal SIGTERM")
    }

    @Test func programsAreFoundInThePathOrRefusedWithTheReason() throws {
        #expect(try Subprocess.resolve("sh", searchPath: "/nonexistent:/bin", directory: nil) == "/bin/sh")
        #expect(try Subprocess.resolve("/bin/sh", searchPath: "", directory: nil) == "/bin/sh")
        #expect(try Subprocess.resolve("./sh", searchPath: "", directory: "/bin") == "/bin/./sh")
        for (program, words) in [("vitrine-none", "no executable 'vitrine-none' in PATH"), ("/etc/passwd", "not executable"), ("/bin", "not a regular file")] {
            #expect(throws: SystemError.self) { try Subprocess.resolve(program, searchPath: "/bin", directory: nil) }
            do { _ = try Subprocess.resolve(program, searchPath: "/bin", directory: nil) } catch { #expect(error.message.contains(words), "\(error)") }
        }
    }

    @Test func outputIsCutIntoBoundedLines() {
        var lines = OutputLines(maximumLine: 8)
        var got: [String] = []
        lines.take(Array("one\r\ntwo\nthree".utf8)) { got.append($0) }
        #expect(got == ["one", "two"] && lines.pendingBytes == 5)
        lines.take(Array(" four\n0123456789abcdefXY\n12345678\n".utf8)) { got.append($0) }
        #expect(got == ["one", "two", "three fo", "ur", "01234567", "89abcdef", "XY", "12345678"])
        lines.take(Array("tail".utf8)) { got.append($0) }
        lines.finish { got.append($0) }
        #expect(got.last == "tail" && lines.pendingBytes == 0)
    }
}
