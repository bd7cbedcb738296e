import Foundation

/// The executables built beside this test binary.
enum Built {
    static let directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    static let vitrined = directory.appendingPathComponent("vitrined")
    static let vitrinectl = directory.appendingPathComponent("vitrinectl")
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
}

/// A real `vitrined` (headless 1280×800, manual clock) on a socket in a fresh temporary
/// directory, which is also its screenshot directory unless another is given; stopped and
/// removed when released.
final class Daemon {
    let directory: URL
    let socketPath: String
    private let process = Process()

    init(screenshotDirectory: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrinectl-test-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if let screenshotDirectory { try FileManager.default.createDirectory(atPath: screenshotDirectory, withIntermediateDirectories: true) }
        socketPath = directory.appendingPathComponent("v.sock").path
        process.executableURL = Built.vitrined
        process.arguments = [
            "--backend", "headless", "--socket", socketPath, "--clock", "manual", "--size", "1280x800",
            "--screenshot-dir", screenshotDirectory ?? directory.path, "--log-level", "error",
        ]
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: socketPath) {
            guard process.isRunning, Date() < deadline else { throw HarnessError(description: "vitrined did not start") }
            usleep(20_000)
        }
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `vitrinectl` against this daemon (through `VITRINE_SOCKET`) and waits for it.
    @discardableResult
    func ctl(_ arguments: [String], stdin: String? = nil) throws -> Ctl.Result {
        try Ctl(arguments, socket: socketPath, stdin: stdin, in: directory).wait()
    }

    @discardableResult
    func ctl(_ arguments: String..., stdin: String? = nil) throws -> Ctl.Result {
        try ctl(arguments, stdin: stdin)
    }

    /// Starts `vitrinectl` against this daemon without waiting for it.
    func start(_ arguments: String...) throws -> Ctl {
        try Ctl(arguments, socket: socketPath, stdin: nil, in: directory)
    }
}

/// A `vitrinectl` process; its output goes to files, so that nothing blocks on a pipe.
final class Ctl {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    private let process = Process()
    private let output: URL
    private let errors: URL

    init(_ arguments: [String], socket: String?, stdin: String?, in directory: URL) throws {
        let name = UUID().uuidString.prefix(8)
        output = directory.appendingPathComponent("ctl-\(name).out")
        errors = directory.appendingPathComponent("ctl-\(name).err")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.executableURL = Built.vitrinectl
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["VITRINE_SOCKET"] = socket
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
    }

    var isRunning: Bool { process.isRunning }

    /// Waits for the process to end; after `timeout` seconds it is terminated and this throws.
    func wait(timeout: Double = 30) throws -> Result {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            guard Date() < deadline else {
                process.terminate()
                process.waitUntilExit()
                throw HarnessError(description: "vitrinectl \(process.arguments ?? []) did not end within \(timeout) s")
            }
            usleep(10_000)
        }
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(at: errors)
        }
        return Result(
            status: process.terminationStatus,
            stdout: (try? String(contentsOf: output, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errors, encoding: .utf8)) ?? "")
    }
}
