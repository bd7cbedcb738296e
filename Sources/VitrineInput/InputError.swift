import Glibc
import VitrineSystem

/// Why input could not be set up: what was tried, what went wrong, and what to do.
public struct InputError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// A keymap xkbcommon could not compile, because of the name at `wrong` (nil: the
    /// system's default keymap itself).
    static func keymap(_ names: InputSettings.Keymap, wrong: WritableKeyPath<InputSettings.Keymap, String>?) -> InputError {
        let keys: [(String, WritableKeyPath<InputSettings.Keymap, String>)] = [
            ("xkb_layout", \.layout), ("xkb_variant", \.variant), ("xkb_model", \.model), ("xkb_rules", \.rules), ("xkb_options", \.options),
        ]
        let given = keys.filter { !names[keyPath: $0.1].isEmpty }.map { "\($0.0) \"\(names[keyPath: $0.1])\"" }
        let what = given.isEmpty ? "the system's default keymap" : "the keymap " + given.joined(separator: ", ")
        let reason: String
        if wrong == \.layout {
            reason = "there is no layout \"\(names.layout)\""
        } else if wrong == \.variant {
            reason = "\(names.layout.isEmpty ? "the default layout" : "layout \"\(names.layout)\"") has no variant \"\(names.variant)\""
        } else if let wrong {
            reason = "\(keys.first { $0.1 == wrong }?.0 ?? "a name") \"\(names[keyPath: wrong])\" does not exist"
        } else {
            reason = "is xkeyboard-config installed (/usr/share/X11/xkb), and are XKB_DEFAULT_* right?"
        }
        return InputError(
            "cannot compile \(what): \(reason) — see `localectl list-x11-keymap-layouts`, `localectl list-x11-keymap-variants LAYOUT` and `localectl list-x11-keymap-options`"
        )
    }

    /// A system or library call that failed with `code` (an errno).
    static func failed(_ what: String, _ code: Int32, advice: String = "") -> InputError {
        InputError("\(what) failed: \(SystemError.reason(errno: code))" + (advice.isEmpty ? "" : " — " + advice))
    }
}
