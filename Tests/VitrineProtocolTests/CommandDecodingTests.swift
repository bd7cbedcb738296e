import Testing
import VitrineCore
import VitrineRolling

@testable import VitrineProtocol

/// Requests are decoded once, at the edge, into typed commands: enums, springs and
/// animation templates, with the documented errors for bad values.
@Suite struct CommandDecodingTests {
    private func command(_ text: String) throws -> Command {
        try Request.decode(Array(text.utf8)).get().command
    }

    private func refusal(_ line: [UInt8]) -> ProtocolError? {
        guard case .failure(let failure) = Request.decode(line) else { return nil }
        return failure.error
    }

    private func refusal(_ text: String) -> ProtocolError? { refusal(Array(text.utf8)) }

    @Test func numberSetDecodesItsOverrides() throws {
        let c = try command(
            #"{"id": 1, "cmd": "number.set", "layer": "n", "value": 12, "animationType": "onlyChangedNumbers", "direction": "down", "rollThroughDigits": false, "spring": {"speed": 1, "damping": 12}}"#
        )
        guard case .numberSet(let layer, let change) = c else { Issue.record("\(c)"); return }
        #expect(layer == "n")
        #expect(
            change
                == RollRequest(
                    value: 12, animated: true, animationType: .onlyChangedNumbers, direction: .down, rollThroughDigits: false,
                    spring: RollSpringOverrides(speed: 1, damping: 12)))
        let plain = try command(#"{"id": 2, "cmd": "number.set", "layer": "n", "value": 5, "animated": false}"#)
        guard case .numberSet(_, let quiet) = plain else { Issue.record("\(plain)"); return }
        #expect(quiet == RollRequest(value: 5, animated: false))
    }

