import VitrineCodecs
import CJPEG
import Foundation
import VitrineImage

// vitrine-bench image: decoding a 24-megapixel (6000×4000) JPEG whole, and for a 1080p
// screen (libjpeg-turbo's scaled decoding at 1/2, 3000×2000), as the daemon decodes one it
// shows there; and at each of the scales 1/8, 1/4 and 1/2. The JPEG is made here with
// libjpeg at quality 90 from a picture with detail at every scale (gradients crossed with
// a fine pattern), so that it is not cheap to decode.

func runImageBenchmarks(_ arguments: [String]) {
    runImageFrameBenchmarks(arguments)
    let runs = arguments.contains("--quick") ? 3 : 7
    let jpeg = makeJPEG(width: 6000, height: 4000)
    func median(_ target: TargetSize?) -> (ms: Double, width: Int, height: Int) {
        var width = 0, height = 0
        let times = (0..<runs).map { _ in
            let start = DispatchTime.now().uptimeNanoseconds
            let picture = try! ImageDecoder.decode(jpeg, fitting: target, byteLimit: 1 << 30)
            (width, height) = (picture.frames[0].width, picture.frames[0].height)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }.sorted()
        return (times[runs / 2], width, height)
    }
    let full = median(nil)
    let fitted = median(TargetSize(width: 1920, height: 1080))
    for n in [1, 2, 4] {
        let scaled = median(TargetSize(width: 6000 * n / 8, height: 4000 * n / 8))
        print(
            "{\"bench\":\"image.jpeg_decode_scale\",\"eighths\":\(n),\"ms\":\(String(format: "%.1f", scaled.ms)),\"size\":\"\(scaled.width)x\(scaled.height)\"}"
        )
    }
    print(
        "{\"bench\":\"image.jpeg_decode\",\"source\":\"6000x4000\",\"file_bytes\":\(jpeg.count),\"runs\":\(runs),\"full_ms\":\(String(format: "%.1f", full.ms)),\"full_size\":\"\(full.width)x\(full.height)\",\"fitted_1080p_ms\":\(String(format: "%.1f", fitted.ms)),\"fitted_size\":\"\(fitted.width)x\(fitted.height)\",\"ratio\":\(String(format: "%.2f", full.ms / fitted.ms))}"
    )
    runImageFirstFrameBenchmarks(arguments)
}

/// A `width`×`height` JPEG of quality 90 with detail everywhere.
func makeJPEG(width: Int, height: Int) -> [UInt8] {
    var rgb = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let i = 3 * (y * width + x)
            rgb[i] = UInt8(x * 255 / width)
            rgb[i + 1] = UInt8(y * 255 / height)
            rgb[i + 2] = UInt8(truncatingIfNeeded: (x &* 7) ^ (y &* 13))
        }
    }
    var error = vitrine_jpeg_error()
    var size: UInt = 0
    guard let data = rgb.withUnsafeBufferPointer({ vitrine_jpeg_encode_rgb($0.baseAddress, Int32(width), Int32(height), width * 3, 90, nil, 0, &error, &size) })
    else {
        FileHandle.standardError.write(Data("vitrine-bench image: libjpeg cannot encode the picture\n".utf8))
        exit(1)
    }
    defer { free(data) }
    return Array(UnsafeBufferPointer(start: data, count: Int(size)))
}
