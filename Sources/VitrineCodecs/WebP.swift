import CWebP
import VitrineCore
import VitrineImage
import VitrineRaster

/// libwebp's demuxer over a file's bytes, deleted when dropped.
private final class WebPContainer {
    let data: [UInt8]
    let demuxer: OpaquePointer
    let frames: Int

    init(_ data: [UInt8]) throws(ImageError) {
        self.data = data
        var state = WEBP_DEMUX_PARSE_ERROR
        let demuxer = data.withUnsafeBufferPointer { buffer in
            var bytes = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            return vitrine_webp_demux_partial(&bytes, &state)
        }
        guard let demuxer else { throw ImageError(.corrupt, "WebP: the container is corrupt (libwebp's demuxer refused it)") }
        guard state == WEBP_DEMUX_DONE else {
            WebPDemuxDelete(demuxer)
            throw ImageError(.corrupt, "WebP: the file is truncated (libwebp's demuxer found its end missing)")
        }
        self.demuxer = demuxer
        frames = Int(WebPDemuxGetI(demuxer, WEBP_FF_FRAME_COUNT))
    }

    deinit { WebPDemuxDelete(demuxer) }

    var width: Int { Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_WIDTH)) }
    var height: Int { Int(WebPDemuxGetI(demuxer, WEBP_FF_CANVAS_HEIGHT)) }
}

/// libwebp's animation decoder, deleted when dropped.
private final class WebPAnimation {
    let decoder: OpaquePointer

    init(_ container: WebPContainer) throws(ImageError) {
        var options = WebPAnimDecoderOptions()
        _ = vitrine_webp_anim_decoder_options_init(&options)
        options.color_mode = WebPDecoder.premultipliedMode
        options.use_threads = 0
        let decoder = container.data.withUnsafeBufferPointer { buffer in
            var bytes = WebPData(bytes: buffer.baseAddress, size: buffer.count)
            return vitrine_webp_anim_decoder_new(&bytes, &options)
        }
        guard let decoder else { throw ImageError(.corrupt, "WebP: libwebp cannot decode the animation (corrupt frame data)") }
        self.decoder = decoder
    }

    deinit { WebPAnimDecoderDelete(decoder) }
}

/// WebP through libwebp: a still decoded by libwebp's scaler at the size shown, an
/// animation (libwebpdemux) at full size with each frame's duration and the loop count.
enum WebPDecoder {
    /// Premultiplied bytes in the memory order of 0xAARRGGBB words.
    static let premultipliedMode = UInt32(1).littleEndian == 1 ? MODE_bgrA : MODE_Argb

    static func probe(_ data: [UInt8]) throws(ImageError) -> ImageProbe {
        let container = try WebPContainer(data)
        return ImageProbe(format: .webp, width: container.width, height: container.height, frames: max(1, container.frames))
    }

    static func decode(_ data: [UInt8], fitting target: TargetSize?, byteLimit: Int, into frames: FrameAllocator) throws(ImageError) -> Picture {
        let container = try WebPContainer(data)
        if container.frames > 1 { return try decodeAnimation(container, byteLimit: byteLimit, into: frames) }
        return try decodeStill(data, fitting: target, into: frames)
    }

    private static func decodeStill(_ data: [UInt8], fitting target: TargetSize?, into frames: FrameAllocator) throws(ImageError) -> Picture {
        var config = WebPDecoderConfig()
        guard vitrine_webp_init_decoder_config(&config) != 0 else { throw ImageError(.corrupt, "WebP: libwebp's version does not match its header") }
        var status = data.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &config.input) }
        guard status == VP8_STATUS_OK else { throw failure(status) }
        let natural = Size(width: Double(config.input.width), height: Double(config.input.height))
        var width = Int(config.input.width), height = Int(config.input.height)
        if let target {
            let s = target.scale(covering: natural)
            if s < 1 {
                (width, height) = (max(1, Int((natural.width * s).rounded(.up))), max(1, Int((natural.height * s).rounded(.up))))
                config.options.use_scaling = 1
                config.options.scaled_width = Int32(width)
                config.options.scaled_height = Int32(height)
            }
        }
        let surface = try frames.surface(width: width, height: height)
        config.output.colorspace = premultipliedMode
        config.output.is_external_memory = 1
        config.output.u.RGBA.rgba = UnsafeMutableRawPointer(surface.pixels).assumingMemoryBound(to: UInt8.self)
        config.output.u.RGBA.stride = Int32(surface.stride * 4)
        config.output.u.RGBA.size = surface.stride * 4 * height
        status = data.withUnsafeBufferPointer { WebPDecode($0.baseAddress, $0.count, &config) }
        WebPFreeDecBuffer(&config.output)
        guard status == VP8_STATUS_OK else { throw failure(status) }
        return Picture(still: surface, naturalSize: natural, format: .webp, scaling: .upToNatural)
    }

    private static func decodeAnimation(_ container: WebPContainer, byteLimit: Int, into allocator: FrameAllocator) throws(ImageError) -> Picture {
        let animation = try WebPAnimation(container)
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(animation.decoder, &info) != 0 else { throw ImageError(.corrupt, "WebP: libwebp cannot read the animation's header") }
        let width = Int(info.canvas_width), height = Int(info.canvas_height), count = Int(info.frame_count)
        let probe = ImageProbe(format: .webp, width: width, height: height, frames: count)
        guard probe.fullBytes <= byteLimit else { throw ImageDecoder.tooLarge(probe, probe.fullBytes, byteLimit) }
        var frames: [Surface] = [], durations: [Double] = []
        var previous: Int32 = 0
        while WebPAnimDecoderHasMoreFrames(animation.decoder) != 0 {
            var buffer: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(animation.decoder, &buffer, &timestamp) != 0, let buffer else {
                throw ImageError(.corrupt, "WebP: libwebp cannot decode frame \(frames.count + 1) of \(count) (corrupt or truncated)")
            }
            let frame = try allocator.surface(width: width, height: height)
            UnsafeRawPointer(buffer).withMemoryRebound(to: UInt32.self, capacity: width * height) { canvas in
                for y in 0..<height { (frame.pixels + y * frame.stride).update(from: canvas + y * width, count: width) }
            }
            frames.append(frame)
            durations.append(Double(timestamp - previous) / 1000)
            previous = timestamp
        }
        guard !frames.isEmpty else { throw ImageError(.corrupt, "WebP: the animation has no frames") }
        return Picture(frames: frames, durations: durations, plays: Int(info.loop_count), format: .webp)
    }

    private static func failure(_ status: VP8StatusCode) -> ImageError {
        let reason =
            switch status {
            case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
            case VP8_STATUS_INVALID_PARAM: "invalid parameter"
            case VP8_STATUS_BITSTREAM_ERROR: "bitstream error (corrupt data)"
            case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
            case VP8_STATUS_SUSPENDED: "decoding suspended"
            case VP8_STATUS_USER_ABORT: "decoding aborted"
            case VP8_STATUS_NOT_ENOUGH_DATA: "not enough data (the file is truncated)"
            default: "status \(status.rawValue)"
            }
        return ImageError(.corrupt, "WebP: libwebp says \(reason)")
    }
}
