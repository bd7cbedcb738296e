import Foundation
import Testing
@testable import VitrineConfig

/// Serialized: two tests set the process's time zone (`TZ`).
@Suite(.serialized) struct OutputsConfigTests {
    @Test func outputsTablesAreRead() throws {
        let c = try parse(
            """
            [[outputs]]
            connector = "HDMI-A-1"

            [[outputs]]
            connector = "HDMI-A-2"
            mode = "1080x1920@60"
            rotation = 90
            root = "menu"
            power_off = "22:00"
            power_on = "07:30"
            scale = 1.5
            """)
        #expect(c.outputs.map(\.connector) == ["HDMI-A-1", "HDMI-A-2"])
        #expect(c.outputs[0].mode == .preferred && c.outputs[0].root.isEmpty && c.outputs[0].schedule == nil)
        #expect(c.outputs[1].mode == .fixed(PixelSize(width: 1080, height: 1920), refreshRate: 60))
        #expect(c.outputs[1].rotation == .quarter && c.outputs[1].root == "menu")
        #expect(c.outputs[1].schedule == Configuration.PowerSchedule(off: 22 * 60, on: 7 * 60 + 30))
        #expect(c.outputs[0].scale == 1 && c.outputs[1].scale == 1.5)
        #expect(try parse("[[outputs]]\nconnector = \"A\"\nscale = 2").outputs[0].scale == 2)
        #expect(try parse("").outputs.isEmpty)
    }

    @Test func aChangedCecKeyNeedsNoRestartButAnotherOutputsKeyDoes() throws {
        let running = try parse("[[outputs]]\nconnector = \"HDMI-A-1\"\ncec = \"/dev/cec0\"")
        #expect(try parse("[[outputs]]\nconnector = \"HDMI-A-1\"\ncec = \"/dev/cec1\"").keysNeedingRestart(comparedWith: running) == [])
        #expect(try parse("[[outputs]]\nconnector = \"HDMI-A-1\"").keysNeedingRestart(comparedWith: running) == [])
        #expect(try parse("[[outputs]]\nconnector = \"HDMI-A-1\"\nrotation = 90").keysNeedingRestart(comparedWith: running) == ["outputs"])
    }

    @Test func mistakesNameTheTableAndKey() throws {
        let cases: [(String, String, String)] = [
            ("[[outputs]]\nmode = \"preferred\"", "outputs[0]", "needs a connector"),
            ("[[outputs]]\nconnector = \"A\"\n[[outputs]]\nconnector = \"A\"", "outputs[1].connector", "earlier [[outputs]] table"),
            ("[[outputs]]\nconnector = \"A\"\nroot = \"x\"\n[[outputs]]\nconnector = \"B\"\nroot = \"x\"", "outputs[1].root", "its own root"),
            ("[[outputs]]\nconnector = \"A\"\npower_off = \"22:00\"", "outputs[0].power_off", "needs power_on too"),
            ("[[outputs]]\nconnector = \"A\"\npower_off = \"22:00\"\npower_on = \"24:00\"", "outputs[0].power_on", "HH:MM"),
            ("[[outputs]]\nconnector = \"A\"\npower_off = \"7:00\"\npower_on = \"08:00\"", "outputs[0].power_off", "HH:MM"),
            ("[[outputs]]\nconnector = \"A\"\npower_off = \"08:00\"\npower_on = \"08:00\"", "outputs[0].power_on", "never sleep"),
            ("[[outputs]]\nconnector = \"A\"\nrotation = 45", "outputs[0].rotation", "0, 90, 180 or 270"),
            ("[[outputs]]\nconnector = \"A\"\nroot = \"a b\"", "outputs[0].root", "layer id"),
            ("[[outputs]]\nconnector = \"A\"\nscale = 0.5", "outputs[0].scale", "a scale 1…4"),
            ("[[outputs]]\nconnector = \"A\"\nscale = 5", "outputs[0].scale", "a scale 1…4"),
            ("[[outputs]]\nconnector = \"A\"\nscale = 1.333", "outputs[0].scale", "steps of 1/120"),
            ("[[outputs]]\nconnector = \"A\"\nscale = \"2\"", "outputs[0].scale", "such as 1, 1.25, 1.5 or 2"),
            ("[[outputs]]\nconnector = \"A\"\nscene = \"/nonexistent/s.json\"", "outputs[0].scene", "cannot read the scene file"),
            ("[[outputs]]\nconnector = \"A\"\nconector = \"B\"", "outputs[0].conector", "did you mean 'connector'"),
            ("outputs = 3", "outputs", "[[outputs]] tables"),
        ]
        for (text, key, words) in cases {
            let error = try #require(failure(text), "\(text)")
            #expect(error.key == key, "\(text) → \(error)")
            #expect(error.message.contains(words), "\(text) → \(error)")
        }
    }

