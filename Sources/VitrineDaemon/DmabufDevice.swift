import Glibc
import VitrineOutput

/// The device `zwp_linux_dmabuf_v1`'s feedback names as the main one (a `dev_t`): the DRM
/// device of the first DRM output, where clients' buffers can go to the screen; without
/// one (headless, a window, fbdev), the first render node of `/dev/dri` there is, where
/// GPU clients render; nil without either (the global is then offered at version 3, with
/// no device).
public enum DmabufDevice {
    /// The main device's number for the DRM outputs among `backends`, else the first
    /// render node in `directory`; nil without either.
    public static func main(of backends: [OutputBackend], renderNodes directory: String = "/dev/dri") -> UInt64? {
        for case let head as DRMHead in backends {
            var info = stat()
            if fstat(head.card.device.fd, &info) == 0 { return UInt64(info.st_rdev) }
        }
        guard let dir = opendir(directory) else { return nil }
        defer { closedir(dir) }
        var nodes: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("renderD") { nodes.append(name) }
        }
        for name in nodes.sorted() {
            var info = stat()
            if stat(directory + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFCHR { return UInt64(info.st_rdev) }
        }
        return nil
    }
}
