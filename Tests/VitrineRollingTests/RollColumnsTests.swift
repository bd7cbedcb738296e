import Testing
import VitrineCore
@testable import VitrineRolling

/// Reading the columns' state back from the custom property, as every frame of a roll does.
@Suite struct RollColumnsTests {
    func column(_ strip: String, _ pos: Double, _ presence: Double = 1) -> RollColumn {
        RollColumn(strip: Array(strip), position: pos, presence: presence)
    }

    @Test func theStateReadsBackAsWritten() throws {
        // More than ten columns: c10 and c11 must not be taken for c1.
        let columns = RollColumns(columns: (0..<12).map { column("0123456789".shuffled().map(String.init).joined(), Double($0) / 3, $0 == 11 ? 0.25 : 1) })
        #expect(RollColumns(["roll": columns.value]) == columns)
    }

    @Test func columnsEndAtTheFirstMissingOrUnreadableOne() throws {
        let c = { (strip: String) -> Value in .dictionary(["strip": .string(strip), "pos": .number(0.5)]) }
        let gap = RollColumns(["roll": .dictionary(["c0": c("12"), "c1": c("34"), "c3": c("56")])])
        #expect(gap?.columns == [column("12", 0.5), column("34", 0.5)])
        let unreadable = RollColumns(["roll": .dictionary(["c0": c("12"), "c1": c(""), "c2": c("56")])])
        #expect(unreadable?.columns == [column("12", 0.5)])
        // Keys are written without leading zeros; others are not columns.
        let odd = RollColumns(["roll": .dictionary(["c0": c("12"), "c01": c("34"), "c+1": c("56"), "x1": c("78")])])
        #expect(odd?.columns == [column("12", 0.5)])
        #expect(RollColumns(["roll": .dictionary(["c1": c("12")])]) == nil)
        #expect(RollColumns(["other": .dictionary(["c0": c("12")])]) == nil)
    }

    @Test func missingFieldsTakeTheirDefaults() throws {
        let columns = RollColumns(["roll": .dictionary(["c0": .dictionary(["strip": .string("7")])])])
        #expect(columns?.columns == [column("7", 0, 1)])
        #expect(columns?.target == "7")
    }

    @Test func theTargetLeavesOutDepartingColumns() {
        let columns = RollColumns(columns: [column("0123", 2.6), column("9", 0, 0), column("45", 0.4)])
        #expect(columns.target == "43")
    }
}
