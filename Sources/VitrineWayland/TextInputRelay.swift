import CWaylandServer

/// What the server tells of the focused client's text field, on the loop.
public protocol TextInputDelegate: AnyObject {
    /// The text input of `window`'s focused surface was enabled or its state changed
    /// (`state`), or it was disabled, lost the keyboard focus or went (nil).
    func textInput(of window: (any HostedWindow)?, changed state: TextInputState?)
}

/// The relay between clients' text inputs (`zwp_text_input_v3`) and the input method: a
/// client's (`zwp_input_method_v2`, one per seat) and the daemon's own keyboard
/// (`TextInputDelegate` and `WaylandServer.commitText`). Text inputs of the client with
/// the keyboard focus hear `enter` and `leave` as it comes and goes; the one enabled on the
/// focused surface is active: the input method is activated with its state and what the
/// input method composes goes to it.
final class TextInputRelay {
    private unowned let server: WaylandServer
    private var inputs: [TextInputObject] = []
    /// The keyboard focus.
    private weak var focus: SurfaceObject?
    /// The text input enabled on the focused surface.
    private(set) weak var active: TextInputObject?
    /// The seat's input method, while a client is one.
    weak var inputMethod: InputMethodObject?
    /// Hears of the active text input.
    weak var delegate: TextInputDelegate?

    init(server: WaylandServer) { self.server = server }

    func add(_ input: TextInputObject) {
        inputs.append(input)
        if let focus, focus.client == input.client, !focus.isGone { input.enter(focus) }
    }

    func remove(_ input: TextInputObject) {
        inputs.removeAll { $0 === input }
        if active === input { deactivate() }
    }

    /// The keyboard went to `surface` (nil: to no client).
    func focusChanged(to surface: SurfaceObject?) {
        guard focus !== surface else { return }
        if active != nil { deactivate() }
        for input in inputs where input.entered != nil { input.leave() }
        focus = surface
        guard let surface else { return }
        for input in inputs where input.client == surface.client { input.enter(surface) }
    }

    /// `input` applied a commit.
    func committed(_ input: TextInputObject, wasEnabled: Bool) {
        guard let focus, input.entered === focus else { return }
        if input.enabled {
            let isNew = active !== input || !wasEnabled
            active = input
            inputMethod?.activate(with: input.current, cause: input.cause, fresh: isNew)
            delegate?.textInput(of: window(of: focus), changed: windowState(input.current, on: focus))
        } else if active === input {
            deactivate()
        }
    }

    private func deactivate() {
        active = nil
        inputMethod?.deactivate()
        delegate?.textInput(of: focus.flatMap(window(of:)), changed: nil)
    }

    /// A new input method: activated at once when a text input is.
    func inputMethodArrived(_ method: InputMethodObject) {
        inputMethod = method
        if let active { method.activate(with: active.current, cause: active.cause, fresh: true) }
    }

    /// The window `surface` belongs to.
    func window(of surface: SurfaceObject) -> (any HostedWindow)? {
        if let toplevel = surface.toplevel { return toplevel }
        return surface.layerSurface
    }

    /// `state` with its cursor moved from `surface`'s coordinates into its window's.
    private func windowState(_ state: TextInputState, on surface: SurfaceObject) -> TextInputState {
        var moved = state
        guard let cursor = state.cursor, let picture = window(of: surface)?.picture,
            let place = picture.stack().first(where: { $0.surface === surface })
        else { return moved }
        moved.cursor = cursor.offsetBy(dx: place.x, dy: place.y)
        return moved
    }
}

extension WaylandServer {
    /// Hears when the focused client's text field is enabled, changes and is disabled:
    /// Vitrine's own on-screen keyboard (through the window host).
    public weak var textInputDelegate: TextInputDelegate? {
        get { textInputs.delegate }
        set { textInputs.delegate = newValue }
    }

    /// The state of the focused client's enabled text field; nil when none is.
    public var activeTextInput: TextInputState? { textInputs.active?.current }

    /// Inserts `text` at the cursor of the focused client's enabled text field (`commit_string`
    /// then `done`), after deleting `before` and `after` bytes around the cursor; false (and
    /// nothing sent) when no text field is enabled.
    @discardableResult
    public func commitText(_ text: String, deletingBefore before: Int = 0, after: Int = 0) -> Bool {
        guard let input = textInputs.active else { return false }
        input.send(
            preedit: nil, delete: (UInt32(clamping: max(0, before)), UInt32(clamping: max(0, after))), commit: text.isEmpty ? nil : text)
        flush()
        return true
    }

    /// Shows `text` as the field's text being composed (preedit), with the cursor at byte
    /// `cursor` of it; false when no text field is enabled.
    @discardableResult
    public func setPreedit(_ text: String, cursor: Int) -> Bool {
        guard let input = textInputs.active else { return false }
        let at = Int32(clamping: cursor)
        input.send(preedit: (text, at, at), delete: nil, commit: nil)
        flush()
        return true
    }
}
