import FoundationEssentials
import SystemPackage

/// Why a file could not be read, in words for an error message ("no such file",
/// "permission denied", "it is a directory").
public struct FileReadFailure: Error, Sendable {
    public let reason: String
}

/// The contents of the file at `path`.
public func readFile(_ path: String) throws(FileReadFailure) -> Data {
    do {
        let fd = try FileDescriptor.open(path, .readOnly, options: [.closeOnExec])
        defer { try? fd.close() }
        let status = try fd.stat()
        guard status.type != .directory else { throw Errno.isDirectory }
        var bytes = [UInt8]()
        bytes.reserveCapacity(Int(status.size))
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try fd.read(into: $0, retryOnInterrupt: true) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return Data(bytes)
    } catch {
        throw FileReadFailure(error as? Errno ?? .ioError)
    }
}

extension FileReadFailure {
    init(_ code: Errno) {
        switch code {
        case .noSuchFileOrDirectory: reason = "no such file"
        case .permissionDenied, .notPermitted: reason = "permission denied"
        case .isDirectory: reason = "it is a directory"
        default: reason = code.description.lowercased()
        }
    }
}
