import Glibc
import VitrineImage
import VitrineJSON
import VitrineProtocol
import VitrineSystem

/// The decoder helper's side (`vitrine-decoder`): takes requests from the daemon on a
/// socket, one at a time, reads each file from the descriptor that came with it, decodes
/// it with `decode` straight into shared memory, and hands that back sealed, or why not.
///
/// It knows no decoder itself: the executable passes the codecs in, so that the daemon,
/// which links this module for its client, links no decoder.
public enum DecoderService {
    /// Decodes a file's `bytes` for `request`, its frames from `frames` (the shared memory
    /// handed back): a picture, or the error the daemon reports.
    public typealias Decode = (_ bytes: [UInt8], _ request: DecodeRequest, _ frames: FrameAllocator) -> Result<Picture, ProtocolError>

    /// Serves the daemon on `socket` until it closes its end; returns the exit status
    /// (0 then, 1 when the socket fails or the daemon sends something malformed).
    public static func run(socket: CInt, decode: Decode) -> Int32 {
        while true {
            let message: (bytes: [UInt8], descriptors: [OwnedDescriptor])?
            do { message = try DescriptorMessages.receive(on: socket, limit: DecodeRequest.messageLimit) } catch {
                report("\(error.message)")
                return 1
            }
            guard let message else { return 0 }
            guard let json = try? JSON(parsing: String(decoding: message.bytes, as: UTF8.self)), let request = DecodeRequest(json),
                message.descriptors.count == 1
            else {
                report("a malformed request came (\(message.bytes.count) bytes, \(message.descriptors.count) descriptors)")
                return 1
            }
            let reply = answer(request, file: message.descriptors[0], decode: decode)
            do {
                switch reply {
                case .success(let (layout, memory)):
                    // (the memfd stays open until the message carries it)
                    try withExtendedLifetime(memory) { () throws(SystemError) in
                        try DescriptorMessages.send(
                            Array(DecodeReply.picture(id: request.id, layout).json.text.utf8), descriptors: [memory.rawValue], on: socket)
                    }
                case .failure(let error):
                    try DescriptorMessages.send(Array(DecodeReply.failure(id: request.id, error).json.text.utf8), on: socket)
                }
            } catch {
                report("\(error.message)")
                return 1
            }
        }
    }

    private static func answer(_ request: DecodeRequest, file: OwnedDescriptor, decode: Decode) -> Result<(PictureLayout, OwnedDescriptor), ProtocolError> {
        let bytes: [UInt8]
        do { bytes = try SafeFile.read(file, name: request.name, limit: ImageLimits.fileLimit) } catch {
            return .failure(ProtocolError(.contentFailed, error.message))
        }
        file.close()
        let memory: PictureMemory
        do { memory = try PictureMemory(budget: request.budget) } catch {
            return .failure(ProtocolError(.contentFailed, "\(request.name): no shared memory for the picture: \(error.message)"))
        }
        switch decode(bytes, request, memory.frames) {
        case .failure(let error):
            return .failure(error)
        case .success(let picture):
            do { return .success(try memory.seal(picture)) } catch {
                return .failure(ProtocolError(.contentFailed, "\(request.name): the decoded picture cannot be handed back: \(error.message)"))
            }
        }
    }

    private static func report(_ message: String) {
        var line = Array("vitrine-decoder: \(message)\n".utf8)
        _ = write(2, &line, line.count)
    }
}
