import CQREncode
import VitrineSystem

/// A QR code's modules, made by libqrencode (bound when the first code is made).
///
/// ```swift
/// let code = try QRCode(encoding: "4f1c…")
/// code.size            // 25: modules on a side, without the quiet zone
/// code.isDark(x: 0, y: 0)  // true: the top-left finder pattern
/// ```
public struct QRCode: Sendable, Equatable {
    /// Modules on a side (21 for version 1, 4 more per version), without the quiet zone.
    public let size: Int
    /// Row by row, whether each module is dark.
    private let modules: [Bool]
    /// The modules of light margin a reader needs around the code (ISO/IEC 18004).
    public static let quietZone = 4
    /// libqrencode, opened when the first code is made.
    static let library = FeatureLibraries("the identification screen's QR code", vitrine_qrencode_load)

    /// The smallest code of `text`'s bytes with error correction level M (15 % of the code
    /// may be lost).
    ///
    /// - Throws: `SystemError` when libqrencode cannot be opened (naming the package to
    ///   install) or the text does not fit in a QR code (2 331 bytes at level M).
    public init(encoding text: String) throws(SystemError) {
        try Self.library.load()
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else {
            throw SystemError("a QR code cannot hold \(text.utf8.count) bytes")
        }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        modules = (0..<size * size).map { code.pointee.data[$0] & 1 != 0 }
    }

    /// Whether the module in column `x`, row `y` is dark.
    public func isDark(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The dark modules as SVG path data of whole-pixel squares `module` pixels wide,
    /// the first module's corner at (`origin`, `origin`): each row's runs of dark modules
    /// as one rectangle, so a shape layer fills them with crisp edges.
    public func pathData(module: Int, origin: Int) -> String {
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while x < size, isDark(x: x, y: y) { x += 1 }
                path += "M\(origin + start * module) \(origin + y * module)h\((x - start) * module)v\(module)h-\((x - start) * module)z"
            }
        }
        return path
    }
}
