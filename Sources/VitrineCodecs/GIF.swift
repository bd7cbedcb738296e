import CGIF
import VitrineCore
import VitrineImage
import VitrineRaster

/// What giflib reads from: a file's bytes and how far it has got.
private final class GIFSource {
    let data: [UInt8]
    var offset = 0
    /// A read asked for more than was left.
    var ranOut = false

    init(_ data: [UInt8]) { self.data = data }
}

/// A giflib decoder over a file's bytes, slurped whole, closed when dropped.
private final class GIFFile {
    let file: UnsafeMutablePointer<GifFileType>
    private let source: GIFSource

    init(_ data: [UInt8]) throws(ImageError) {
        source = GIFSource(data)
        var error: Int32 = 0
        let opened = DGifOpen(
            Unmanaged.passUnretained(source).toOpaque(),
            { file, buffer, count in
                guard let file, let buffer, count > 0 else { return 0 }
                let source = Unmanaged<GIFSource>.fromOpaque(file.pointee.UserData).takeUnretainedValue()
                let n = min(Int(count), source.data.count - source.offset)
                if n < Int(count) { source.ranOut = true }
                guard n > 0 else { return 0 }
                source.data.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + source.offset, count: n) }
                source.offset += n
                return Int32(n)
            }, &error)
        guard let opened else { throw Self.failure(error, source) }
        file = opened
        guard DGifSlurp(file) == GIF_OK else { throw Self.failure(file.pointee.Error, source) }
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(file, &error)
    }

    private static func failure(_ code: Int32, _ source: GIFSource) -> ImageError {
        let reason = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        let end = source.ranOut ? "; the file ends early (truncated at byte \(source.data.count))" : ""
        return ImageError(.corrupt, "GIF: giflib says \(reason)\(end)")
    }
}

/// GIF through giflib: every frame composed on the logical screen as the file says
/// (transparency, disposal to background or to the previous picture), with its delay and
/// the NETSCAPE2.0 loop count.
enum GIFDecoder {
    /// The logical screen's size (grown to cover any frame that reaches past it: giflib
    /// allocates each frame's pixels) and the frames counted by walking the file's blocks,
    /// decoding nothing.
    static func probe(_ data: [UInt8]) throws(ImageError) -> ImageProbe {
        guard data.count >= 13 else { throw ImageError(.corrupt, "GIF: the header is truncated (\(data.count) bytes)") }
        func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
        var width = u16(6), height = u16(8)
        var at = 13 + (data[10] & 0x80 != 0 ? 3 << (Int(data[10] & 7) + 1) : 0)
        var frames = 0
        func skipSubBlocks() {
            while at < data.count {
                let length = Int(data[at])
                at += 1 + length
                if length == 0 { return }
            }
        }
        walk: while at < data.count {
            switch data[at] {
            case 0x2C:
                guard at + 10 <= data.count else { break walk }
                let packed = data[at + 9]
                width = max(width, u16(at + 1) + u16(at + 5))
                height = max(height, u16(at + 3) + u16(at + 7))
                at += 10 + (packed & 0x80 != 0 ? 3 << (Int(packed & 7) + 1) : 0) + 1
                frames += 1
                skipSubBlocks()
            case 0x21:
                at += 2
                skipSubBlocks()
            default:
                break walk
            }
        }
        return ImageProbe(format: .gif, width: width, height: height, frames: max(1, frames))
    }

