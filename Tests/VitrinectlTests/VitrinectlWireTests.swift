import Foundation
import Testing
import VitrineProtocol
@testable import vitrinectl

/// What `vitrinectl` keeps in step with the daemon without linking it: the event names
/// `watch` knows, and the base64 of inline screenshots. (JSON is one module, VitrineJSON,
/// shared with the daemon.)
@Suite struct VitrinectlWireTests {
    @Test func watchNamesTheDaemonsEvents() {
        #expect(WatchCommand.eventNames == Wire.eventNames)
    }

    @Test func base64DecodesWhatFoundationEncodes() {
        for count in 0..<8 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 97 + 13) }
            #expect(Base64.decode(Data(bytes).base64EncodedString()) == bytes)
        }
        #expect(Base64.decode("not base64!") == nil)
    }
}
