import FoundationEssentials
import Glibc
import Synchronization

/// Finds fonts through fontconfig, opens them once and keeps them: the one place text
/// gets its faces and glyph masks from.
///
/// ```swift
/// let fonts = try FontLibrary()
/// let font = try fonts.font(for: FontDescriptor(family: "DejaVu Sans", weight: .bold))
/// let arabic = font.face(for: "م")   // the face that has the letter
/// ```
///
/// Not thread-safe: use one library per thread or actor (the compositor owns one).
public final class FontLibrary {
    /// The family used when the requested one is not installed.
    public static let defaultFamily = "DejaVu Sans"
    /// Family names that stand for whatever the system configures ("monospace" is DejaVu
    /// Sans Mono on Debian): their match is taken as found, not as a fallback.
    public static let genericFamilies: Set<String> = [
        "sans-serif", "sans", "serif", "monospace", "mono", "system-ui", "cursive", "fantasy", "emoji", "math",
    ]
    /// How many resolved fonts are kept before the memo starts afresh (clients choose
    /// font names, so the memo must not grow without bound).
    static let resolvedLimit = 256

    /// Rasterized glyphs, shared by every layout made with this library.
    public let glyphCache: GlyphCache

    private let store: FaceStore
    private let fontconfig: FontconfigConfig
    private var resolved: [FontDescriptor: ResolvedFont] = [:]

    /// Loads the system font configuration.
    /// - Parameter glyphCacheCapacity: how many glyph masks the cache keeps at most.
    public init(glyphCacheCapacity: Int = 4096) throws(TextError) {
        store = FaceStore(freeType: try FreeTypeLibrary())
        fontconfig = try FontconfigConfig()
        glyphCache = GlyphCache(capacity: glyphCacheCapacity)
    }

    /// Makes the fonts in `path` (searched recursively) available to later lookups.
    public func addFontDirectory(_ path: String) throws(TextError) {
        try fontconfig.addFontDirectory(path)
        resolved.removeAll()
    }

    /// The face `index` of the font file at `path`, opened once and cached; `synthetic`
    /// draws it emboldened or slanted.
    public func face(path: String, index: Int = 0, synthetic: SyntheticStyle = .none) throws(TextError) -> FontFace {
        try store.face(path: path, index: index, synthetic: synthetic)
    }

    /// The number of faces opened so far.
    public var openFaceCount: Int { store.count }

    /// The font for `descriptor`: the best installed face for its family, weight and
    /// style, with the fallback faces fontconfig suggests for characters it lacks.
    ///
    /// A family that is not installed resolves to `defaultFamily` at the same weight and
    /// style; `ResolvedFont.isFallback` tells.
    public func font(for descriptor: FontDescriptor) throws(TextError) -> ResolvedFont {
        if let font = resolved[descriptor] { return font }
        if resolved.count >= Self.resolvedLimit { resolved.removeAll() }
        var isFallback = false
        var match = matchPattern(descriptor)
        let wanted = descriptor.family.lowercased()
        let isGeneric = Self.genericFamilies.contains(wanted)
        if match == nil || !(isGeneric || match!.families.contains { $0.lowercased() == wanted }) {
            isFallback = true
            var fallback = descriptor
            fallback.family = Self.defaultFamily
            match = matchPattern(fallback) ?? match
        }
        guard let match, let file = match.file else { throw .noFontFound(family: descriptor.family) }
        let primary = try face(path: file, index: match.index, synthetic: match.synthetic)
        let family = isFallback ? Self.defaultFamily : isGeneric ? primary.familyName : descriptor.family
        let sortPattern = FontconfigPattern(
            family: family, weight: descriptor.weight.rawValue, italic: descriptor.style == .italic)
        let font = ResolvedFont(
            descriptor: descriptor, primary: primary, isFallback: isFallback,
            fallbacks: fontconfig.sort(sortPattern), store: store,
            synthetic: { [fontconfig] entry in fontconfig.synthetic(for: sortPattern, entry) })
        resolved[descriptor] = font
        return font
    }

    private func matchPattern(_ d: FontDescriptor) -> FontconfigPattern? {
        fontconfig.match(FontconfigPattern(family: d.family, weight: d.weight.rawValue, italic: d.style == .italic))
    }
}