    @Test func bindingsKeepTheirFieldsAndDecodeTheirCommandsAsATransaction() throws {
        let c = try command(
            #"{"id": 1, "cmd": "binding.add", "binding": "dim", "layer": "b", "on": "press", "duration": 0.1, "timing": "easeOut", "commands": [{"cmd": "layer.set", "layer": "b", "properties": {"opacity": 0.6}}]}"#
        )
        guard case .bindingAdd(let spec) = c else { Issue.record("\(c)"); return }
        #expect(spec.id == "dim" && spec.layer == "b" && spec.trigger == .press && spec.key == nil)
        #expect(spec.transaction.duration == 0.1 && spec.transaction.commands.map(\.name) == ["layer.set"])
        #expect(spec.json.keys.sorted() == ["commands", "duration", "layer", "on", "timing"], "no id, no cmd, no binding")
        let again = try BindingSpec(object: spec.described(id: "dim").object!, context: "journal")
        #expect(again.id == "dim" && again.json == spec.json)
        #expect(
            refusal(#"{"id": 2, "cmd": "binding.add", "layer": "b", "on": "tap", "key": "a", "commands": [{"cmd": "layer.remove", "layer": "b"}]}"#)?.code
                == "invalid_value")
        #expect(
            refusal(#"{"id": 3, "cmd": "binding.add", "on": "key", "key": "", "commands": [{"cmd": "layer.remove", "layer": "b"}]}"#)?.code == "missing_field")
        #expect(refusal(#"{"id": 4, "cmd": "binding.add", "layer": "b", "on": "tap", "commands": [{"cmd": "clock.set", "time": 1}]}"#)?.code == "invalid_value")
        #expect(refusal(#"{"id": 5, "cmd": "binding.remove", "binding": "a", "layer": "b"}"#)?.code == "missing_field")
    }

    @Test func anIdleBindingMayResetAndPlayAPlaylist() throws {
        let c = try command(#"{"id": 1, "cmd": "binding.add", "on": "idle", "reset": true, "playlist": "attract"}"#)
        guard case .bindingAdd(let spec) = c else { Issue.record("\(c)"); return }
        #expect(spec.resetsScene && spec.playlist == "attract" && spec.transaction.commands.isEmpty, "\(spec)")
        #expect(spec.json.keys.sorted() == ["on", "playlist", "reset"])
    }

    @Test func injectedInputIsTyped() throws {
        let touch = try command(#"{"id": 1, "cmd": "input.inject", "type": "touch", "phase": "down", "touch": 4, "point": [10, 20], "time": 12.5}"#)
        guard case .inputInject(let t) = touch else { Issue.record("\(touch)"); return }
        #expect(t == .touch(phase: .down, id: 4, point: Point(x: 10, y: 20), time: 12.5))
        let up = try command(#"{"id": 2, "cmd": "input.inject", "type": "touch", "phase": "up"}"#)
        guard case .inputInject(let u) = up else { Issue.record("\(up)"); return }
        #expect(u == .touch(phase: .up, id: 0, point: nil, time: nil))
        let button = try command(#"{"id": 3, "cmd": "input.inject", "type": "pointer", "action": "button", "button": "right", "pressed": true}"#)
        guard case .inputInject(let b) = button else { Issue.record("\(button)"); return }
        #expect(b == .pointer(.button(0x111, pressed: true), point: nil, time: nil))
        let key = try command(#"{"id": 4, "cmd": "input.inject", "type": "key", "keysym": "Return"}"#)
        guard case .inputInject(let k) = key else { Issue.record("\(key)"); return }
        #expect(k == .key(.keysym("Return", text: ""), pressed: nil, time: nil))
        #expect(refusal(#"{"id": 5, "cmd": "input.inject", "type": "key", "keycode": 768}"#)?.code == "invalid_value")
        #expect(refusal(#"{"id": 6, "cmd": "input.inject", "type": "pointer", "action": "axis", "delta": "down"}"#)?.code == "wrong_type")
    }

    @Test func aChangeOverridesOnlyWhatItGives() {
        let layer = RollStyle(
            animationType: .allNumbers, direction: .auto, rollThroughDigits: true,
            spring: RollSpring(duration: 1, speed: 0.3, damping: 17, initialVelocity: 1, mass: 1, stiffness: 100))
        let style = RollRequest(value: 1, animated: true, direction: .up, spring: RollSpringOverrides(speed: 2, mass: 3)).style(over: layer)
        #expect(
            style
                == RollStyle(
                    animationType: .allNumbers, direction: .up, rollThroughDigits: true,
                    spring: RollSpring(duration: 1, speed: 2, damping: 17, initialVelocity: 1, mass: 3, stiffness: 100)))
    }

    @Test func numberSetRefusesBadValuesAsDocumented() {
        let base = #"{"id": 7, "cmd": "number.set", "layer": "count", "value": 1, "#
        #expect(
            refusal(base + #""animationType": "sideways"}"#)
                == ProtocolError(
                    .invalidValue, "animationType is one of allNumbers, onlyChangedNumbers, allAfterFirstChangedNumber, noAnimation, not 'sideways'"))
        #expect(refusal(base + #""direction": "left"}"#) == ProtocolError(.invalidValue, "direction is one of up, down, auto, not 'left'"))
        let range = ProtocolError(.invalidValue, "spring duration must lie within (0, 60] s and speed within (0, 100]")
        #expect(refusal(base + #""spring": {"duration": 0}}"#) == range)
        #expect(refusal(base + #""spring": {"duration": 61}}"#) == range)
        #expect(refusal(base + #""spring": {"speed": 101}}"#) == range)
        #expect(refusal(base + #""spring": {"speed": -1, "duration": 2}}"#) == range)
        #expect(refusal(base + #""spring": {"damping": "soft"}}"#) == ProtocolError(.wrongType, #"number.set spring: "damping" is a number, not a string"#))
        #expect(refusal(base + #""spring": {"bounce": 1}}"#)?.code == "unknown_field")
        #expect(refusal(base + #""spring": 3}"#)?.code == "wrong_type")
        #expect(refusal(base + #""animationType": 2}"#)?.code == "wrong_type")
    }

    @Test func layerActionsDecodesPolicyActionsAndSource() throws {
        let c = try command(
            #"{"id": 1, "cmd": "layer.actions", "layer": "a", "policy": "explicitOnly", "actionsFrom": null, "actions": {"opacity": null, "position": {"duration": 2, "timing": "easeIn"}}}"#
        )
        guard case .layerActions(let id, let actions?, let actionsFrom, let policy, _) = c else { Issue.record("\(c)"); return }
        #expect(id == "a" && policy == .explicitOnly)
        #expect(actionsFrom == .some(nil))
        #expect(actions["opacity"] == .some(nil))
        let position = try #require(actions["position"] ?? nil)
        #expect(position.keyPath == "position" && position.timing.duration == 2 && position.timingFunction == TimingFunction.named["easeIn"])
        guard case .layerActions(_, nil, let from, nil, _) = try command(#"{"id": 2, "cmd": "layer.actions", "layer": "a", "actionsFrom": "b"}"#) else {
            Issue.record("actions or policy given"); return
        }
        #expect(from == .some("b"))
        #expect(
            refusal(#"{"id": 3, "cmd": "layer.actions", "layer": "a", "policy": "never"}"#)
                == ProtocolError(.invalidValue, "policy is one of implicit, explicitOnly, not 'never'"))
    }

    @Test func layerSetTakesATimingTemplate() throws {
        let c = try command(
            #"{"id": 1, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0}, "animation": {"type": "spring", "damping": 12, "duration": 2, "timing": [0.25, 0.1, 0.25, 1]}}"#
        )
        guard case .layerSet(_, _, let template?, true) = c else { Issue.record("\(c)"); return }
        #expect(template.keyPath == nil && template.timing.duration == 2)
        #expect(template.timingFunction == (try TimingFunction(controlPoints: 0.25, 0.1, 0.25, 1)))
        guard case .spring(.physical(nil, nil, 12, nil)) = template.kind else { Issue.record("\(template.kind)"); return }
        #expect(
            refusal(#"{"id": 2, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0}, "animation": {"to": 1}}"#)
                == ProtocolError(
                    .invalidValue, "layer.set: the animation takes timing only (duration, timing, type, spring fields…), not 'to'"))
        #expect(
            refusal(#"{"id": 3, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0}, "animation": {"timing": "bouncy"}}"#)?.code == "invalid_timing")
        #expect(
            refusal(#"{"id": 4, "cmd": "layer.set", "layer": "a", "properties": {"opacity": 0}, "animation": {"fillMode": "sideways"}}"#)?.code
                == "invalid_value")
    }

    @Test func animationAddKeepsOnlyTheValuesAsJSON() throws {
        let c = try command(
            #"{"id": 1, "cmd": "animation.add", "layer": "a", "animation": {"keyPath": "position.x", "values": [0, "90deg", 20], "keyTimes": [0, 0.5, 1], "calculationMode": "cubic", "repeatCount": "infinity", "fillMode": "both"}}"#
        )
        guard case .animationAdd("a", nil, let template) = c else { Issue.record("\(c)"); return }
        #expect(template.keyPath == "position.x" && template.timing.repeatCount == .infinity && template.timing.fillMode == .both)
        guard case .keyframe(let values, [0, 0.5, 1], nil, .cubic, nil, nil) = template.kind else { Issue.record("\(template.kind)"); return }
        #expect(values == [.number(0), .string("90deg"), .number(20)])
        let description = try AnimationDescription(template: template) { _ in (.number, nil) }
        guard case .keyframe(let frames) = description.animation.kind else { Issue.record("not keyframes"); return }
        #expect(frames.values == [.number(0), .number(.pi / 2), .number(20)])
        #expect(
            refusal(#"{"id": 2, "cmd": "animation.add", "layer": "a", "animation": {"from": 0, "to": 1}}"#)
                == ProtocolError(
                    .missingField, #"a basic animation needs a keyPath, e.g. "position.x""#))
        #expect(refusal(#"{"id": 3, "cmd": "animation.add", "layer": "a", "animation": {"type": "wobble", "keyPath": "x"}}"#)?.code == "invalid_value")
    }

    @Test func aTemplatesSpringTakesTheDefaultsWhereItIsApplied() throws {
        guard
            case .animationAdd(_, _, let template) = try command(
                #"{"id": 1, "cmd": "animation.add", "layer": "a", "animation": {"type": "spring", "keyPath": "opacity", "to": 0, "mass": 2}}"#)
        else {
            Issue.record("not animation.add"); return
        }
        let defaults = try Spring(mass: 1, stiffness: 300, damping: 20, initialVelocity: 0)
        let description = try AnimationDescription(template: template, springDefaults: defaults) { _ in (.number, nil) }
        guard case .spring(let endpoints, let spring) = description.animation.kind else { Issue.record("not a spring"); return }
        #expect(spring == (try Spring(mass: 2, stiffness: 300, damping: 20, initialVelocity: 0)))
        #expect(endpoints.to == .number(0))
    }

    @Test func transactionTimingIsATimingFunction() throws {
        let c = try command(#"{"id": 1, "cmd": "transaction", "duration": 1, "timing": "easeOut", "commands": [{"cmd": "layer.remove", "layer": "a"}]}"#)
        guard case .transaction(let spec) = c else { Issue.record("\(c)"); return }
        #expect(spec.timing == TimingFunction.named["easeOut"] && spec.duration == 1 && spec.commands.count == 1)
        #expect(refusal(#"{"id": 2, "cmd": "transaction", "timing": "bouncy", "commands": []}"#)?.code == "invalid_timing")
    }

    @Test func surfaceCloseTakesASurfaceOrALayerNotBoth() throws {
        guard case .surfaceClose(nil, "browser") = try command(#"{"id": 1, "cmd": "surface.close", "layer": "browser"}"#) else {
            Issue.record("by layer")
            return
        }
        guard case .surfaceClose(3, nil) = try command(#"{"id": 1, "cmd": "surface.close", "surface": 3}"#) else {
            Issue.record("by surface")
            return
        }
        let both = refusal(#"{"id": 1, "cmd": "surface.close", "surface": 3, "layer": "browser"}"#)
        #expect(both?.code == "invalid_value" && both?.message.contains("not both") == true, "\(String(describing: both))")
        #expect(refusal(#"{"id": 1, "cmd": "surface.close"}"#)?.code == "missing_field")
    }

    @Test func aLineThatIsNotUTF8IsRefusedAsSuch() {
        let invalid = ProtocolError(.invalidUTF8, "the line is not valid UTF-8; send UTF-8 JSON, one object per line")
        let lines: [[UInt8]] = [
            [0xFF, 0xFE],
            Array(#"{"id": 1, "cmd": "ping", "x": ""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            Array(#"{"id": 1, "cmd": "ping", "x": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),
            Array(#"{"id": 1, "cmd": "ping", "x": ""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
            Array(#"{"id": 1, "cmd": "layer.set", "layer": ""#.utf8) + [0xE2, 0x82] + Array(#"", "properties": {"#.utf8),
        ]
        for line in lines { #expect(refusal(line) == invalid, "\(line)") }
        #expect(refusal(#"{"id": 1, "cmd": "ping""#)?.code == "malformed_json")
    }

    @Test func aNullParentAddsALayerOutsideTheTree() throws {
        guard case .layerAdd("wipe", "layer", .some(nil), .top, _) = try command(#"{"id": 1, "cmd": "layer.add", "layer": "wipe", "parent": null}"#) else {
            Issue.record("not outside the tree"); return
        }
        guard case .layerAdd("a", "layer", .some("b"), .top, _) = try command(#"{"id": 1, "cmd": "layer.add", "layer": "a", "parent": "b"}"#) else {
            Issue.record("not under b"); return
        }
    }

    @Test func aLineDecodesFromItsBytesWhereTheyLie() throws {
        let text = #"{"id": "é1", "cmd": "layer.add", "layer": "größe €😀", "kind": "text", "properties": {"string": "naïve – ✓"}}"#
        var received = Array("junk\n".utf8) + Array(text.utf8) + Array("\n".utf8)
        received.append(contentsOf: [0x7B])
        let line = received[5..<(5 + text.utf8.count)]
        guard case .success(let request) = Request.decode(line) else { Issue.record("refused"); return }
        #expect(request.id == .string("é1"))
        guard case .layerAdd("größe €😀", "text", nil, .top, let properties) = request.command else { Issue.record("\(request.command)"); return }
        #expect(properties.first?.1 == .string("naïve – ✓"))
        #expect(try command(text).name == "layer.add")
        #expect(throws: Never.self) { try Request.decode(text.utf8).get() }
        #expect(throws: Never.self) { try Request.decode(Array(text.utf8).lazy.map { $0 }).get() }
    }
}
