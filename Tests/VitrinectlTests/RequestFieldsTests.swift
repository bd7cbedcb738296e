import ArgumentParser
import Testing
import VitrineJSON
@testable import vitrinectl

/// What each command line asks the daemon, without a daemon: the request fields.
@Suite struct RequestFieldsTests {
    @Test func valuesAreJSONWhenTheyParseElseStrings() {
        #expect(ValueArgument(argument: "[100,200]").json == .array([.number(100), .number(200)]))
        #expect(ValueArgument(argument: "-3").json == .number(-3))
        #expect(ValueArgument(argument: "true").json == .bool(true))
        #expect(ValueArgument(argument: "red").json == .string("red"))
        #expect(ValueArgument(argument: "#0000ff").json == .string("#0000ff"))
        #expect(ValueArgument(argument: "Hello world").json == .string("Hello world"))
        #expect(ValueArgument(argument: "\"42\"").json == .string("42"))
    }

    @Test func addTakesPropertiesAndPlacement() throws {
        let add = try AddCommand.parse(["t", "--kind", "text", "--parent", "card", "string", "Hello world", "position", "[1,2]", "--above", "x"])
        #expect(AddCommand.protocolCommand == "layer.add")
        #expect(
            add.fields == [
                "layer": "t", "kind": "text", "parent": "card", "above": "x",
                "properties": ["string": "Hello world", "position": [1, 2]],
            ])
    }

    @Test func setWithAnimationOptionsSendsAnAnimationObject() throws {
        let set = try SetCommand.parse(["title", "textColor", "#0000ff", "--duration", "3"])
        #expect(set.fields == ["layer": "title", "properties": ["textColor": "#0000ff"], "animation": ["duration": 3]])
        let spring = try SetCommand.parse(["box", "position.x", "-40", "--spring", "--damping", "12", "--velocity", "-2"])
        #expect(
            spring.fields == [
                "layer": "box", "properties": ["position.x": -40],
                "animation": ["type": "spring", "damping": 12, "initialVelocity": -2],
            ])
        let curve = try SetCommand.parse(["box", "opacity", "0", "--timing", "0.25,0.1,0.25,1", "--delay", "1"])
        #expect(curve.fields["animation"] == ["timing": [0.25, 0.1, 0.25, 1], "delay": 1])
        #expect(try SetCommand.parse(["box", "opacity", "0", "--no-actions"]).fields["actions"] == false)
        #expect(try SetCommand.parse(["box", "opacity", "0"]).fields.keys.sorted() == ["layer", "properties"])
    }

    @Test func numberSendsTheValueAndItsOverrides() throws {
        #expect(NumberCommand.protocolCommand == "number.set")
        #expect(try NumberCommand.parse(["count", "245699"]).fields == ["layer": "count", "value": 245699])
        let all = try NumberCommand.parse([
            "count", "-12.5", "--direction", "up", "--animation-type", "onlyChangedNumbers", "--no-through-digits",
            "--speed", "1", "--damping", "12", "--stiffness", "200", "--mass", "2", "--velocity", "-3", "--spring-duration", "2",
        ])
        #expect(
            all.fields == [
                "layer": "count", "value": -12.5, "direction": "up", "animationType": "onlyChangedNumbers", "rollThroughDigits": false,
                "spring": ["speed": 1, "damping": 12, "stiffness": 200, "mass": 2, "initialVelocity": -3, "duration": 2],
            ])
        #expect(try NumberCommand.parse(["count", "--no-animation", "--", "-7"]).fields == ["layer": "count", "value": -7, "animated": false])
    }

    @Test func animateMakesAnAnimationObject() throws {
        let animate = try AnimateCommand.parse(["box", "position.y", "--to", "500", "--duration", "2", "--timing", "easeInEaseOut"])
        #expect(
            animate.fields == [
                "layer": "box", "animation": ["keyPath": "position.y", "to": 500, "duration": 2, "timing": "easeInEaseOut"],
            ])
        let spin = try AnimateCommand.parse([
            "logo", "transform.rotation.z", "--from", "0", "--to", "360deg", "--duration", "4", "--repeat", "infinity",
            "--autoreverses", "--fill-mode", "both", "--key", "spin",
        ])
        #expect(
            spin.fields == [
                "layer": "logo", "key": "spin",
                "animation": [
                    "keyPath": "transform.rotation.z", "from": 0, "to": "360deg", "duration": 4, "repeatCount": "infinity",
                    "autoreverses": true, "fillMode": "both",
                ],
            ])
        #expect(
            try AnimateCommand.parse(["b", "position.x", "--by", "-100", "--spring"]).fields["animation"] == [
                "keyPath": "position.x", "by": -100, "type": "spring",
            ])
    }

    @Test(arguments: [
        ["box", "opacity", "1", "--spring", "--timing", "linear"],
        ["box", "opacity", "1", "--mass", "2"],
        ["box", "opacity"],
        ["box", "opacity", "1", "opacity", "0"],
        ["box", "opacity", "1", "--duration", "-1"],
        ["box", "opacity", "1", "--bogus"],
    ])
    func setRefusesBadCombinations(_ arguments: [String]) {
        #expect(throws: (any Error).self) { try SetCommand.parse(arguments) }
    }

    @Test func theOtherCommandsFields() throws {
        #expect(
            try GetCommand.parse(["box", "position", "opacity", "--presentation"]).fields == [
                "layer": "box", "keys": ["position", "opacity"], "presentation": true,
            ])
        #expect(try MoveCommand.parse(["a", "root", "--index", "0"]).fields == ["layer": "a", "parent": "root", "index": 0])
        #expect(try StopCommand.parse(["logo"]).fields == ["layer": "logo"])
        #expect(
            try TimeCommand.parse(["slow", "--convert", "4", "--from", "slow"]).fields == [
                "layer": "slow", "convert": ["time": 4, "from": "slow", "to": nil],
            ])
        #expect(try ClockCommand.Advance.parse(["0.5"]).fields == ["seconds": 0.5])
        #expect(try TreeCommand.parse([]).fields == [:])
    }

    @Test func summaries() {
        #expect(TimeCommand.summary(["time": 6]) == "6")
        #expect(TimeCommand.summary(["time": 6, "layer": 1]) == "layer = 1\ntime = 6")
        #expect(GetCommand.summary(["properties": [:]]) == nil)
        #expect(
            Summary.tree(["layer": "root", "kind": "layer", "sublayers": [["layer": "a", "kind": "text", "sublayers": []]]]) == "root (layer)\n  a (text)")
    }
}

/// Literal JSON in expectations.
extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(Dictionary(uniqueKeysWithValues: elements)) }
    public init(nilLiteral: ()) { self = .null }
}
