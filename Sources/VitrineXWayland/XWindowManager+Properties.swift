import CX11
import Glibc

/// The properties the window manager reads (ICCCM's and EWMH's): what a window is called,
/// which class it is, what it speaks, whom it belongs to.
extension XWindowManager {
    /// The properties read of each window.
    var watchedProperties: [xcb_atom_t] {
        let atoms = connection.atoms
        return [
            XCB_ATOM_WM_NAME.rawValue, XCB_ATOM_WM_CLASS.rawValue, XCB_ATOM_WM_TRANSIENT_FOR.rawValue, atoms[.netWMName], atoms[.wmProtocols],
            atoms[.wmHints], atoms[.netWMWindowType], atoms[.netWMState], atoms[.netWMPID],
        ]
    }

    /// Reads every watched property of `window`, and its client's pid.
    func readProperties(of window: X11Window) {
        for atom in watchedProperties { read(atom, of: window.xid) }
        guard connection.hasResources, window.clientPID == 0 else { return }
        var spec = xcb_res_client_id_spec_t(client: window.xid, mask: XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue)
        expect(xcb_res_query_client_ids(connection.connection, 1, &spec).sequence, .clientPID(window.xid))
    }

    /// Reads the property `atom` of `window` if it is one the window manager follows; one
    /// read at a time per property (a change meanwhile reads it once more).
    func read(_ atom: xcb_atom_t, of window: xcb_window_t) {
        guard watchedProperties.contains(atom) else { return }
        let key = PropertyKey(window: window, atom: atom)
        guard reading.insert(key).inserted else {
            stale.insert(key)
            return
        }
        // Up to 8 KiB: titles are cut at 1024 characters anyway.
        let cookie = xcb_get_property(connection.connection, 0, window, atom, XCB_GET_PROPERTY_TYPE_ANY.rawValue, 0, 2048)
        expect(cookie.sequence, .property(window, atom))
    }

    /// A property's value arrived (nil: none, or an error).
    func propertyRead(_ xid: xcb_window_t, _ atom: xcb_atom_t, reply: UnsafeRawPointer?) {
        let key = PropertyKey(window: xid, atom: atom)
        reading.remove(key)
        if stale.remove(key) != nil { read(atom, of: xid) }
        guard let window = windows[xid] else { return }
        let value = reply.map { PropertyValue($0.assumingMemoryBound(to: xcb_get_property_reply_t.self)) } ?? PropertyValue()
        let atoms = connection.atoms
        let before = (window.title, window.appID, window.instance)
        switch atom {
        case XCB_ATOM_WM_NAME.rawValue: window.wmName = value.text
        case atoms[.netWMName]: window.netWMName = value.isEmpty ? nil : value.text
        case XCB_ATOM_WM_CLASS.rawValue:
            let parts = value.bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            window.wmClass = parts.count >= 2 ? (String(parts[0].prefix(256)), String(parts[1].prefix(256))) : nil
        case atoms[.wmProtocols]: window.protocols = Set(value.words)
        case atoms[.wmHints]:
            // flags, then input: a window without InputHint (flag 1) takes the focus.
            let words = value.words
            window.acceptsInput = words.count < 2 || words[0] & 1 == 0 || words[1] != 0
        case XCB_ATOM_WM_TRANSIENT_FOR.rawValue: window.transientFor = value.words.first.flatMap { $0 == 0 ? nil : $0 }
        case atoms[.netWMWindowType]: window.windowTypes = value.words
        case atoms[.netWMState]: window.states = value.words
        case atoms[.netWMPID]: window.netWMPID = Int(value.words.first ?? 0)
        default: break
        }
        if window.isOverrideRedirect, atom == XCB_ATOM_WM_TRANSIENT_FOR.rawValue { overlaysDirty = true }
        if before != (window.title, window.appID, window.instance), window.isMapped, !window.isOverrideRedirect { delegate?.windowChanged(window) }
    }

    /// X-Resource's ids of a window's client arrived: its process.
    func clientIDsRead(_ xid: xcb_window_t, reply: UnsafeRawPointer?) {
        guard let reply, let window = windows[xid] else { return }
        var ids = xcb_res_query_client_ids_ids_iterator(reply.assumingMemoryBound(to: xcb_res_query_client_ids_reply_t.self))
        while ids.rem > 0 {
            let id = ids.data!
            if id.pointee.spec.mask & XCB_RES_CLIENT_ID_MASK_LOCAL_CLIENT_PID.rawValue != 0, id.pointee.length >= 4,
                let value = xcb_res_client_id_value_value(id)
            {
                window.clientPID = Int(value.pointee)
            }
            xcb_res_client_id_value_next(&ids)
        }
    }
}

/// A property's value as the server gave it.
struct PropertyValue {
    var bytes: [UInt8] = []
    /// Its items' size in bits (8, 16 or 32); 0 for none.
    var format = 0
    /// Its type (STRING, UTF8_STRING, ATOM…).
    var type: xcb_atom_t = 0

    init() {}

    init(_ reply: UnsafePointer<xcb_get_property_reply_t>) {
        let count = Int(xcb_get_property_value_length(reply))
        if count > 0, let data = xcb_get_property_value(reply) {
            bytes = Array(UnsafeRawBufferPointer(start: data, count: count))
        }
        format = Int(reply.pointee.format)
        type = reply.pointee.type
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// The value as text: UTF-8, or Latin-1 for STRING (ICCCM's encoding), cut at 1024
    /// characters and at a NUL.
    var text: String {
        let cut = bytes.prefix { $0 != 0 }
        let decoded =
            type == XCB_ATOM_STRING.rawValue ? String(String.UnicodeScalarView(cut.map { Unicode.Scalar($0) })) : String(decoding: cut, as: UTF8.self)
        return String(decoded.prefix(1024))
    }

    /// The value as 32-bit items (atoms, windows, cardinals); empty for another format.
    var words: [UInt32] {
        guard format == 32 else { return [] }
        return stride(from: 0, to: bytes.count - 3, by: 4).map { i in
            bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i, as: UInt32.self) }
        }
    }
}
