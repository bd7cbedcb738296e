import CFontconfig
import Glibc

/// Owns a private fontconfig configuration: the system fonts plus directories added with
/// `addFontDirectory`, without touching the process-wide default configuration.
final class FontconfigConfig {
    let handle: OpaquePointer

    init() throws(TextError) {
        guard let config = FcInitLoadConfigAndFonts() else { throw .fontconfigUnavailable }
        handle = config
    }

    deinit { FcConfigDestroy(handle) }

    func addFontDirectory(_ path: String) throws(TextError) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, access(path, R_OK | X_OK) == 0
        else { throw .cannotAddFontDirectory(path: path) }
        let added = withFcString(path) { FcConfigAppFontAddDir(handle, $0) }
        guard added != 0 else { throw .cannotAddFontDirectory(path: path) }
    }

    /// The best font for `pattern` after the configuration's substitutions.
    func match(_ pattern: FontconfigPattern) -> FontconfigPattern? {
        prepare(pattern)
        var result = FcResultNoMatch
        guard let matched = FcFontMatch(handle, pattern.handle, &result), result == FcResultMatch else { return nil }
        return FontconfigPattern(owning: matched)
    }

    /// All fonts in order of preference for `pattern`, trimmed to those that add coverage.
    func sort(_ pattern: FontconfigPattern) -> FontconfigFontSet? {
        prepare(pattern)
        var result = FcResultNoMatch
        guard let set = FcFontSort(handle, pattern.handle, 1, nil, &result) else { return nil }
        return FontconfigFontSet(owning: set)
    }

    /// The synthetic style fontconfig's rules give `entry` (of a sort for `pattern`) when
    /// it stands for `pattern`.
    func synthetic(for pattern: FontconfigPattern, _ entry: FontconfigEntry) -> SyntheticStyle {
        guard let prepared = FcFontRenderPrepare(handle, pattern.handle, entry.pattern) else { return .none }
        return FontconfigPattern(owning: prepared).synthetic
    }

    private func prepare(_ pattern: FontconfigPattern) {
        guard !pattern.isPrepared else { return }
        FcConfigSubstitute(handle, pattern.handle, FcMatchPattern)
        FcDefaultSubstitute(pattern.handle)
        pattern.isPrepared = true
    }
}

/// Owns an `FcPattern`.
final class FontconfigPattern {
    let handle: OpaquePointer
    var isPrepared = false

    /// A query for `family` at an OpenType `weight` (1…1000) and slant.
    init(family: String, weight: Int, italic: Bool) {
        handle = FcPatternCreate()
        _ = withFcString(family) { FcPatternAddString(handle, FC_FAMILY, $0) }
        _ = FcPatternAddInteger(handle, FC_WEIGHT, FcWeightFromOpenType(Int32(weight)))
        _ = FcPatternAddInteger(handle, FC_SLANT, italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
    }

    init(owning handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { FcPatternDestroy(handle) }

    var file: String? { string(FC_FILE) }
    var index: Int { integer(FC_INDEX) ?? 0 }
    var families: [String] { fontconfigStrings(handle, FC_FAMILY) }

    /// The bold and slant fontconfig's rules ask to synthesize for this match
    /// (`embolden`, and the shear of `matrix`).
    var synthetic: SyntheticStyle {
        var embolden: FcBool = 0
        var matrix: UnsafeMutablePointer<FcMatrix>?
        let bold = FcPatternGetBool(handle, FC_EMBOLDEN, 0, &embolden) == FcResultMatch && embolden != 0
        let shear = FcPatternGetMatrix(handle, FC_MATRIX, 0, &matrix) == FcResultMatch ? matrix?.pointee.xy ?? 0 : 0
        return SyntheticStyle(embolden: bold, shear: shear)
    }

    private func string(_ object: String) -> String? { fontconfigStrings(handle, object).first }

    private func integer(_ object: String) -> Int? {
        var value: Int32 = 0
        return FcPatternGetInteger(handle, object, 0, &value) == FcResultMatch ? Int(value) : nil
    }
}

/// Owns an `FcFontSet` returned by a sort; its patterns live as long as it does.
final class FontconfigFontSet {
    let handle: UnsafeMutablePointer<FcFontSet>

    init(owning handle: UnsafeMutablePointer<FcFontSet>) {
        self.handle = handle
    }

    deinit { FcFontSetDestroy(handle) }

    /// The fonts of the set: file, face index and the characters they cover.
    var entries: [FontconfigEntry] {
        let count = Int(handle.pointee.nfont)
        guard count > 0, let fonts = handle.pointee.fonts else { return [] }
        return (0..<count).compactMap { i -> FontconfigEntry? in
            guard let pattern = fonts[i] else { return nil }
            var file: UnsafeMutablePointer<FcChar8>?
            guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
            var index: Int32 = 0
            _ = FcPatternGetInteger(pattern, FC_INDEX, 0, &index)
            var charset: OpaquePointer?
            _ = FcPatternGetCharSet(pattern, FC_CHARSET, 0, &charset)
            return FontconfigEntry(
                path: String(cString: file), index: Int(index),
                families: fontconfigStrings(pattern, FC_FAMILY), charset: charset, pattern: pattern)
        }
    }
}

/// One font of a sorted set. `charset` and `pattern` belong to the set: keep it alive.
struct FontconfigEntry {
    let path: String
    let index: Int
    let families: [String]
    let charset: OpaquePointer?
    let pattern: OpaquePointer

    func covers(_ scalar: Unicode.Scalar) -> Bool {
        guard let charset else { return false }
        return FcCharSetHasChar(charset, scalar.value) != 0
    }
}

private func fontconfigStrings(_ pattern: OpaquePointer, _ object: String) -> [String] {
    var values: [String] = []
    var n: Int32 = 0
    var value: UnsafeMutablePointer<FcChar8>?
    while FcPatternGetString(pattern, object, n, &value) == FcResultMatch, let v = value {
        values.append(String(cString: v))
        n += 1
    }
    return values
}

private func withFcString<R>(_ text: String, _ body: (UnsafePointer<FcChar8>) -> R) -> R {
    text.withCString { $0.withMemoryRebound(to: FcChar8.self, capacity: text.utf8.count + 1, body) }
}
