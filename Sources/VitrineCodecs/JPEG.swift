import CJPEG
import VitrineCore
import VitrineImage
import VitrineRaster

/// A libjpeg decompressor and its error manager, destroyed when dropped. Every libjpeg call
/// goes through the shim, which turns libjpeg's fatal errors into a return value and keeps
/// the message.
private final class JPEGDecompressor {
    var info = jpeg_decompress_struct()
    var error = vitrine_jpeg_error()
    /// The file's bytes: libjpeg reads from them until it is destroyed.
    let data: [UInt8]
    private var created = false

    init(_ data: [UInt8]) throws(ImageError) {
        self.data = data
        guard vitrine_jpeg_create(&info, &error) != 0 else { throw failure() }
        created = true
        let read = data.withUnsafeBufferPointer { vitrine_jpeg_read_header(&info, &error, $0.baseAddress, UInt($0.count)) }
        guard read != 0 else { throw failure() }
    }

    deinit { if created { jpeg_destroy_decompress(&info) } }

    /// libjpeg's message for the last error.
    func failure() -> ImageError {
        let message = withUnsafeBytes(of: &error.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return ImageError(.corrupt, "JPEG: " + (message.isEmpty ? "libjpeg failed" : message))
    }

    /// The EXIF orientation (1…8) from the APP1 marker; 1 when there is none.
    var orientation: Int {
        var length: UInt32 = 0
        guard let bytes = vitrine_jpeg_app1(&info, &length) else { return 1 }
        return EXIF.orientation(UnsafeBufferPointer(start: bytes, count: Int(length)))
    }
}

/// JPEG through libjpeg(-turbo): decoded at the smallest of its scales 1/8, 1/4, 1/2 and 1
/// that covers the size shown, EXIF orientation applied, CMYK converted.
enum JPEGDecoder {
    static func probe(_ data: [UInt8]) throws(ImageError) -> ImageProbe {
        let jpeg = try JPEGDecompressor(data)
        return ImageProbe(format: .jpeg, width: Int(jpeg.info.image_width), height: Int(jpeg.info.image_height), frames: 1)
    }

    /// The smallest of the scales 1/8, 1/4, 1/2 and 1 (n/8 for n in 1, 2, 4, 8) at which an
    /// image of `natural` pixels covers `target`. libjpeg-turbo has SIMD code for those
    /// scales only: at 3/8 or 6/8 it decodes slower than at 1/2 or even in full.
    static func eighths(for target: TargetSize, natural: Size) -> Int {
        for n in [1, 2, 4, 8] {
            let (w, h) = scaledSize(Int(natural.width), Int(natural.height), eighths: n)
            if w >= target.width, h >= target.height { return n }
        }
        return 8
    }

    /// libjpeg's output size at scale n/8: rounded up.
    static func scaledSize(_ width: Int, _ height: Int, eighths n: Int) -> (Int, Int) {
        ((width * n + 7) / 8, (height * n + 7) / 8)
    }

