import Glibc
import CGIF
import CJPEG
import CWebP
import VitrineRaster

/// Image files made at test time with the formats' own encoders (libjpeg, libwebp,
/// giflib), so that no binary fixture is committed.
public enum ImageFixtures {
    /// A `width`×`height` picture whose quadrants are red (top left), green (top right),
    /// blue (bottom left) and white (bottom right), opaque: which way up it is shows.
    public static func quadrants(width: Int, height: Int) -> Surface {
        let surface = Surface(width: width, height: height)
        surface.fill(PixelRect(x: 0, y: 0, width: width / 2, height: height / 2), PremultipliedColor(unchecked: 0xFFFF_0000))
        surface.fill(PixelRect(x: width / 2, y: 0, width: width - width / 2, height: height / 2), PremultipliedColor(unchecked: 0xFF00_FF00))
        surface.fill(PixelRect(x: 0, y: height / 2, width: width / 2, height: height - height / 2), PremultipliedColor(unchecked: 0xFF00_00FF))
        surface.fill(PixelRect(x: width / 2, y: height / 2, width: width - width / 2, height: height - height / 2), .white)
        return surface
    }

    /// A solid opaque picture of `argb`.
    public static func solid(_ argb: UInt32, width: Int, height: Int) -> Surface {
        let surface = Surface(width: width, height: height)
        surface.fill(surface.bounds, PremultipliedColor(unchecked: argb))
        return surface
    }

