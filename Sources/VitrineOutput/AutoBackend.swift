/// `backend = "auto"`: the first screen that opens, else headless.
public enum AutoBackend {
    /// Tries `drm`, then `fbdev`; the first that opens is used, and each refusal is
    /// logged with its reason. When neither opens, `headless`.
    ///
    /// fbdev is tried only when the machine has no DRM card (`cardsPresent` false): where
    /// a card exists, /dev/fb0 is its fbdev emulation, and a card that could not be used
    /// (another process is DRM master: a desktop session on a developer's machine) must
    /// not be drawn on behind that process's back.
    public static func choose(
        cardsPresent: Bool,
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
        if let output = attempt("drm", drm) { return output }
        if cardsPresent {
            log("auto: fbdev not tried: /dev/fb0 would be the DRM card's emulation, drawn on behind its master's back")
        } else if let output = attempt("fbdev", fbdev) {
            return output
        }
        let output = try headless()
        log("auto: no screen could be opened; using headless \(output.mode)")
        return output
    }
}
