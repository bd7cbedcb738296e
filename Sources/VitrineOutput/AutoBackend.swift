/// `backend = "auto"`: the first screen that opens, else headless.
public enum AutoBackend {
    /// Tries `drm`, then `fbdev`; the first that opens is used, and each refusal is
    /// logged with its reason. When neither opens, `headless`.
    public static func choose(
        drm: () throws -> OutputBackend, fbdev: () throws -> OutputBackend, headless: () throws -> OutputBackend,
        log: (String) -> Void
    ) throws -> OutputBackend {
        func attempt(_ name: String, _ open: () throws -> OutputBackend) -> OutputBackend? {
            do {
                let output = try open()
                log("auto: using \(name) (\(output.name) \(output.mode))")
                return output
            } catch {
                log("auto: \(name) not used: \(error)")
                return nil
            }
        }
        if let output = attempt("drm", drm) ?? attempt("fbdev", fbdev) { return output }
        let output = try headless()
        log("auto: no screen could be opened; using headless \(output.mode)")
        return output
    }
}
