import FoundationEssentials
import Glibc

/// Why a file could not be read, in words for an error message ("no such file",
/// "permission denied", "it is a directory").
public struct FileReadFailure: Error, Sendable {
    public let reason: String
}

/// The contents of the file at `path`.
public func readFile(_ path: String) throws(FileReadFailure) -> Data {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw FileReadFailure(errno: errno) }
    defer { close(fd) }
    var status = stat()
    guard fstat(fd, &status) == 0 else { throw FileReadFailure(errno: errno) }
    guard status.st_mode & UInt32(S_IFMT) != UInt32(S_IFDIR) else { throw FileReadFailure(reason: "it is a directory") }
    var bytes = [UInt8]()
    bytes.reserveCapacity(Int(status.st_size))
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n == 0 { break }
        if n < 0 {
            if errno == EINTR { continue }
            throw FileReadFailure(errno: errno)
        }
        bytes += chunk[0..<n]
    }
    return Data(bytes)
}

extension FileReadFailure {
    init(errno code: Int32) {
        switch code {
        case ENOENT: reason = "no such file"
        case EACCES, EPERM: reason = "permission denied"
        case EISDIR: reason = "it is a directory"
        default: reason = String(cString: strerror(code)).lowercased()
        }
    }
}
