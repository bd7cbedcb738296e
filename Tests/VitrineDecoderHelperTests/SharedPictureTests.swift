import Foundation
import Glibc
import Logging
import Testing
import VitrineCodecs
import VitrineDecoderHelper
import VitrineImage
import VitrineProtocol
import VitrineRaster
import VitrineSystem
import VitrineTestSupport

/// Pictures handed back in shared memory: the frames the decoder took from it, and frames
/// from elsewhere, which are copied in.
@Suite struct SharedPictureTests {
    /// What the daemon makes of the reply of `DecoderService` (on a thread of its own) to one
    /// request with `budget`, answered by `decode`.
    func serve(budget: Int = 1 << 20, _ decode: @escaping DecoderService.Decode) throws -> Result<Picture, DecoderClient.ReplyFailure> {
        var pair: [CInt] = [-1, -1]
        try #require(socketpair(AF_UNIX, CInt(SOCK_SEQPACKET.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let ours = OwnedDescriptor(pair[0]), theirs = pair[1]
        nonisolated(unsafe) let decode = decode
        let service = Thread {
            _ = DecoderService.run(socket: theirs, decode: decode)
            close(theirs)
        }
        service.start()
        let files = try FixtureFiles()
        let file = try SafeFile.open(try files.write("f", [1, 2, 3]), limit: 1 << 20).file
        let request = DecodeRequest(id: 3, name: "f", target: nil, output: TargetSize(width: 64, height: 64), budget: budget)
        try DescriptorMessages.send(Array(request.json.text.utf8), descriptors: [file.rawValue], on: ours.rawValue)
        let message = try #require(try DescriptorMessages.receive(on: ours.rawValue, limit: DecodeRequest.messageLimit))
        ours.close()
        return DecoderClient.result(of: message, for: request)
    }

    @Test func framesDecodedIntoTheSharedMemoryAndFramesFromElsewhereArriveAsTheyWere() throws {
        let drawn = ImageFixtures.quadrants(width: 30, height: 20), elsewhere = ImageFixtures.solid(0xFF12_3456, width: 30, height: 20)
        let result = try serve { _, _, frames in
            do throws(ImageError) {
                let frame = try frames.surface(width: 30, height: 20)
                frame.copyPixels(from: drawn, x: 0, y: 0)
                return .success(Picture(frames: [frame, elsewhere], durations: [0.5, 0.25], plays: 2, format: .gif))
            } catch {
                return .failure(ProtocolError(.limitExceeded, error.message))
            }
        }
        let picture = try result.get()
        #expect(picture.frames.count == 2 && picture.durations == [0.5, 0.25] && picture.plays == 2 && picture.format == .gif)
        #expect(picture.frames[0].hasSamePixels(as: drawn) && picture.frames[1].hasSamePixels(as: elsewhere))
    }

    @Test func framesPastTheBudgetAreRefusedBeforeTheyExist() throws {
        var refused: ImageError?
        let result = try serve(budget: 64 * 64 * 4) { _, _, frames in
            do throws(ImageError) {
                _ = try frames.surface(width: 64, height: 64)
                _ = try frames.surface(width: 1, height: 1)
            } catch {
                refused = error
            }
            return .failure(ProtocolError(.limitExceeded, "refused"))
        }
        #expect(refused?.kind == .tooLarge && refused?.message.contains("does not fit the 0 MB of images allowed") == true, "\(String(describing: refused))")
        #expect(throws: DecoderClient.ReplyFailure.self) { try result.get() }
    }
}

extension DecoderClientTests {
    @Test func aPictureOfMegabytesArrivesAsTheDecoderInThisProcessDecodesIt() throws {
        let files = try FixtureFiles()
        let client = DecoderClient(settings: settings(), loop: nil, logger: Logger(label: "test"))
        // 800×600 decoded for 640×480: a frame whose pages are faulted in while it decodes.
        let jpeg = ImageFixtures.jpeg(ImageFixtures.quadrants(width: 1600, height: 1200))
        let picture = try decode(try files.write("large.jpg", jpeg), with: client).get()
        let expected = try ImageDecoder.decode(jpeg, fitting: TargetSize(width: 640, height: 480), byteLimit: 256 << 20)
        #expect(picture.frames[0].width == 800 && picture.frames[0].hasSamePixels(as: expected.frames[0]))
    }

    @Test func aPictureWhosePaddedRowsPassTheBudgetIsRefusedAndTheHelperGoesOn() throws {
        let files = try FixtureFiles()
        let loop = try EventLoop()
        let client = DecoderClient(settings: settings(), loop: loop, logger: Logger(label: "test"))
        // 1×100 pixels in two frames: 800 bytes as the header counts them, 6 400 as rows
        // padded to 8 pixels take.
        let tall = PixelRect(x: 0, y: 0, width: 1, height: 100)
        let gif = ImageFixtures.gif(
            width: 1, height: 100, palette: [0xFFFF_0000, 0xFF00_FF00],
            frames: [.init(rect: tall, index: 0, delay: 10), .init(rect: tall, index: 1, delay: 10)])
        let path = try files.write("tall.gif", gif)
        let result = try decode(path, with: client, loop: loop, budget: 4096)
        #expect(throws: ProtocolError.self) { try result.get() }
        if case .failure(let error) = result { #expect(error.code == "limit_exceeded" && error.message.contains("does not fit"), "\(error)") }
        #expect(try decode(path, with: client, loop: loop).get().frames.count == 2)
        #expect(client.started == 1, "the helper went on")
    }
}
