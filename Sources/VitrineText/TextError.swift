/// Why a font, a shaping request or a layout could not be made.
///
/// Every message names what was tried, on which file or family, and what to do about it.
public enum TextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// FreeType could not start (almost always out of memory).
    case freeTypeUnavailable(code: Int32)
    /// FreeType could not open the face `index` of the font file at `path`.
    case cannotOpenFont(path: String, index: Int, reason: String)
    /// HarfBuzz could not read the font file (it needs the raw OpenType tables).
    case cannotShapeFont(path: String, index: Int)
    /// fontconfig could not load its configuration.
    case fontconfigUnavailable
    /// fontconfig matched no font at all, not even the default family.
    case noFontFound(family: String)
    /// A font directory could not be added.
    case cannotAddFontDirectory(path: String)
    /// A font name such as `"DejaVu Sans:bold:italic"` could not be read.
    case invalidFontName(String, reason: String)
    /// An OpenType feature setting such as `"tnum"` or `"-kern"` could not be read.
    case invalidFeature(String)

    /// A stable identifier for the kind of error.
    public var code: String {
        switch self {
        case .freeTypeUnavailable: "freetype_unavailable"
        case .cannotOpenFont: "cannot_open_font"
        case .cannotShapeFont: "cannot_shape_font"
        case .fontconfigUnavailable: "fontconfig_unavailable"
        case .noFontFound: "no_font_found"
        case .cannotAddFontDirectory: "cannot_add_font_directory"
        case .invalidFontName: "invalid_font_name"
        case .invalidFeature: "invalid_feature"
        }
    }

    /// What went wrong and what to do.
    public var message: String {
        switch self {
        case .freeTypeUnavailable(let code):
            "FreeType could not be initialised (error \(code)) — the process is probably out of memory"
        case .cannotOpenFont(let path, let index, let reason):
            "\(path) (face \(index)): \(reason) — check that the file is a TrueType/OpenType font readable by the service user"
        case .cannotShapeFont(let path, let index):
            "\(path) (face \(index)): HarfBuzz cannot read the font tables — use a TrueType or OpenType font"
        case .fontconfigUnavailable:
            "fontconfig could not load its configuration — check /etc/fonts/fonts.conf and that the fontconfig package is installed"
        case .noFontFound(let family):
            "no font matches '\(family)' and the default family \(FontLibrary.defaultFamily) is missing too — install fonts-dejavu-core"
        case .cannotAddFontDirectory(let path):
            "\(path): fontconfig could not add this font directory — check that it exists and is readable"
        case .invalidFontName(let name, let reason):
            "'\(name)' is not a font name: \(reason) — write \"Family\", \"Family:bold\", \"Family:600:italic\""
        case .invalidFeature(let text):
            "'\(text)' is not an OpenType feature setting — write a four-letter tag such as \"tnum\", \"-liga\" or \"kern=0\""
        }
    }

    public var description: String { message }
}
