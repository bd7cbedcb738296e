import Testing
@testable import VitrineConfig

@Suite struct WallConfigTests {
    static let table = "[[outputs]]\nconnector = \"A\"\nmode = \"200x100\"\n"

    @Test func aWallIsACanvasAndTheScreensRectanglesOfIt() throws {
        let config = try parse(
            "[wall]\ncanvas = [400, 200]\n\n" + Self.table + "viewport = [0, 0, 200, 100]\n\n"
                + "[[outputs]]\nconnector = \"B\"\nmode = \"100x200\"\nrotation = 90\nviewport = [200, 0, 200, 100]\n")
        #expect(config.wall.canvas == PixelSize(width: 400, height: 200))
        #expect(config.outputs.map(\.viewport) == [.init(x: 0, y: 0, width: 200, height: 100), .init(x: 200, y: 0, width: 200, height: 100)])
        let primary = try parse("[wall]\ncanvas = [400, 200]\nviewport = [200, 100, 200, 100]\n")
        #expect(primary.wall.viewport == .init(x: 200, y: 100, width: 200, height: 100))
        #expect(try parse("[wall]\ncanvas = []\nviewport = []\n") == .default)
        #expect(Configuration.restartKeys.contains("wall.canvas") && Configuration.restartKeys.contains("wall.viewport"))
    }

    @Test(arguments: [
        ("[wall]\ncanvas = [400, 200]\n", "wall.canvas", "set [wall] viewport"),
        ("[wall]\nviewport = [0, 0, 200, 100]\n", "wall.viewport", "set [wall] canvas"),
        ("[wall]\ncanvas = [400, 200]\nviewport = [300, 0, 200, 100]\n", "wall.viewport", "reaches past the canvas, which is 400x200"),
        ("[wall]\ncanvas = [400, 200]\nviewport = [0, 0, 200]\n", "wall.viewport", "[x, y, width, height]"),
        ("[wall]\ncanvas = [400, 200]\nviewport = [-1, 0, 200, 100]\n", "wall.viewport", "[x, y, width, height]"),
        ("[wall]\ncanvas = [400, 0]\nviewport = [0, 0, 200, 100]\n", "wall.canvas", "[width, height]"),
        ("[wall]\ncanvas = [400, 200]\nsize = 3\n", "wall.size", "unknown key"),
        ("[wall]\ncanvas = [400, 200]\n\n" + table + "viewport = [0, 0, 300, 100]\n", "outputs[0].viewport", "output A shows 200x100"),
        ("[wall]\ncanvas = [400, 200]\nviewport = [0, 0, 200, 100]\n\n" + table + "viewport = [0, 0, 200, 100]\n", "wall.viewport", "in one place"),
        (
            "[wall]\ncanvas = [400, 200]\n\n" + table
                + "viewport = [0, 0, 200, 100]\n\n[[outputs]]\nconnector = \"B\"\nroot = \"other\"\nviewport = [200, 0, 200, 100]\n",
            "outputs[1].root", "leave root out of the others"
        ),
    ])
    func mistakesAreNamed(_ toml: String, key: String, message: String) throws {
        let error = try #require(failure(toml))
        #expect(error.description.contains(key) && error.description.contains(message), "\(error)")
    }
}
