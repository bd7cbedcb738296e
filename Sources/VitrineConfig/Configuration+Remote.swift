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
/// output = "*"                      # the wall
/// max_rate = 30                     # updates a second
/// tls_certificate = "/etc/vitrine/vnc.crt"
/// tls_key = "/etc/vitrine/vnc.key"
/// password_file = "/etc/vitrine/vnc.passwords"   # or auth = "pam"
/// ```
extension RemoteSettings {
    static let listenerOwnKeys = [
        "output", "view_only", "max_rate", "tls_certificate", "tls_key", "password_file", "auth", "pam_service", "view_only_users",
        "view_only_group",
    ]
    static let keys = ["vnc"] + listenerOwnKeys
    static let listenerKeys = ["listen"] + listenerOwnKeys

    init(reading r: TableReader) throws(ConfigError) {
        self.init()
        try r.refuseUnknownKeys(Self.keys)
        guard let node = r.entries["vnc"] else {
            _ = try Self.listener(r, addressKey: "vnc")
            let configured = r.keysInFileOrder.first { key in
                switch r.entries[key] {
                case .string(let text)?: !text.isEmpty && text != ["auth": "password", "pam_service": "vitrine-vnc"][key]
                case .bool(let on)?: on
                case .integer(let n)?: key != "max_rate" || n != 30
                case .array(let items)?: !items.isEmpty
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
            throw r.error("vnc", "must be an address such as \"127.0.0.1:5900\", or [[remote.vnc]] tables; got \(node.written)")
        }
    }

    /// The listener `r` describes; nil when its address is "" (the shipped file's: no
    /// listener), after its other keys are checked all the same.
    private static func listener(_ r: TableReader, addressKey: String) throws(ConfigError) -> Listener? {
        let address = try r.value(
            addressKey, Address.unix(path: ""),
            expected:
                "\"host:port\" with a numeric address (\"127.0.0.1:5900\", \"[::1]:5900\", \"0.0.0.0:5900\") or a Unix socket's absolute path"
        ) { $0.string == "" ? Address.unix(path: "") : $0.string.flatMap(Address.init) }
        var entry = Listener(address: address)
        let output = try r.string("output", "")
        entry.output = output.isEmpty ? nil : output == "wall" ? RemoteSettings.wall : output
        entry.viewOnly = try r.boolean("view_only", false)
        entry.maxRate = try r.integer("max_rate", 30, in: 1...240)
        entry.certificate = try r.absolutePath("tls_certificate", "", allowEmpty: true)
        entry.key = try r.absolutePath("tls_key", "", allowEmpty: true)
        entry.passwordFile = try r.absolutePath("password_file", "", allowEmpty: true)
        let auth = try r.string("auth", "password", expected: "\"password\" or \"pam\"") { $0 == "password" || $0 == "pam" }
        entry.pam = auth == "pam"
        entry.pamService = try r.string("pam_service", "vitrine-vnc", expected: "a PAM service's name (letters, digits, -, _, .)") { name in
            !name.isEmpty && name.utf8.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }
        entry.viewOnlyUsers = try r.value("view_only_users", [String](), expected: "an array of user names") { node in
            guard let items = node.array else { return nil }
            let names = items.compactMap(\.string)
            return names.count == items.count && !names.contains("") ? names : nil
        }
        entry.viewOnlyGroup = try r.string("view_only_group", "")
        let pamKeys = [
            ("pam_service", entry.pamService != "vitrine-vnc"), ("view_only_users", !entry.viewOnlyUsers.isEmpty),
            ("view_only_group", !entry.viewOnlyGroup.isEmpty),
        ]
        if !entry.pam, let (pamKey, _) = pamKeys.first(where: \.1) {
            throw r.error(pamKey, "applies to PAM users: set auth = \"pam\" (or, with a password file, mark users user:password:view-only)")
        }
        if entry.pam, !entry.passwordFile.isEmpty {
            throw r.error("password_file", "with auth = \"pam\", PAM checks the passwords: leave password_file out")
        }
        let secret = entry.pam ? "pam" : entry.passwordFile
        let given = [entry.certificate, entry.key, secret].filter { !$0.isEmpty }.count
        if entry.pam, given != 3 {
            let missing = entry.certificate.isEmpty ? "tls_certificate" : "tls_key"
            throw r.error(missing, "is missing: auth = \"pam\" (VeNCrypt with TLS and a PAM user) needs tls_certificate and tls_key")
        }
        if given != 0, given != 3 {
            let missing = [("tls_certificate", entry.certificate), ("tls_key", entry.key), ("password_file", entry.passwordFile)].first { $0.1.isEmpty }!.0
            throw r.error(
                missing, "is missing: authentication (VeNCrypt with TLS and a password) needs tls_certificate, tls_key and password_file (or auth = \"pam\")")
        }
        if case .unix(let path) = address, path.isEmpty { return nil }
        if given == 0, !address.isLocal {
            throw r.error(
                addressKey,
                "\(address) is reachable from other machines, and this listener lets anyone in: set tls_certificate, tls_key and password_file (or auth = \"pam\"), or listen on 127.0.0.1"
            )
        }
        return entry
    }
}