    static func decode(_ data: [UInt8], byteLimit: Int, into allocator: FrameAllocator) throws(ImageError) -> Picture {
        let gif = try GIFFile(data)
        let file = gif.file.pointee
        let width = Int(file.SWidth), height = Int(file.SHeight), count = Int(file.ImageCount)
        guard count > 0, width > 0, height > 0 else { throw ImageError(.corrupt, "GIF: there is no image in the file") }
        let probe = ImageProbe(format: .gif, width: width, height: height, frames: count)
        guard probe.fullBytes <= byteLimit else { throw ImageDecoder.tooLarge(probe, probe.fullBytes, byteLimit) }
        let canvas = Surface(width: width, height: height)
        var frames: [Surface] = [], durations: [Double] = []
        for i in 0..<count {
            let image = file.SavedImages[i]
            var control = GraphicsControlBlock(DisposalMode: DISPOSAL_UNSPECIFIED, UserInputFlag: false, DelayTime: 0, TransparentColor: NO_TRANSPARENT_COLOR)
            _ = DGifSavedExtensionToGCB(gif.file, Int32(i), &control)
            guard let colors = image.ImageDesc.ColorMap ?? file.SColorMap else {
                throw ImageError(.corrupt, "GIF: frame \(i + 1) has no colour table")
            }
            let area = PixelRect(
                x: Int(image.ImageDesc.Left), y: Int(image.ImageDesc.Top), width: Int(image.ImageDesc.Width), height: Int(image.ImageDesc.Height))
            let saved = control.DisposalMode == DISPOSE_PREVIOUS ? canvas.copy(area.intersection(canvas.bounds)) : nil
            draw(image, area: area, colors: colors.pointee, transparent: Int(control.TransparentColor), on: canvas)
            let frame = try allocator.surface(width: width, height: height)
            frame.copyPixels(from: canvas, x: 0, y: 0)
            frames.append(frame)
            durations.append(Double(control.DelayTime) / 100)
            let visible = area.intersection(canvas.bounds)
            if control.DisposalMode == DISPOSE_BACKGROUND {
                canvas.fill(visible, .transparent, mode: .source)
            } else if let saved {
                for y in 0..<saved.height {
                    (canvas.pixels + (visible.y + y) * canvas.stride + visible.x).update(from: saved.pixels + y * saved.stride, count: saved.width)
                }
            }
        }
        return Picture(frames: frames, durations: durations, plays: plays(file), format: .gif)
    }

    /// Paints a frame's opaque pixels onto the canvas.
    private static func draw(_ image: SavedImage, area: PixelRect, colors: ColorMapObject, transparent: Int, on canvas: Surface) {
        guard let bits = image.RasterBits else { return }
        let visible = area.intersection(canvas.bounds)
        guard !visible.isEmpty else { return }
        var palette = [UInt32](repeating: 0, count: 256)
        for c in 0..<min(256, Int(colors.ColorCount)) where c != transparent {
            let rgb = colors.Colors[c]
            palette[c] = 0xFF00_0000 | UInt32(rgb.Red) << 16 | UInt32(rgb.Green) << 8 | UInt32(rgb.Blue)
        }
        for y in visible.y..<visible.maxY {
            let source = bits + (y - area.y) * area.width - area.x, row = canvas.pixels + y * canvas.stride
            for x in visible.x..<visible.maxX {
                let index = Int(source[x])
                if palette[index] != 0 { row[x] = palette[index] }
            }
        }
    }

    /// Plays of the animation: once without a NETSCAPE2.0 block, for ever for its 0,
    /// otherwise its count of repetitions after the first play (as browsers read it).
    private static func plays(_ file: GifFileType) -> Int {
        var blocks: [(UnsafeMutablePointer<ExtensionBlock>?, Int)] = [(file.ExtensionBlocks, Int(file.ExtensionBlockCount))]
        for i in 0..<Int(file.ImageCount) { blocks.append((file.SavedImages[i].ExtensionBlocks, Int(file.SavedImages[i].ExtensionBlockCount))) }
        let names = [Array("NETSCAPE2.0".utf8), Array("ANIMEXTS1.0".utf8)]
        for case (let list?, let count) in blocks where count > 1 {
            for b in 0..<count - 1 where list[b].Function == APPLICATION_EXT_FUNC_CODE && list[b].ByteCount == 11 {
                let name = Array(UnsafeBufferPointer(start: list[b].Bytes, count: 11))
                let sub = list[b + 1]
                guard names.contains(name), sub.ByteCount >= 3, sub.Bytes[0] == 1 else { continue }
                let loops = Int(sub.Bytes[1]) | Int(sub.Bytes[2]) << 8
                return loops == 0 ? 0 : loops + 1
            }
        }
        return 1
    }
}