    /// `surface` (opaque) as a baseline JPEG, with an EXIF block saying `orientation` when
    /// given.
    public static func jpeg(_ surface: Surface, quality: Int = 95, orientation: Int? = nil) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: surface.width * surface.height * 3)
        for y in 0..<surface.height {
            for x in 0..<surface.width {
                let p = surface.pixels[y * surface.stride + x], i = 3 * (y * surface.width + x)
                (rgb[i], rgb[i + 1], rgb[i + 2]) = (UInt8(p >> 16 & 0xFF), UInt8(p >> 8 & 0xFF), UInt8(p & 0xFF))
            }
        }
        let exif: [UInt8] =
            orientation.map { o in
                Array("Exif".utf8) + [0, 0] + [0x49, 0x49, 42, 0, 8, 0, 0, 0] + [1, 0] + [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(o), 0, 0, 0] + [0, 0, 0, 0]
            } ?? []
        var error = vitrine_jpeg_error()
        var size: UInt = 0
        let data = rgb.withUnsafeBufferPointer { pixels in
            exif.withUnsafeBufferPointer { app1 in
                vitrine_jpeg_encode_rgb(
                    pixels.baseAddress, Int32(surface.width), Int32(surface.height), surface.width * 3, Int32(quality), app1.baseAddress, UInt32(app1.count),
                    &error, &size)
            }
        }
        guard let data else { fatalError("libjpeg cannot encode the fixture") }
        defer { free(data) }
        return Array(UnsafeBufferPointer(start: data, count: Int(size)))
    }

    /// Straight RGBA bytes of a surface, rows packed.
    private static func straightRGBA(_ surface: Surface) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: surface.width * surface.height * 4)
        for y in 0..<surface.height {
            for x in 0..<surface.width {
                let s = PremultipliedColor(unchecked: surface.pixels[y * surface.stride + x]).straightBytes, i = 4 * (y * surface.width + x)
                (bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]) = (s.red, s.green, s.blue, s.alpha)
            }
        }
        return bytes
    }

    /// `surface` as a lossless still WebP.
    public static func webp(_ surface: Surface) -> [UInt8] {
        let rgba = straightRGBA(surface)
        var output: UnsafeMutablePointer<UInt8>?
        let size = rgba.withUnsafeBufferPointer {
            WebPEncodeLosslessRGBA($0.baseAddress, Int32(surface.width), Int32(surface.height), Int32(surface.width * 4), &output)
        }
        guard size > 0, let output else { fatalError("libwebp cannot encode the fixture") }
        defer { WebPFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// `frames` (all one size) as a lossless animated WebP, each shown for its number of
    /// milliseconds, played `loops` times (0: for ever).
    public static func animatedWebP(_ frames: [Surface], milliseconds: [Int], loops: Int = 0) -> [UInt8] {
        var options = WebPAnimEncoderOptions()
        _ = vitrine_webp_anim_encoder_options_init(&options)
        options.anim_params.loop_count = Int32(loops)
        options.allow_mixed = 0
        options.minimize_size = 0
        options.kmin = 0
        options.kmax = 0
        let width = frames[0].width, height = frames[0].height
        guard let encoder = vitrine_webp_anim_encoder_new(Int32(width), Int32(height), &options) else { fatalError("no WebP animation encoder") }
        defer { WebPAnimEncoderDelete(encoder) }
        var config = WebPConfig()
        _ = vitrine_webp_config_init(&config)
        config.lossless = 1
        var timestamp: Int32 = 0
        for (frame, ms) in zip(frames, milliseconds) {
            var picture = WebPPicture()
            _ = vitrine_webp_picture_init(&picture)
            picture.width = Int32(width)
            picture.height = Int32(height)
            picture.use_argb = 1
            let rgba = straightRGBA(frame)
            _ = rgba.withUnsafeBufferPointer { WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(width * 4)) }
            guard WebPAnimEncoderAdd(encoder, &picture, timestamp, &config) != 0 else { fatalError("WebP animation frame refused") }
            WebPPictureFree(&picture)
            timestamp += Int32(ms)
        }
        _ = WebPAnimEncoderAdd(encoder, nil, timestamp, nil)
        var data = WebPData()
        guard WebPAnimEncoderAssemble(encoder, &data) != 0 else { fatalError("WebP animation not assembled") }
        defer { WebPFree(UnsafeMutableRawPointer(mutating: data.bytes)) }
        return Array(UnsafeBufferPointer(start: data.bytes, count: data.size))
    }

    /// One frame of a GIF made by `gif`.
    public struct GIFFrame {
        public var rect: PixelRect
        /// Palette indices, row by row.
        public var indices: [UInt8]
        /// Centiseconds.
        public var delay: Int
        /// 0 unspecified, 1 keep, 2 to background, 3 to previous.
        public var disposal: Int
        /// The transparent index, or nil.
        public var transparent: Int?

        public init(rect: PixelRect, indices: [UInt8], delay: Int, disposal: Int = 1, transparent: Int? = nil) {
            (self.rect, self.indices, self.delay, self.disposal, self.transparent) = (rect, indices, delay, disposal, transparent)
        }

        /// A frame filling `rect` with one index.
        public init(rect: PixelRect, index: UInt8, delay: Int, disposal: Int = 1, transparent: Int? = nil) {
            self.init(
                rect: rect, indices: [UInt8](repeating: index, count: rect.width * rect.height), delay: delay, disposal: disposal, transparent: transparent)
        }
    }

    /// A GIF89a of `frames` on a `width`×`height` screen with a global `palette` (0xRRGGBB,
    /// a power of two entries), with a NETSCAPE2.0 loop count when `loops` is given.
    public static func gif(width: Int, height: Int, palette: [UInt32], frames: [GIFFrame], loops: Int? = 0) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var error: Int32 = 0
        guard
            let gif = EGifOpen(
                Unmanaged.passUnretained(sink).toOpaque(),
                { file, bytes, count in
                    guard let file, let bytes else { return 0 }
                    Unmanaged<Sink>.fromOpaque(file.pointee.UserData).takeUnretainedValue().bytes += UnsafeBufferPointer(start: bytes, count: Int(count))
                    return count
                }, &error)
        else { fatalError("giflib cannot open an encoder") }
        EGifSetGifVersion(gif, true)
        var colors = palette.map { GifColorType(Red: UInt8($0 >> 16 & 0xFF), Green: UInt8($0 >> 8 & 0xFF), Blue: UInt8($0 & 0xFF)) }
        let map = GifMakeMapObject(Int32(colors.count), &colors)
        defer { GifFreeMapObject(map) }
        guard EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, map) == GIF_OK else { fatalError("GIF screen") }
        if let loops {
            EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE)
            var name = Array("NETSCAPE2.0".utf8)
            EGifPutExtensionBlock(gif, 11, &name)
            var count: [UInt8] = [1, UInt8(loops & 0xFF), UInt8(loops >> 8)]
            EGifPutExtensionBlock(gif, 3, &count)
            EGifPutExtensionTrailer(gif)
        }
        for frame in frames {
            var control = GraphicsControlBlock(
                DisposalMode: Int32(frame.disposal), UserInputFlag: false, DelayTime: Int32(frame.delay), TransparentColor: Int32(frame.transparent ?? -1))
            var extensionBytes = [UInt8](repeating: 0, count: 4)
            let length = EGifGCBToExtension(&control, &extensionBytes)
            EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), &extensionBytes)
            EGifPutImageDesc(gif, Int32(frame.rect.x), Int32(frame.rect.y), Int32(frame.rect.width), Int32(frame.rect.height), false, nil)
            var indices = frame.indices
            for y in 0..<frame.rect.height {
                indices.withUnsafeMutableBufferPointer { _ = EGifPutLine(gif, $0.baseAddress! + y * frame.rect.width, Int32(frame.rect.width)) }
            }
        }
        guard EGifCloseFile(gif, &error) == GIF_OK else { fatalError("giflib cannot finish the fixture: \(error)") }
        return sink.bytes
    }

    /// One small file of each format the decoders read, by a file name that says which:
    /// a PNG, a JPEG and a WebP of 48×32 quadrants, a JPEG of them turned by EXIF, an
    /// animated WebP and GIF of two frames, an SVG of 40×20.
    public static func everyFormat() throws -> [(name: String, bytes: [UInt8])] {
        let quadrants = quadrants(width: 48, height: 32)
        let frames = [solid(0xFFFF_0000, width: 8, height: 8), solid(0xFF00_00FF, width: 8, height: 8)]
        let whole = PixelRect(x: 0, y: 0, width: 4, height: 4)
        return [
            ("q.png", try quadrants.pngData()), ("q.jpg", jpeg(quadrants)), ("turned.jpg", jpeg(quadrants, orientation: 6)),
            ("q.webp", webp(quadrants)), ("a.webp", animatedWebP(frames, milliseconds: [100, 200])),
            (
                "a.gif",
                gif(
                    width: 4, height: 4, palette: [0xFFFF_0000, 0xFF00_FF00],
                    frames: [.init(rect: whole, index: 0, delay: 10), .init(rect: whole, index: 1, delay: 20)])
            ),
            (
                "s.svg",
                Array(
                    #"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><rect width="20" height="20" fill="red"/><circle cx="30" cy="10" r="8" fill="blue"/></svg>"#
                        .utf8)
            ),
        ]
    }

    /// A 100 000 × 100 000 PNG header (signature and IHDR, a correct CRC), and nothing else:
    /// a decompression bomb's claim.
    public static func hugePNGHeader(width: UInt32 = 100_000, height: UInt32 = 100_000) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let chunk = Array("IHDR".utf8) + be(width) + be(height) + [8, 6, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be(13) + chunk + be(crc32(chunk))
    }

    /// A GIF header claiming `width`×`height` (at most 65 535 a side), one empty frame.
    public static func hugeGIFHeader(width: Int = 65_535, height: Int = 65_535) -> [UInt8] {
        Array("GIF89a".utf8) + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0, 0, 0]
            + [0x2C, 0, 0, 0, 0, UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), 0, 2, 0, 0x3B]
    }

    /// The CRC-32 PNG chunks end with.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        return ~crc
    }
}