    @Test func aScheduleSaysWhenTheOutputIsAwake() {
        let night = Configuration.PowerSchedule(off: 22 * 60, on: 7 * 60)
        #expect(night.isOn(atMinute: 12 * 60) && night.isOn(atMinute: 7 * 60) && night.isOn(atMinute: 22 * 60 - 1))
        #expect(!night.isOn(atMinute: 22 * 60) && !night.isOn(atMinute: 0) && !night.isOn(atMinute: 7 * 60 - 1))
        let nap = Configuration.PowerSchedule(off: 12 * 60, on: 13 * 60)
        #expect(nap.isOn(atMinute: 11 * 60) && !nap.isOn(atMinute: 12 * 60 + 30) && nap.isOn(atMinute: 13 * 60))
        #expect(night.description == "off 22:00, on 07:00")
    }

    /// Seconds since the epoch of a UTC date and time.
    static func utc(_ year: Int32, _ month: Int32, _ day: Int32, _ hour: Int32, _ minute: Int32) -> Int {
        var parts = tm()
        (parts.tm_year, parts.tm_mon, parts.tm_mday, parts.tm_hour, parts.tm_min) = (year - 1900, month - 1, day, hour, minute)
        return Int(timegm(&parts))
    }

    /// Runs `body` with the process's local time zone set to `zone`.
    static func inTimeZone(_ zone: String, _ body: () -> Void) {
        let previous = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", zone, 1)
        tzset()
        body()
        if let previous { setenv("TZ", previous, 1) } else { setenv("TZ", "", 1) }
        tzset()
    }

    @Test func aNightScheduleSleepsAcrossMidnightOnLocalTime() {
        let night = Configuration.PowerSchedule(off: 22 * 60, on: 6 * 60)
        Self.inTimeZone("Europe/Berlin") {
            // 26 November 2026: CET, an hour ahead of UTC.
            let at = { (hour: Int32, minute: Int32) in Self.utc(2026, 11, 26, hour - 1, minute) }
            #expect(night.isOn(at: at(21, 59)) && !night.isOn(at: at(22, 0)), "blanked at 22:00")
            #expect(!night.isOn(at: at(24, 30)) && !night.isOn(at: at(26, 0)) && !night.isOn(at: at(29, 59)), "asleep at 00:30, 02:00 and 05:59")
            #expect(night.isOn(at: at(30, 0)), "woken at 06:00")
            #expect(night.nextChange(after: at(21, 59)) == at(22, 0))
            #expect(night.nextChange(after: at(22, 0)) == at(30, 0), "at the change itself, the next one")
            #expect(night.nextChange(after: at(26, 0)) == at(30, 0), "a daemon started at 02:00 wakes the output at 06:00")
        }
    }

    @Test func aNightScheduleKeepsItsTimesOnDaylightSavingDays() {
        let night = Configuration.PowerSchedule(off: 22 * 60, on: 6 * 60)
        Self.inTimeZone("Europe/Berlin") {
            // 29 March 2026: 02:00 CET becomes 03:00 CEST, a night an hour shorter.
            #expect(!night.isOn(at: Self.utc(2026, 3, 28, 21, 0)), "22:00 CET")
            #expect(night.nextChange(after: Self.utc(2026, 3, 28, 23, 30)) == Self.utc(2026, 3, 29, 4, 0), "from 00:30 CET to 06:00 CEST: 4.5 hours")
            #expect(!night.isOn(at: Self.utc(2026, 3, 29, 3, 59)) && night.isOn(at: Self.utc(2026, 3, 29, 4, 0)), "woken at 06:00 CEST, not 07:00")
            #expect(night.nextChange(after: Self.utc(2026, 3, 29, 4, 0)) == Self.utc(2026, 3, 29, 20, 0), "22:00 CEST")
            // 25 October 2026: 03:00 CEST becomes 02:00 CET, a night an hour longer.
            #expect(night.nextChange(after: Self.utc(2026, 10, 24, 22, 30)) == Self.utc(2026, 10, 25, 5, 0), "from 00:30 CEST to 06:00 CET: 6.5 hours")
            #expect(!night.isOn(at: Self.utc(2026, 10, 25, 4, 0)) && !night.isOn(at: Self.utc(2026, 10, 25, 4, 59)), "still asleep at 05:00 and 05:59 CET")
            #expect(night.isOn(at: Self.utc(2026, 10, 25, 5, 0)), "woken at 06:00 CET, not 05:00")
            #expect(night.nextChange(after: Self.utc(2026, 10, 25, 5, 0)) == Self.utc(2026, 10, 25, 21, 0), "22:00 CET")
        }
    }
}