/// A font as a text asks for it, resolved to faces: a primary face and, per character it
/// lacks, the first fallback face that has it.
public final class ResolvedFont {
    /// What was asked for.
    public let descriptor: FontDescriptor
    /// The face for the requested family, weight and style.
    public let primary: FontFace
    /// True when the requested family is not installed and the default family stands in.
    public let isFallback: Bool

    private let fallbackSet: FontconfigFontSet?
    private let fallbacks: [FontconfigEntry]
    private let store: FaceStore
    private let synthetic: (FontconfigEntry) -> SyntheticStyle
    private var chosen: [UInt32: FontFace] = [:]
    private var chosenForEmoji: [String: FontFace?] = [:]

    init(
        descriptor: FontDescriptor, primary: FontFace, isFallback: Bool, fallbacks: FontconfigFontSet?, store: FaceStore,
        synthetic: @escaping (FontconfigEntry) -> SyntheticStyle
    ) {
        self.descriptor = descriptor
        self.primary = primary
        self.isFallback = isFallback
        fallbackSet = fallbacks
        self.fallbacks = fallbacks?.entries ?? []
        self.store = store
        self.synthetic = synthetic
    }

    /// The face to draw `scalar` with: the primary face when it has the character, else
    /// the first fallback that does, else the primary face (which draws .notdef). A
    /// fallback lacking the weight or slant asked for is drawn with a synthetic one.
    public func face(for scalar: Unicode.Scalar) -> FontFace {
        if primary.hasGlyph(for: scalar) { return primary }
        if let face = chosen[scalar.value] { return face }
        var face = primary
        for entry in fallbacks where entry.covers(scalar) {
            if let candidate = try? store.face(path: entry.path, index: entry.index, synthetic: synthetic(entry)),
                candidate.hasGlyph(for: scalar)
            {
                face = candidate
                break
            }
        }
        if chosen.count >= 4096 { chosen.removeAll() }
        chosen[scalar.value] = face
        return face
    }

    /// The face to draw the emoji sequence `cluster` with, whole: the primary face or the
    /// first fallback that has colour glyphs and the sequence's first character; nil when
    /// none has (the sequence is then set character by character, as text).
    public func emojiFace(for cluster: ArraySlice<Unicode.Scalar>) -> FontFace? {
        guard let first = cluster.first else { return nil }
        let key = String(String.UnicodeScalarView(cluster))
        if let face = chosenForEmoji[key] { return face }
        var face: FontFace?
        if primary.hasColorGlyphs, primary.hasGlyph(for: first) {
            face = primary
        } else {
            for entry in fallbacks where entry.covers(first) {
                if let candidate = try? store.face(path: entry.path, index: entry.index), candidate.hasColorGlyphs,
                    candidate.hasGlyph(for: first)
                {
                    face = candidate
                    break
                }
            }
        }
        if chosenForEmoji.count >= 4096 { chosenForEmoji.removeAll() }
        chosenForEmoji[key] = face
        return face
    }

    /// The files fontconfig proposes as fallbacks, best first.
    public var fallbackPaths: [String] { fallbacks.map(\.path) }
}

/// Hands out face ids unique in the process, so that one glyph cache can serve faces
/// of several libraries.
enum FaceIdentity {
    private static let last = Atomic<Int>(0)

    static func next() -> Int {
        last.add(1, ordering: .relaxed).newValue
    }
}

/// The open faces by (path, face index), shared by a library and the fonts it resolved,
/// so that a font outlives its library safely.
final class FaceStore {
    private let freeType: FreeTypeLibrary
    private var faces: [Key: FontFace] = [:]

    private struct Key: Hashable {
        let path: String
        let index: Int
        let synthetic: SyntheticStyle
    }

    init(freeType: FreeTypeLibrary) {
        self.freeType = freeType
    }

    var count: Int { faces.count }

    func face(path: String, index: Int, synthetic: SyntheticStyle = .none) throws(TextError) -> FontFace {
        let key = Key(path: path, index: index, synthetic: synthetic)
        if let face = faces[key] { return face }
        let face = try FontFace(library: freeType, path: path, index: index, id: FaceIdentity.next(), synthetic: synthetic)
        faces[key] = face
        return face
    }
}
