import VitrineConfig
import VitrineCore
import VitrineWayland

/// A client's text field that wants text, as the window host tells it (`WindowNotice.textInput`):
/// what Vitrine's own on-screen keyboard shows itself for.
public struct TextInputFocus: Sendable, Equatable {
    /// The window (`surface.list`'s id) whose field it is.
    public var surface: Int
    /// What the field takes (purpose, hints) and its surrounding text; its cursor in window
    /// coordinates.
    public var state: TextInputState
    /// The field's cursor in the scene's root coordinates (the primary output's pixels, the
    /// window's layer transform applied); nil when the client gave none or the window is on
    /// no layer.
    public var cursor: Rect?

    public init(surface: Int, state: TextInputState, cursor: Rect?) {
        (self.surface, self.state, self.cursor) = (surface, state, cursor)
    }
}

/// The seam between clients' text fields and a keyboard of the daemon's own: what it hears
/// (`WindowNotice.textInput`, `textInputFocus`) and what it sends (`commitText`,
/// `deleteSurroundingText`, `pressKey`). Each goes to the window with the keyboard focus.
///
/// ```swift
/// case .textInput(let focus?): keyboard.show(near: focus.cursor, layout: focus.state.purpose == .digits ? .numeric : .text)
/// case .textInput(nil): keyboard.hide()
/// …
/// windows.commitText("é")                 // a key of the keyboard tapped
/// windows.deleteSurroundingText(before: 1) // backspace, where the field has a text input
/// windows.pressKey(14)                    // backspace (evdev KEY_BACKSPACE) where it has none
/// ```
extension WindowHost {
    /// The focused window's enabled text field; nil when none is.
    public var textInputFocus: TextInputFocus? { currentTextInput }

    /// Inserts `text` at the cursor of the focused window's enabled text field
    /// (`zwp_text_input_v3.commit_string`); false (nothing sent) when no field is enabled:
    /// then `pressKey` types into the window instead.
    @discardableResult
    public func commitText(_ text: String) -> Bool { server?.commitText(text) ?? false }

    /// Deletes `before` bytes before the cursor and `after` after it in the focused window's
    /// enabled text field; false when none is enabled.
    @discardableResult
    public func deleteSurroundingText(before: Int, after: Int = 0) -> Bool {
        server?.commitText("", deletingBefore: before, after: after) ?? false
    }

    /// Presses (`pressed` true) or releases the key `code` (evdev's, as `input.inject`
    /// takes) on the seat's keyboard, with the configured keymap: it goes to the focused
    /// window as a device's key would, modifiers included.
    public func pressKey(_ code: UInt32, pressed: Bool) {
        seat?.key(code, pressed: pressed)
    }

    /// The policy `[compositor] input_method_clients` sets: whether the client of process
    /// `pid` may be an input method, a virtual keyboard or a layer surface.
    func mayUseInputMethods(pid: Int) -> Bool { allows(compositor.inputMethodClients, pid: pid) }

    /// The policy `[compositor] screencopy_clients` sets: whether the client of process
    /// `pid` may capture the screen.
    func mayCaptureScreen(pid: Int) -> Bool { allows(compositor.screencopyClients, pid: pid) }

    private func allows(_ policy: Configuration.Compositor.InputMethodClients, pid: Int) -> Bool {
        switch policy {
        case .all: true
        case .none: false
        case .launched: launcher?.client(owning: pid) != nil
        }
    }

    /// `state` of `window`'s field as the seam tells it, its cursor mapped onto the scene.
    func focus(of window: any HostedWindow, state: TextInputState) -> TextInputFocus {
        var cursor: Rect?
        if let rect = state.cursor, let layer = assignedLayer(of: window) ?? layerShell?.layer(of: window), let area = window.picture?.windowRect,
            area.width > 0, area.height > 0, let bounds = try? scene.modelValues(of: layer).rect(.bounds)
        {
            let (sx, sy) = (bounds.size.width / Double(area.width), bounds.size.height / Double(area.height))
            let local = Rect(
                x: bounds.origin.x + Double(rect.x - area.x) * sx, y: bounds.origin.y + Double(rect.y - area.y) * sy, width: Double(rect.width) * sx,
                height: Double(rect.height) * sy)
            cursor = try? scene.convert(local, from: layer, to: nil)
        }
        return TextInputFocus(surface: window.id, state: state, cursor: cursor)
    }
}

extension WindowHost: TextInputDelegate {
    public func textInput(of window: (any HostedWindow)?, changed state: TextInputState?) {
        var told: TextInputFocus?
        if let window, let state { told = focus(of: window, state: state) }
        guard told != currentTextInput else { return }
        currentTextInput = told
        notify(.textInput(told))
    }
}

extension WindowHost: LayerShellDelegate {
    public func layerSurfaceChanged(_ surface: LayerSurface) {
        layerShell?.changed(surface, at: now())
        if surface.holdsKeyboardExclusively {
            seat?.focus(surface)
        } else if !surface.isMapped || !surface.takesKeyboardFocus {
            seat?.unfocus(surface)
        }
        if surface.isMapped {
            windowChanged(surface)
        } else {
            notify(.redraw(afterReply: false))
        }
    }

    public func layerSurfaceGone(_ surface: LayerSurface) {
        layerShell?.gone(surface, at: now())
        seat?.forget(surface)
        notify(.redraw(afterReply: false))
    }
}
