import Foundation
import Testing
@testable import VitrineConfig

@Suite struct OutputsConfigTests {
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
            """)
        #expect(c.outputs.map(\.connector) == ["HDMI-A-1", "HDMI-A-2"])
        #expect(c.outputs[0].mode == .preferred && c.outputs[0].root.isEmpty && c.outputs[0].schedule == nil)
        #expect(c.outputs[1].mode == .fixed(PixelSize(width: 1080, height: 1920), refreshRate: 60))
        #expect(c.outputs[1].rotation == .quarter && c.outputs[1].root == "menu")
        #expect(c.outputs[1].schedule == Configuration.PowerSchedule(off: 22 * 60, on: 7 * 60 + 30))
        #expect(try parse("").outputs.isEmpty)
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
        #expect(night.secondsUntilNextChange(fromSecondOfDay: 21 * 3600) == 3600)
        #expect(night.secondsUntilNextChange(fromSecondOfDay: 22 * 3600) == 9 * 3600, "at the change itself, the next one")
        #expect(night.secondsUntilNextChange(fromSecondOfDay: 23 * 3600 + 1800) == 7 * 3600 + 1800)
        let nap = Configuration.PowerSchedule(off: 12 * 60, on: 13 * 60)
        #expect(nap.isOn(atMinute: 11 * 60) && !nap.isOn(atMinute: 12 * 60 + 30) && nap.isOn(atMinute: 13 * 60))
        #expect(night.description == "off 22:00, on 07:00")
    }
}
