import VitrineJSON
import ArgumentParser

struct PauseCommand: RequestCommand {
    static let protocolCommand = "layer.pause"
    static let configuration = CommandConfiguration(
        commandName: "pause",
        abstract: "Pause a layer's time and every animation under it (layer.pause).",
        discussion: "Example: vitrinectl pause ticker")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    var fields: [String: JSON] { ["layer": .string(layer)] }
}

struct ResumeCommand: RequestCommand {
    static let protocolCommand = "layer.resume"
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Resume a paused layer where it stopped (layer.resume).",
        discussion: "Example: vitrinectl resume ticker")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    var fields: [String: JSON] { ["layer": .string(layer)] }
}

struct SpeedCommand: RequestCommand {
    static let protocolCommand = "layer.speed"
    static let configuration = CommandConfiguration(
        commandName: "speed",
        abstract: "Change the speed of a layer's time (layer.speed).",
        discussion: "Example: vitrinectl speed ticker 0.5")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The layer.")
    var layer: String

    @Argument(help: "The new speed: 1 is normal, 0.5 half speed, within ±1000.")
    var speed: Double

    func validate() throws {
        guard speed.isFinite, abs(speed) <= 1000 else { throw ValidationError("the speed lies within ±1000") }
    }

    var fields: [String: JSON] { ["layer": .string(layer), "speed": .number(speed)] }
}

struct TimeCommand: RequestCommand {
    static let protocolCommand = "time"
    static let configuration = CommandConfiguration(
        commandName: "time",
        abstract: "Print the media time, a layer's local time, or a converted time (time).",
        discussion: "Example: vitrinectl time slow --convert 4 --from slow")

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "A layer whose local time to print too.")
    var layer: String?

    @Option(help: ArgumentHelp("A time to convert between timelines (as CALayer's convertTime).", valueName: "seconds"))
    var convert: Double?

    @Option(name: .customLong("from"), help: ArgumentHelp("The layer whose time --convert is in (default: media time).", valueName: "layer"))
    var fromLayer: String?

    @Option(name: .customLong("to"), help: ArgumentHelp("The layer whose time to convert to (default: media time).", valueName: "layer"))
    var toLayer: String?

    func validate() throws {
        if convert == nil, fromLayer != nil || toLayer != nil { throw ValidationError("--from and --to go with --convert") }
    }

    var fields: [String: JSON] {
        var fields: [String: JSON] = [:]
        if let layer { fields["layer"] = .string(layer) }
        if let convert {
            fields["convert"] = .object([
                "time": .number(convert), "from": fromLayer.map(JSON.string) ?? .null, "to": toLayer.map(JSON.string) ?? .null,
            ])
        }
        return fields
    }

    /// Just the number when that is all there is, for `$(vitrinectl time)`.
    static func summary(_ result: JSON) -> String? {
        result.object?.count == 1 ? result["time"]?.text : Summary.keyValues(result)
    }
}

struct ClockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Move a manual clock (vitrined --clock manual).",
        subcommands: [Set.self, Advance.self])

    struct Set: RequestCommand {
        static let protocolCommand = "clock.set"
        // Named here, not from the type's name: deriving it reflects on the type at every start.
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the media time (clock.set).",
            discussion: "Example: vitrinectl clock set 10")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The new media time in seconds.")
        var time: Double

        @Option(help: "The wall clock's Unix seconds at that time (a step of the wall clock, as NTP makes one).")
        var wall: Double?

        var fields: [String: JSON] { ["time": .number(time), "wall": wall.map(JSON.number) ?? .null].filter { $0.value != .null } }
    }

    struct Advance: RequestCommand {
        static let protocolCommand = "clock.advance"
        static let configuration = CommandConfiguration(
            commandName: "advance",
            abstract: "Advance the media time (clock.advance).",
            discussion: "Example: vitrinectl clock advance 0.5")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "Seconds to advance, 0…86400.")
        var seconds: Double

        var fields: [String: JSON] { ["seconds": .number(seconds)] }
    }
}
