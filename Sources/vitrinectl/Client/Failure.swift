/// Why a command failed, with the exit status it ends `vitrinectl` with.
struct Failure: Error {
    /// The text after `vitrinectl: ` on standard error.
    let message: String
    let exitCode: Int32

    /// The daemon refused a request: its code and message, status 1.
    static func daemon(code: String, message: String) -> Failure {
        Failure(message: "\(code): \(message)", exitCode: 1)
    }

    /// Something on this side failed (a file could not be written…): status 1.
    static func local(_ message: String) -> Failure {
        Failure(message: message, exitCode: 1)
    }

    /// A wait (`--wait`, `watch --count`) did not end within `--timeout` seconds: status 4.
    static func waitTimedOut(_ message: String) -> Failure {
        Failure(message: message, exitCode: 4)
    }

    /// The daemon could not be reached or stopped answering: status 3, and a hint.
    /// `problem` names the socket's path.
    static func unreachable(_ problem: String) -> Failure {
        Failure(
            message: problem + "; is vitrined running? See 'systemctl status vitrine', "
                + "or give its socket with --socket PATH or VITRINE_SOCKET",
            exitCode: 3)
    }
}
