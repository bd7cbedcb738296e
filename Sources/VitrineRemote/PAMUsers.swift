import CPAM
import Glibc
import VitrineSystem

/// The users a VNC listener with `auth = "pam"` lets in: PAM's service (`vitrine-vnc`)
/// checks the VeNCrypt user name and password (`pam_authenticate`, then `pam_acct_mgmt`);
/// users listed in `viewOnlyUsers`, or members of `viewOnlyGroup`, may only watch.
///
/// Neat VNC 0.5 asks for the verdict on the event loop and waits for it, so PAM's delay
/// after a failure is turned off, and at most `attemptsPerSecond` checks run a second
/// (others are refused unchecked): a guesser cannot hold the screen's loop. A module that
/// asks the network (LDAP, Kerberos) holds it for as long as it takes.
final class PAMUsers {
    let service: String
    private let viewOnlyUsers: Set<String>
    private let viewOnlyGroup: String
    /// The checks of the last second, by their monotonic time.
    private var recent: [Double] = []
    static let attemptsPerSecond = 4
    static let libraries = FeatureLibraries("PAM for VNC ([remote] auth = \"pam\")", vitrine_pam_load)

    /// - Throws: `SystemError` when libpam cannot be opened.
    init(service: String, viewOnlyUsers: [String], viewOnlyGroup: String) throws(SystemError) {
        try Self.libraries.load()
        self.service = service
        self.viewOnlyUsers = Set(viewOnlyUsers)
        self.viewOnlyGroup = viewOnlyGroup
    }

    /// nil when PAM refuses `user` with `password` (or too many checks ran this second;
    /// `why` says which), else whether the user may only watch.
    func check(user: String, password: String, now: Double) -> (viewOnly: Bool?, why: String) {
        recent.removeAll { now - $0 >= 1 }
        guard recent.count < Self.attemptsPerSecond else { return (nil, "more than \(Self.attemptsPerSecond) attempts a second") }
        recent.append(now)
        var message: UnsafePointer<CChar>?
        let status = vitrine_pam_check(service, user, password, &message)
        guard status == PAM_SUCCESS else { return (nil, message.map { String(cString: $0) } ?? "PAM error \(status)") }
        return (viewOnlyUsers.contains(user) || isMember(user, of: viewOnlyGroup), "")
    }

    /// Whether `user`'s primary or supplementary groups include `group`.
    private func isMember(_ user: String, of group: String) -> Bool {
        guard !group.isEmpty, let entry = getgrnam(group) else { return false }
        let gid = entry.pointee.gr_gid
        guard let account = getpwnam(user) else { return false }
        let primary = account.pointee.pw_gid
        if primary == gid { return true }
        var count: CInt = 64
        var groups = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(user, primary, &groups, &count) < 0 {
            groups = [gid_t](repeating: 0, count: Int(count))
            guard getgrouplist(user, primary, &groups, &count) >= 0 else { return false }
        }
        return groups.prefix(Int(count)).contains(gid)
    }
}
