import Foundation
import Testing
import VitrineCore
import VitrineProtocol
@testable import VitrineConfig

@Suite struct SceneConfigTests {
    static let json = #"""
        {"background": "#101820",
         "layers": [
           {"id": "card", "properties": {"bounds": [0, 0, 400, 240], "position": [640, 400],
                                         "backgroundColor": "white", "cornerRadius": 16,
                                         "transform": {"rotation": "90deg", "scale": 2}},
            "animations": [{"keyPath": "opacity", "from": 0, "to": 1, "duration": 0.5},
                           {"type": "spring", "keyPath": "position.y", "to": 500, "damping": 17}],
            "sublayers": [{"id": "dot", "properties": {"opacity": 0.5}}]},
           {"id": "title", "kind": "text", "parent": "card", "properties": {"string": "Hello"},
            "displayKeys": ["string"]}
         ]}
        """#

    static let toml = """
        [scene]
        background = "#101820"

        [[scene.layers]]
        id = "card"
        [scene.layers.properties]
        bounds = [0, 0, 400, 240]
        position = [640, 400]
        backgroundColor = "white"
        cornerRadius = 16
        transform = { rotation = "90deg", scale = 2 }
        [[scene.layers.animations]]
        keyPath = "opacity"
        from = 0
        to = 1
        duration = 0.5
        [[scene.layers.animations]]
        type = "spring"
        keyPath = "position.y"
        to = 500
        damping = 17
        [[scene.layers.sublayers]]
        id = "dot"
        properties = { opacity = 0.5 }

