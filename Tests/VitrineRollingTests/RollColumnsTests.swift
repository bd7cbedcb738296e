import Testing
import VitrineCore
@testable import VitrineRolling

/// Reading the columns' state back from the custom property, as every frame of a roll does.
@Suite struct RollColumnsTests {
    func column(_ strip: String, _ pos: Double, _ presence: Double = 1) -> RollColumn {
        RollColumn(strip: Array(strip), position: pos, presence: presence)
    }

    func state(_ strips: [Value], pos: [Double] = [], presence: [Double] = [], rest: [Double]? = nil) -> [String: Value] {
        var d: [String: Value] = ["strips": .array(strips), "pos": .array(pos.map(Value.number)), "presence": .array(presence.map(Value.number))]
        if let rest { d["rest"] = .array(rest.map(Value.number)) }
        return ["roll": .dictionary(d)]
    }

    @Test func theStateReadsBackAsWritten() throws {
        // More than ten columns, one of them leaving.
        let columns = RollColumns(columns: (0..<12).map { column("0123456789".shuffled().map(String.init).joined(), Double($0) / 3, $0 == 11 ? 0 : 1) })
        let read = try #require(RollColumns(["roll": columns.value]))
        #expect(read == columns)
        #expect(read.columns[11].rest == nil && read.columns[3].rest == 1)
    }

    @Test func columnsEndAtTheFirstUnreadableStrip() throws {
        let unreadable = RollColumns(state([.string("12"), .string(""), .string("56")], pos: [0.5, 0.5, 0.5]))
        #expect(unreadable?.columns == [column("12", 0.5)])
        #expect(RollColumns(state([.number(1), .string("56")])) == nil)
        #expect(RollColumns(state([])) == nil)
        #expect(RollColumns(["roll": .dictionary(["pos": .array([.number(1)])])]) == nil)
        #expect(RollColumns(["other": state([.string("12")])["roll"]!]) == nil)
    }

    @Test func missingNumbersTakeTheirDefaults() throws {
        let columns = try #require(RollColumns(state([.string("7"), .string("89")], pos: [0])))
        #expect(columns.columns == [column("7", 0, 1), column("89", 0, 1)])
        #expect(columns.restingText == "87")
    }

    @Test func theRestingTextIsWhereTheModelRestsNotWhatIsShown() throws {
        // Mid-roll: column 0 shows 2.6 of "0123" on its way to "3", column 1 shrinks away,
        // column 2 rolls back to "5".
        let columns = try #require(
            RollColumns(
                state(
                    [.string("0123"), .string("9"), .string("45")], pos: [2.6, 0, 0.4], presence: [1, 0.5, 1], rest: [3, -1, 1])))
        #expect(columns.columns.map(\.rest) == [3, nil, 1])
        #expect(columns.restingText == "53")
        // Built here, a column rests where it is.
        #expect(RollColumns(columns: [column("0123", 2.6), column("9", 0, 0), column("45", 0.4)]).restingText == "43")
    }

    @Test func changingAReadColumnForgetsTheRestItWasReadWith() throws {
        var columns = try #require(RollColumns(state([.string("0123")], pos: [1], rest: [3])))
        #expect(columns.columns[0].rest == 3)
        columns.columns[0].presence = 0
        #expect(columns.columns[0].rest == nil)
        columns.columns[0].presence = 1
        #expect(columns.columns[0].rest == 1)
    }

    @Test func anEarlierStateLendsItsStripsOnlyWhenTheStateSharesThem() throws {
        let first = state([.string("0123"), .string("45")], pos: [1, 0])
        let previous = try #require(RollColumns(first))
        // The next frame: the same strips array, other positions.
        guard case .dictionary(var d) = first["roll"]! else { Issue.record(); return }
        d["pos"] = .array([.number(2), .number(0.5)])
        let next = try #require(RollColumns(["roll": .dictionary(d)], reusing: previous))
        #expect(next.columns == [column("0123", 2), column("45", 0.5)])
        // New strips of the same count are read, not lent.
        let other = try #require(RollColumns(state([.string("789"), .string("6")], pos: [1, 0]), reusing: previous))
        #expect(other.columns == [column("789", 1), column("6", 0)])
    }
}
