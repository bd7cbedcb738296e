import Testing
import VitrineInput
@testable import VitrineConfig

/// `[input]`: read into `InputSettings`, with its defaults, and refused with what was wrong.
@Suite struct InputConfigTests {
    @Test func theDefaultsAreInputSettingsOwn() throws {
        #expect(try parse("").input == InputSettings())
        #expect(try parse("[input]\ncalibration = []").input.calibration == nil, "[] keeps the device's own")
    }

    @Test func aCalibrationIsSixNumbers() throws {
        #expect(try parse("input.calibration = [1.5, 0, -0.25, 0, 1, 0]").input.calibration == [1.5, 0, -0.25, 0, 1, 0])
        let five = try #require(failure("[input]\ncalibration = [1, 0, 0, 0, 1]"))
        #expect(
            five.description
                == #"/etc/vitrine/vitrine.toml:2: input.calibration: must be six numbers [a, b, c, d, e, f] within ±100 (libinput's calibration matrix), or [] for the device's own, got [1, 0, 0, 0, 1]"#
        )
        #expect(failure("[input]\ncalibration = [1, 0, 0, 0, 1, \"x\"]")?.key == "input.calibration")
        #expect(failure("[input]\ncalibration = [1, 0, 1000, 0, 1, 0]")?.key == "input.calibration")
        #expect(failure("[input]\ncalibration = 1")?.key == "input.calibration")
    }

    @Test(arguments: [
        ("repeat_delay_ms = 10001", "input.repeat_delay_ms: must be a whole number in 0…10000, got 10001"),
        ("repeat_rate = -1", "input.repeat_rate: must be repeats a second, 0…1000 (0: keys do not repeat), got -1"),
        ("tap_slop = 1001", "input.tap_slop: must be pixels, 0…1000, got 1001"),
        ("long_press_seconds = 0.01", "input.long_press_seconds: must be seconds, 0.05…60, got 0.01"),
        ("cursor = \"sometimes\"", "input.cursor: must be one of \"hidden\", \"auto\" or \"always\", got \"sometimes\""),
        ("cursor_hide_after = 0", "input.cursor_hide_after: must be seconds, 0.1…3600, got 0"),
        ("idle_after = 0.5", "input.idle_after: must be seconds, 0 (never idle) or 1…86400, got 0.5"),
        ("enabled = \"yes\"", "input.enabled: must be true or false, got \"yes\""),
        ("vt_switching = 1", "input.vt_switching: must be true or false, got 1"),
        ("seat = \"seat 0\"", "input.seat: must be a seat name such as \"seat0\" (letters, digits, - and _), got \"seat 0\""),
        ("seat = \"\"", "input.seat: must be a seat name such as \"seat0\" (letters, digits, - and _), got \"\""),
        (
            "xkb_layout = \"../../etc/passwd\"",
            "input.xkb_layout: must be xkb names (letters, digits and ,:()+-_), such as \"de\", \"nodeadkeys\" or \"ctrl:nocaps,compose:ralt\", or \"\" for the system's default, got \"../../etc/passwd\""
        ),
        (
            "xkb_options = \"ctrl:nocaps compose:ralt\"",
            "input.xkb_options: must be xkb names (letters, digits and ,:()+-_), such as \"de\", \"nodeadkeys\" or \"ctrl:nocaps,compose:ralt\", or \"\" for the system's default, got \"ctrl:nocaps compose:ralt\""
        ),
    ])
    func aValueOutOfItsRangeIsRefusedSayingWhatItTakes(line: String, message: String) throws {
        let error = try #require(failure("[input]\n\(line)"))
        #expect(error.description == "/etc/vitrine/vitrine.toml:2: " + message)
    }

    @Test func aTypoSuggestsTheKey() throws {
        let error = try #require(failure("[input]\nrepeat_delay = 100"))
        #expect(error.description.hasPrefix("/etc/vitrine/vitrine.toml:2: input.repeat_delay: unknown key; did you mean 'repeat_delay_ms'?"))
        #expect(
            failure("xkb_layout = \"de\"")?.description == "/etc/vitrine/vitrine.toml:1: xkb_layout: keys belong in a section; 'xkb_layout' goes under [input]")
    }

    @Test func everyInputKeyTakesEffectAtRestartAndAChangeSaysSo() throws {
        let keys = Configuration.allKeys.filter { $0.hasPrefix("input.") }
        #expect(keys.count == 16)
        #expect(Set(keys).isSubset(of: Set(Configuration.restartKeys)))
        let changed = try parse(ConfigurationTests.everyKeyChanged)
        #expect(
            changed.keysNeedingRestart(comparedWith: .default).filter { $0.hasPrefix("input.") } == Configuration.restartKeys.filter { $0.hasPrefix("input.") })
    }
}
