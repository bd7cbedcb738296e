import Foundation
import Testing
import VitrineCore
import VitrineJSON

@testable import VitrineProtocol

/// The events' names and wire form, against docs/PROTOCOL.md: its "Events" table lists
/// exactly the events there are, and events are written as its examples show them.
@Suite struct EventTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/PROTOCOL.md")

    /// The backticked names in the first column of the "## Events" table.
    static func documentedEvents() throws -> [String] {
        let text = try String(contentsOf: document, encoding: .utf8)
        let start = try #require(text.range(of: "\n## Events\n"), "docs/PROTOCOL.md has no ## Events")
        let section = text[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var names: [String] = []
        for line in section[..<end].split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }.trimmingCharacters(in: .whitespaces)
            names.append(String(cell.dropFirst().dropLast()))
        }
        return names
    }

    @Test func theTableListsEveryEventAndNoOther() throws {
        let documented = try Self.documentedEvents()
        let names = Event.Name.allCases.map(\.rawValue)
        #expect(documented.count > 20)
        for name in names { #expect(documented.contains(name), "docs/PROTOCOL.md's Events table lacks \(name)") }
        for name in documented { #expect(names.contains(name), "docs/PROTOCOL.md lists \(name), which the daemon does not send") }
        #expect(Set(documented).count == documented.count, "an event is listed twice")
    }

    @Test func wireNamesAreTheEnumsInItsOrder() {
        #expect(Wire.eventNames == Event.Name.allCases.map(\.rawValue))
        #expect(Wire.eventNames.first == "animation.started")
        #expect(Wire.eventNames.last == "playlist.skipped")
    }

    @Test func sceneEventsAreWrittenAsDocumented() {
        #expect(
            Wire.event(Event(SceneEvent.animationStarted(layer: "a", key: "fade", animation: 1)))
                == #"{"animation":1,"event":"animation.started","key":"fade","layer":"a"}"#)
        #expect(
            Wire.event(Event(SceneEvent.animationStopped(layer: "a", key: "fade", animation: 1, finished: true)))
                == #"{"animation":1,"event":"animation.finished","finished":true,"key":"fade","layer":"a"}"#)
        #expect(Wire.event(Event(SceneEvent.transactionCompleted(transaction: 3))) == #"{"event":"transaction.completed","transaction":3}"#)
        #expect(
            Wire.event(.numberCompleted(layer: "count", value: 1299, finished: false, transaction: 3))
                == #"{"event":"number.completed","finished":false,"layer":"count","transaction":3,"value":1299}"#)
    }

    @Test func outputEventsAreWrittenAsDocumented() {
        #expect(
            Wire.event(.outputRemoved(output: "HDMI-A-2", root: "HDMI-A-2", keptSeconds: 600))
                == #"{"event":"output.removed","keptSeconds":600,"output":"HDMI-A-2","root":"HDMI-A-2"}"#)
        #expect(
            Wire.event(.outputAdded(output: "HDMI-A-2", root: "HDMI-A-2", size: Size(width: 1920, height: 1080), rate: 60, kept: true))
                == #"{"event":"output.added","kept":true,"output":"HDMI-A-2","rate":60,"root":"HDMI-A-2","size":[1920,1080]}"#)
        #expect(
            Wire.event(.outputPower(output: "headless", root: "root", on: false, reason: .command))
                == #"{"event":"output.power","on":false,"output":"headless","reason":"command","root":"root"}"#)
    }

    /// `input.touch`: `layer` is null off the screen and `layerPoint` is then left out;
    /// `device` is left out when there is none.
    @Test func touchesAreWrittenAsDocumented() {
        let on = Event.InputPoint(point: Point(x: 600, y: 380), hit: Event.Hit(layer: "card", point: Point(x: 110, y: 80)), time: 0, device: "input.inject")
        #expect(
            Wire.event(.inputTouch(on, phase: .down, touch: 1))
                == #"{"device":"input.inject","event":"input.touch","layer":"card","layerPoint":[110,80],"phase":"down","point":[600,380],"time":0,"touch":1}"#
        )
        let off = Event.InputPoint(point: Point(x: -5, y: 2), hit: nil, time: 1.5, device: nil)
        #expect(
            Wire.event(.inputTouch(off, phase: .cancel, touch: 2))
                == #"{"event":"input.touch","layer":null,"phase":"cancel","point":[-5,2],"time":1.5,"touch":2}"#)
        #expect(
            Wire.event(.inputPointer(off, action: .axis(dx: 0, dy: 15)))
                == #"{"action":"axis","delta":[0,15],"event":"input.pointer","layer":null,"point":[-5,2],"time":1.5}"#)
        #expect(
            Wire.event(.inputPointer(off, action: .button(272, pressed: true)))
                == #"{"action":"button","button":272,"event":"input.pointer","layer":null,"point":[-5,2],"pressed":true,"time":1.5}"#)
    }

    @Test func keysAreWrittenAsDocumented() {
        let key = Event.Key(keysym: "a", text: "a", keycode: 30, pressed: true, isRepeat: false, modifiers: [], time: 0, device: "input.inject")
        #expect(
            Wire.event(.inputKey(key))
                == #"{"device":"input.inject","event":"input.key","keycode":30,"keysym":"a","modifiers":[],"pressed":true,"repeat":false,"text":"a","time":0}"#
        )
        var bound = key
        bound.device = nil
        bound.transactions = [4, 5]
        #expect(
            Wire.event(.inputKey(bound))
                == #"{"event":"input.key","keycode":30,"keysym":"a","modifiers":[],"pressed":true,"repeat":false,"text":"a","time":0,"transactions":[4,5]}"#)
    }

    /// Gestures list the transactions their bindings committed, and nothing when none.
    @Test func gesturesAreWrittenAsDocumented() {
        #expect(
            Wire.event(.layerTap(Event.LayerTouch(layer: "row", touch: -1, time: 0), point: Point(x: 60, y: 30)))
                == #"{"event":"layer.tap","layer":"row","point":[60,30],"time":0,"touch":-1}"#)
        let bound = Event.LayerTouch(layer: "button", touch: 0, time: 2.4309430699999997, transactions: [7])
        #expect(
            Wire.event(.layerTap(bound, point: Point(x: 88.79125201200003, y: 60.5)))
                == #"{"event":"layer.tap","layer":"button","point":[88.79125201200003,60.5],"time":2.4309430699999997,"touch":0,"transactions":[7]}"#)
        let card = Event.LayerTouch(layer: "card", touch: 1, time: 0.125)
        #expect(
            Wire.event(.layerDrag(card, phase: .ended, point: Point(x: 140, y: 80), translation: Point(x: 30, y: 0), velocity: Point(x: 240, y: 0)))
                == #"{"event":"layer.drag","layer":"card","phase":"ended","point":[140,80],"time":0.125,"touch":1,"translation":[30,0],"velocity":[240,0]}"#)
        #expect(
            Wire.event(.layerRelease(card, point: Point(x: 140, y: 80), inside: true))
                == #"{"event":"layer.release","inside":true,"layer":"card","point":[140,80],"time":0.125,"touch":1}"#)
        #expect(Wire.event(.layerCancel(card)) == #"{"event":"layer.cancel","layer":"card","time":0.125,"touch":1}"#)
        #expect(
            Wire.event(
                .bindingFailed(
                    binding: "secret", on: .longPress, layer: "logo", key: nil,
                    error: ProtocolError(CoreError.unknownLayer("menu")), time: 0.5))
                == #"{"binding":"secret","code":"unknown_layer","event":"binding.failed","layer":"logo","message":"there is no layer 'menu'; layer.tree lists the layers","on":"longPress","time":0.5}"#
        )
    }

    /// `playlog.entry` carries the entry's fields, with `null` for what is not known; a
    /// line in the log's form reads back as the same entry.
    @Test func playlogEntryIsWrittenAsTheLogsLines() throws {
        let entry = PlayEntry(id: "m1-3", output: "HDMI-A-1", playlist: "lunch", item: "menu", start: 1_796_299_200.5, end: 1_796_299_220, completed: false)
        let line = Wire.event(.playlogEntry(entry))
        #expect(
            line
                == #"{"completed":false,"end":1796299220,"event":"playlog.entry","hash":null,"id":"m1-3","item":"menu","output":"HDMI-A-1","playlist":"lunch","start":1796299200.5}"#
        )
        #expect(PlayEntry(json: try JSON(parsing: line)) == entry)
        #expect(PlayEntry(json: .object(["id": .string("x")])) == nil)
        var started = entry.fields
        started["end"] = .string("soon")
        #expect(PlayEntry(json: .object(started)) == nil)
    }

    /// `surface.unmapped` leaves `layer` out when the window had none; `surface.mapped`
    /// and `surface.assigned` write `layer` and `previous` as null.
    @Test func surfacesWriteNullOrLeaveOut() {
        #expect(Wire.event(.surfaceUnmapped(surface: 3, layer: nil)) == #"{"event":"surface.unmapped","surface":3}"#)
        #expect(Wire.event(.surfaceUnmapped(surface: 3, layer: "app")) == #"{"event":"surface.unmapped","layer":"app","surface":3}"#)
        let window = Event.Window(surface: 3, appID: "foot", title: "t", pid: 42, mapped: true, layer: nil, responsive: true, size: nil)
        #expect(
            Wire.event(.surfaceMapped(window))
                == #"{"appId":"foot","event":"surface.mapped","kind":"xdg","layer":null,"mapped":true,"pid":42,"responsive":true,"surface":3,"title":"t"}"#)
        var sized = window
        sized.layer = "app"
        sized.size = Size(width: 640, height: 480)
        #expect(
            Wire.event(.surfaceAssigned(sized, previous: nil))
                == #"{"appId":"foot","event":"surface.assigned","height":480,"kind":"xdg","layer":"app","mapped":true,"pid":42,"previous":null,"responsive":true,"surface":3,"title":"t","width":640}"#
        )
        // An X11 window gives its WM_CLASS: the class as `appId`, the instance as `instance`.
        let x11 = Event.Window(
            surface: 4, kind: "x11", appID: "XTerm", instance: "xterm", title: "sh", pid: 7, mapped: true, layer: nil, responsive: true, size: nil)
        #expect(
            Wire.event(.surfaceMapped(x11))
                == #"{"appId":"XTerm","event":"surface.mapped","instance":"xterm","kind":"x11","layer":null,"mapped":true,"pid":7,"responsive":true,"surface":4,"title":"sh"}"#
        )
    }

    /// `client.exited` gives `exitCode` or `signal`, the other null, and `restartIn` only
    /// when the client restarts.
    @Test func clientsAreWrittenAsDocumented() {
        #expect(Wire.event(.clientStarted(name: "player", pid: 18214, restarts: 0)) == #"{"event":"client.started","name":"player","pid":18214,"restarts":0}"#)
        #expect(
            Wire.event(.clientExited(name: "player", pid: 18214, exit: .signaled("SIGKILL"), state: .restarting(in: 2)))
                == #"{"event":"client.exited","exitCode":null,"name":"player","pid":18214,"restartIn":2,"signal":"SIGKILL","state":"restarting"}"#)
        #expect(
            Wire.event(.clientExited(name: "player", pid: 18214, exit: .exited(code: 0), state: .stopped))
                == #"{"event":"client.exited","exitCode":0,"name":"player","pid":18214,"signal":null,"state":"stopped"}"#)
    }

    /// `video.started` leaves `duration` out when it is not known.
    @Test func videosAreWrittenAsDocumented() {
        #expect(Wire.event(.videoStarted(layer: "clip", src: "a.mkv", duration: nil)) == #"{"event":"video.started","layer":"clip","src":"a.mkv"}"#)
        #expect(
            Wire.event(.videoStarted(layer: "clip", src: "a.mkv", duration: 12.5)) == #"{"duration":12.5,"event":"video.started","layer":"clip","src":"a.mkv"}"#
        )
        #expect(
            Wire.event(.videoError(layer: "clip", src: "/nonexistent/clip.mkv", message: "m", debug: ""))
                == #"{"debug":"","event":"video.error","layer":"clip","message":"m","src":"/nonexistent/clip.mkv"}"#)
    }

    @Test func everyEventNamesItself() {
        let events: [Event] = [
            .configReloaded(restartNeeded: ["socket.path"]),
            .contentFailed(layers: ["a"], contents: "x.png", path: "/c/x.png", error: ProtocolError(.contentFailed, "gone")),
            .clientFailed(name: "p", reason: "r", restarts: 3),
            .outputResized(output: "x11", root: "root", size: Size(width: 800, height: 600)),
        ]
        #expect(events.map(\.name) == [.configReloaded, .contentFailed, .clientFailed, .outputResized])
        #expect(Wire.event(events[0]) == #"{"event":"config.reloaded","restartNeeded":["socket.path"]}"#)
        #expect(
            Wire.event(events[1])
                == #"{"code":"content_failed","contents":"x.png","event":"content.failed","layers":["a"],"message":"gone","path":"/c/x.png"}"#)
    }
}
