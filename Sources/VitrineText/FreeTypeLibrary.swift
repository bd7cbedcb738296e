import CFreeType

/// Owns one FreeType library instance; faces opened from it keep it alive.
///
/// FreeType objects are not thread-safe: a library and its faces belong to one thread or
/// actor at a time.
final class FreeTypeLibrary {
    let handle: FT_Library

    init() throws(TextError) {
        var library: FT_Library?
        let error = FT_Init_FreeType(&library)
        guard error == 0, let library else { throw .freeTypeUnavailable(code: error) }
        handle = library
    }

    deinit { FT_Done_FreeType(handle) }
}

/// A readable phrase for a FreeType error code.
func freeTypeErrorPhrase(_ code: FT_Error) -> String {
    if let text = FT_Error_String(code) { return String(cString: text) }
    switch code {
    case 0x01: return "cannot open the file"
    case 0x02: return "unknown file format"
    case 0x03: return "broken file"
    case 0x06: return "invalid argument (is the face index within the file's face count?)"
    case 0x40: return "out of memory"
    default: return "FreeType error \(code)"
    }
}
