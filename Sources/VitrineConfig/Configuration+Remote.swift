import Glibc
import VitrineRemote

/// `[remote]`: VNC listeners (docs/REMOTE.md). Off by default; read when the daemon starts.
///
/// ```toml
/// [remote]
/// vnc = "127.0.0.1:5900"            # one listener ("": none); the keys below are its own
/// output = "HDMI-A-1"               # default: the primary output
/// view_only = false
///
/// [[remote.vnc]]                    # or several, each a table with `listen` and the same keys
/// listen = "0.0.0.0:5901"
/// view_only = true
/// tls_certificate = "/etc/vitrine/vnc.crt"
/// tls_key = "/etc/vitrine/vnc.key"
/// password_file = "/etc/vitrine/vnc.passwords"
/// ```
extension RemoteSettings {
    static let keys = ["vnc", "output", "view_only", "tls_certificate", "tls_key", "password_file"]
    static let listenerKeys = ["listen", "output", "view_only", "tls_certificate", "tls_key", "password_file"]

    init(reading r: TableReader) throws(ConfigError) {
        self.init()
        try r.refuseUnknownKeys(Self.keys)
        guard let node = r.entries["vnc"] else {
            _ = try Self.listener(r, addressKey: "vnc")
            let configured = r.keysInFileOrder.first { key in
                switch r.entries[key] {
                case .string(let text)?: !text.isEmpty
                case .bool(let on)?: on
                default: true
                }
            }
            if let other = configured {
                throw r.error(other, "applies to a VNC listener, and [remote] has none: add vnc = \"127.0.0.1:5900\" (or a Unix socket's path)")
            }
            return
        }
        if node.string != nil {
            listeners = [try Self.listener(r, addressKey: "vnc")].compactMap { $0 }
        } else if let items = node.array, !items.isEmpty, items.allSatisfy({ $0.table != nil }) {
            if let shared = r.keysInFileOrder.first(where: { $0 != "vnc" }) {
                throw r.error(shared, "with [[remote.vnc]] tables, write it in each table")
            }
            for (i, item) in items.enumerated() {
                let reader = TableReader(path: "remote.vnc[\(i)]", entries: item.table!, context: r.context)
                try reader.refuseUnknownKeys(Self.listenerKeys)
                guard let entry = try Self.listener(reader, addressKey: "listen") else {
                    throw reader.error("listen", "is missing: give the address to listen on, such as \"127.0.0.1:5900\"")
                }
                if listeners.contains(where: { $0.address == entry.address }) {
                    throw reader.error("listen", "\(entry.address) is an earlier listener's address; give each its own")
                }
                listeners.append(entry)
            }
        } else {
            throw r.error("vnc", "must be an address such as \"127.0.0.1:5900\" or \"/run/vitrine/vnc.sock\", or [[remote.vnc]] tables; got \(node.written)")
        }
    }

    /// The listener `r` describes; nil when its address is "" (the shipped file's: no
    /// listener), after its other keys are checked all the same.
    private static func listener(_ r: TableReader, addressKey: String) throws(ConfigError) -> Listener? {
        let address = try r.value(
            addressKey, Address.unix(path: ""),
            expected:
                "\"host:port\" with a numeric address (\"127.0.0.1:5900\", \"[::1]:5900\", \"0.0.0.0:5900\") or a Unix socket's absolute path (at most 107 bytes)"
        ) { $0.string == "" ? Address.unix(path: "") : $0.string.flatMap(Address.init) }
        var entry = Listener(address: address)
        let output = try r.string("output", "")
        entry.output = output.isEmpty ? nil : output
        entry.viewOnly = try r.boolean("view_only", false)
        entry.certificate = try r.absolutePath("tls_certificate", "", allowEmpty: true)
        entry.key = try r.absolutePath("tls_key", "", allowEmpty: true)
        entry.passwordFile = try r.absolutePath("password_file", "", allowEmpty: true)
        let given = [entry.certificate, entry.key, entry.passwordFile].filter { !$0.isEmpty }.count
        if given != 0, given != 3 {
            let missing = [("tls_certificate", entry.certificate), ("tls_key", entry.key), ("password_file", entry.passwordFile)].first { $0.1.isEmpty }!.0
            throw r.error(missing, "is missing: authentication (VeNCrypt with TLS and a password) needs tls_certificate, tls_key and password_file")
        }
        if case .unix(let path) = address, path.isEmpty { return nil }
        if given == 0, !address.isLocal {
            throw r.error(
                addressKey,
                "\(address) is reachable from other machines, and this listener lets anyone in: set tls_certificate, tls_key and password_file, or listen on 127.0.0.1 or a Unix socket"
            )
        }
        return entry
    }
}