        [[scene.layers]]
        id = "title"
        kind = "text"
        parent = "card"
        properties.string = "Hello"
        displayKeys = ["string"]
        """

    @Test func inlineLayersMatchTheJSONScene() throws {
        let expected = try SceneDescription(json: JSON(parsing: Data(Self.json.utf8)))
        let inline = try #require(try parse(Self.toml).scene.content)
        #expect(SceneDescription.sameContent(inline, expected))
        #expect(inline.layers.map(\.id) == ["card", "dot", "title"])
        #expect(inline.layers.map(\.parent) == [nil, "card", "card"])
        #expect(inline.layers[0].animations.count == 2)
        #expect(inline.background == Color(css: "#101820"))

        var different = expected
        different.layers[0].properties[0].1 = .array([0, 0, 400, 241].map(JSON.number))
        #expect(!SceneDescription.sameContent(inline, different))
    }

    @Test func inlineSceneAppliesToAModel() throws {
        let content = try #require(try parse(Self.toml.replacingOccurrences(of: "kind = \"text\"", with: "")).scene.content)
        let scene = Scene()
        try scene.addRoot(id: "screen", output: "test", size: Size(width: 1280, height: 800))
        try content.apply(to: scene, root: "screen", at: 0)
        #expect(try scene.parent(of: "dot") == "card")
        #expect(try scene.presentationValue("opacity", of: "card", at: 0.25) == .number(0.5))
    }

    @Test func sceneFileIsReadRelativeToTheConfiguration() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data(Self.json.utf8).write(to: dir.appendingPathComponent("scene.json"))
        let source = dir.appendingPathComponent("vitrine.toml").path
        let config = try parse("[scene]\nfile = \"scene.json\"\nbackground = \"red\"\n", source: source)
        #expect(config.scene.file == dir.appendingPathComponent("scene.json").standardizedFileURL.path)
        let content = try #require(config.scene.content)
        #expect(content.layers.map(\.id) == ["card", "dot", "title"])
        #expect(content.background == Color(red: 1, green: 0, blue: 0))

        try Data(#"{"layers": [{"id": "a", "colour": "red"}]}"#.utf8).write(to: dir.appendingPathComponent("bad.json"))
        let error = try #require(failure("\n[scene]\nfile = \"bad.json\"\n", source: source))
        #expect(error.file == source && error.line == 3 && error.key == "scene.file")
        #expect(error.message.contains("bad.json") && error.message.contains("no field 'colour'"))

        let missing = try #require(failure("[scene]\nfile = \"/nonexistent/scene.json\"\n"))
        #expect(missing.key == "scene.file" && missing.message == "cannot read the scene file /nonexistent/scene.json: no such file")
        let directory = try #require(failure("[scene]\nfile = \"/tmp\"\n"))
        #expect(directory.message == "cannot read the scene file /tmp: it is a directory, not a regular file")
    }

    @Test func bothSceneFormsAreRefused() throws {
        let error = try #require(
            failure(
                """
                [logging]
                level = "info"
                [scene]
                file = "/etc/vitrine/scene.json"
                [[scene.layers]]
                id = "a"
                """))
        #expect(error.file == configPath && error.line == 4 && error.key == "scene.file")
        #expect(error.message.contains("not both"))
    }

    @Test func invalidLayersNameTheirTable() throws {
        let unknownField = try #require(
            failure(
                """
                [scene]
                [[scene.layers]]
                id = "a"
                [[scene.layers]]
                id = "b"
                colour = "red"
                """))
        #expect(unknownField.line == 4 && unknownField.key == "scene.layers[1]")
        #expect(unknownField.message.contains("layer 'b' has no field 'colour'"))

        let noID = try #require(failure("[[scene.layers]]\nkind = \"layer\"\n"))
        #expect(noID.line == 1 && noID.key == "scene.layers[0]" && noID.message.contains("\"id\""))

        let badValue = try #require(
            failure(
                """
                [[scene.layers]]
                id = "a"
                [[scene.layers]]
                id = "b"
                properties = { position = "left" }
                """))
        #expect(badValue.line == 3 && badValue.key == "scene.layers[1]" && badValue.message.contains("position"))

        let badParent = try #require(failure("[[scene.layers]]\nid = \"a\"\nparent = \"ghost\"\n"))
        #expect(badParent.key?.hasPrefix("scene.layers") == true && badParent.message.contains("ghost"))

        let badAnimation = try #require(
            failure(
                """
                [[scene.layers]]
                id = "a"
                [[scene.layers.animations]]
                keyPath = "opacity"
                durration = 2
                """))
        #expect(badAnimation.line == 1 && badAnimation.message.contains("durration"))

        let notTables = try #require(failure("[scene]\nlayers = [1, 2]\n"))
        #expect(notTables.line == 2 && notTables.key == "scene.layers")
    }

    @Test func bindingsAreReadAndCheckedWithTheTableAtFault() throws {
        let scene = """
            [[scene.layers]]
            id = "button"
            [[scene.bindings]]
            layer = "button"
            on = "press"
            duration = 0.1
            commands = [{ cmd = "layer.set", layer = "button", properties = { opacity = 0.6 } }]
            [[scene.bindings]]
            binding = "home"
            on = "key"
            key = "Home"
            commands = [{ cmd = "layer.set", layer = "root", properties = { opacity = 1 } }]
            """
        let bindings = try #require(try parse(scene).scene.content?.bindings)
        #expect(bindings.map(\.trigger) == [.press, .key] && bindings.map(\.id) == [nil, "home"])
        #expect(bindings.first?.transaction.duration == 0.1 && bindings.last?.key == "Home")

        let badField = try #require(failure(scene + "\n[[scene.bindings]]\nlayer = \"button\"\non = \"tap\"\nwhen = 1\ncommands = []\n"))
        #expect(badField.line == 13 && badField.key == "scene.bindings[2]" && badField.message.contains("when"), "\(badField)")
        let noLayer = try #require(failure("[[scene.bindings]]\nlayer = \"ghost\"\non = \"tap\"\ncommands = [{ cmd = \"layer.remove\", layer = \"ghost\" }]\n"))
        #expect(noLayer.line == 1 && noLayer.key == "scene.bindings[0]" && noLayer.message.contains("no layer 'ghost'"), "\(noLayer)")
        let notTables = try #require(failure("[scene]\nbindings = [1]\n"))
        #expect(notTables.line == 2 && notTables.key == "scene.bindings")
        let fromFile = try #require(
            failure(
                "[scene]\nfile = \"x.json\"\n",
                source: try sceneFile(
                    #"{"layers": [{"id": "a"}], "bindings": [{"layer": "b", "on": "tap", "commands": [{"cmd": "layer.remove", "layer": "a"}]}]}"#)))
        #expect(fromFile.key == "scene.file" && fromFile.message.contains("bindings[0]") && fromFile.message.contains("no layer 'b'"), "\(fromFile)")
    }

    /// A configuration path in a fresh directory holding `x.json` with `json`.
    private func sceneFile(_ json: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-config-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try json.write(to: directory.appendingPathComponent("x.json"), atomically: true, encoding: .utf8)
        return directory.appendingPathComponent("vitrine.toml").path
    }

    @Test func unknownKindsAreLeftToTheDaemonUnlessGiven() throws {
        let text = "[[scene.layers]]\nid = \"t\"\nkind = \"text\"\nproperties = { string = 5 }\n"
        #expect(try parse(text).scene.content?.layers.first?.kind == "text")
        let kind = LayerKind(name: "text", extraProperties: [PropertyDescriptor("string", .string(""))])
        #expect(throws: ConfigError.self) { try Configuration(toml: text, source: configPath, kinds: [kind]) }
    }
}