    static func decode(_ data: [UInt8], fitting target: TargetSize?, into frames: FrameAllocator) throws(ImageError) -> Picture {
        let jpeg = try JPEGDecompressor(data)
        let width = Int(jpeg.info.image_width), height = Int(jpeg.info.image_height)
        let orientation = jpeg.orientation
        let swaps = orientation >= 5
        // The target is for the picture as shown, which is turned for orientations 5–8.
        let aim = target.map { swaps ? TargetSize(width: $0.height, height: $0.width) : $0 }
        let n = aim.map { eighths(for: $0, natural: Size(width: Double(width), height: Double(height))) } ?? 8
        let cmyk = jpeg.info.jpeg_color_space == JCS_CMYK || jpeg.info.jpeg_color_space == JCS_YCCK
        // libjpeg-turbo writes 0xAARRGGBB words in memory order with alpha 0xFF.
        let space = cmyk ? JCS_CMYK : (UInt32(1).littleEndian == 1 ? JCS_EXT_BGRX : JCS_EXT_XRGB)
        guard vitrine_jpeg_start(&jpeg.info, &jpeg.error, UInt32(n), space) != 0 else { throw jpeg.failure() }
        // (turned, it is decoded on the heap and turned into the frame)
        let upright = !(2...8).contains(orientation)
        let (outputWidth, outputHeight) = (Int(jpeg.info.output_width), Int(jpeg.info.output_height))
        let surface = upright ? try frames.surface(width: outputWidth, height: outputHeight) : Surface(width: outputWidth, height: outputHeight)
        let read = vitrine_jpeg_read_all(
            &jpeg.info, &jpeg.error, UnsafeMutableRawPointer(surface.pixels).assumingMemoryBound(to: UInt8.self), surface.stride * 4)
        guard read != 0 else { throw jpeg.failure() }
        if cmyk { convertCMYK(surface, inverted: jpeg.info.saw_Adobe_marker != 0) }
        let natural = swaps ? Size(width: Double(height), height: Double(width)) : Size(width: Double(width), height: Double(height))
        return Picture(still: upright ? surface : try surface.oriented(orientation, into: frames), naturalSize: natural, format: .jpeg, scaling: .upToNatural)
    }

    /// CMYK bytes (Adobe's inverted ones when `inverted`) to opaque RGB, in place.
    private static func convertCMYK(_ surface: Surface, inverted: Bool) {
        for y in 0..<surface.height {
            let row = UnsafeMutableRawPointer(surface.pixels + y * surface.stride).assumingMemoryBound(to: UInt8.self)
            for x in 0..<surface.width {
                let p = row + 4 * x
                var (c, m, yellow, k) = (UInt32(p[0]), UInt32(p[1]), UInt32(p[2]), UInt32(p[3]))
                if !inverted { (c, m, yellow, k) = (255 - c, 255 - m, 255 - yellow, 255 - k) }
                let r = c * k / 255, g = m * k / 255, b = yellow * k / 255
                surface.pixels[y * surface.stride + x] = 0xFF00_0000 | r << 16 | g << 8 | b
            }
        }
    }
}

/// The orientation tag of an EXIF block.
enum EXIF {
    /// The orientation (1…8) in `app1` (an APP1 marker's data: "Exif\0\0" and a TIFF
    /// header); 1 when it has none or cannot be read.
    static func orientation(_ app1: UnsafeBufferPointer<UInt8>) -> Int {
        let tiff = 6
        guard app1.count >= tiff + 8, app1.prefix(6).elementsEqual([0x45, 0x78, 0x69, 0x66, 0, 0]) else { return 1 }
        let little = app1[tiff] == 0x49
        guard little || app1[tiff] == 0x4D else { return 1 }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= app1.count else { return nil }
            return little ? Int(app1[at]) | Int(app1[at + 1]) << 8 : Int(app1[at]) << 8 | Int(app1[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(tiff + 4), let count = u16(tiff + ifd) else { return 1 }
        for i in 0..<count {
            let entry = tiff + ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return 1 }
            if tag == 0x0112, let value = u16(entry + 8), (1...8).contains(value) { return value }
        }
        return 1
    }
}

extension Surface {
    /// The surface as EXIF `orientation` (2…8) says it is shown, mirrored, turned, or both,
    /// in a frame from `frames`.
    func oriented(_ orientation: Int, into frames: FrameAllocator) throws(ImageError) -> Surface {
        let w = width, h = height
        let swaps = orientation >= 5
        let out = try frames.surface(width: swaps ? h : w, height: swaps ? w : h)
        for y in 0..<out.height {
            let dst = out.pixels + y * out.stride
            for x in 0..<out.width {
                let (sx, sy): (Int, Int) =
                    switch orientation {
                    case 2: (w - 1 - x, y)
                    case 3: (w - 1 - x, h - 1 - y)
                    case 4: (x, h - 1 - y)
                    case 5: (y, x)
                    case 6: (y, h - 1 - x)
                    case 7: (w - 1 - y, h - 1 - x)
                    default: (w - 1 - y, x)
                    }
                dst[x] = pixels[sy * stride + sx]
            }
        }
        return out
    }
}
