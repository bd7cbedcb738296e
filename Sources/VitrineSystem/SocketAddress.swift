import Glibc

extension sockaddr_un {
    /// The address of the Unix socket at `path`, which must be at most 107 bytes (the
    /// limit of `sun_path`; longer paths are cut).
    public init(path: String) {
        self.init()
        sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &sun_path) { raw in
            let bytes = Array(path.utf8.prefix(raw.count - 1))
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
    }
}
