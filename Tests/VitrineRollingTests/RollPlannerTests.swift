import Testing
import VitrineCore
import VitrineFormat
@testable import VitrineRolling

@Suite struct RollPlannerTests {
    static let spring = RollSpring(duration: 1, speed: 1, damping: 17, initialVelocity: 1, mass: 1, stiffness: 100)
    static let style = RollStyle(animationType: .allAfterFirstChangedNumber, direction: .auto, rollThroughDigits: true, spring: spring)

    func request(_ value: Double, _ type: RollAnimationType = .allAfterFirstChangedNumber, _ direction: RollDirection = .auto, through: Bool = true)
        -> RollRequest
    {
        RollRequest(value: value, animated: true, animationType: type, direction: direction, rollThroughDigits: through)
    }

    /// The columns the plan sets, and the (from, to) of each position animation by column.
    func plan(_ old: String, _ new: String, _ r: RollRequest, oldValue: Double = 0, presentation: RollColumns? = nil) throws -> (
        RollColumns, [Int: (Double, Double)]
    ) {
        let tx = try RollPlanner.plan(
            layer: "n", text: new, oldValue: oldValue, request: r, style: Self.style, model: RollColumns(showing: old), presentation: presentation, running: [],
            begin: 0)
        var columns: RollColumns?
        var moves: [Int: (Double, Double)] = [:]
        for op in tx.operations {
            switch op {
            case .set(_, let path, let value) where path.description == "roll":
                columns = RollColumns(["roll": value])
            case .addAnimation(_, let key?, let a) where key.hasPrefix("roll.pos."):
                if case .spring(let e, _) = a.kind, let from = e.from?.number, let to = e.to?.number {
                    moves[Int(key.split(separator: ".")[2])!] = (from, to)
                }
            default: break
            }
        }
        return (try #require(columns), moves)
    }

    @Test func upRollsThroughTheDigitsBetween() throws {
        let (columns, moves) = try plan("3", "7", request(7, .onlyChangedNumbers, .up))
        #expect(columns.columns[0].strip == Array("34567"))
        #expect(moves[0]! == (0, 4))
    }

    @Test func downRollsTheOtherWayRound() throws {
        let (columns, moves) = try plan("3", "7", request(7, .onlyChangedNumbers, .down))
        #expect(columns.columns[0].strip == Array("7890123"))
        #expect(moves[0]! == (6, 0))
    }

    @Test func autoDirectionFollowsTheValue() throws {
        let (down, _) = try plan("5", "2", request(2, .onlyChangedNumbers, .auto), oldValue: 5)
        #expect(down.columns[0].strip.first == "2", "shrinking rolls down")
        let (up, _) = try plan("5", "2", request(12, .onlyChangedNumbers, .auto), oldValue: 5)
        #expect(up.columns[0].strip.first == "5", "growing rolls up")
    }

    @Test func directModeSkipsTheDigitsBetween() throws {
        let (columns, moves) = try plan("3", "7", request(7, .onlyChangedNumbers, .up, through: false))
        #expect(columns.columns[0].strip == Array("37"))
        #expect(moves[0]! == (0, 1))
    }

    @Test func animationTypesChooseTheColumns() throws {
        let only = try plan("1234", "1294", request(1294, .onlyChangedNumbers, .up)).1
        #expect(Set(only.keys) == [1])
        let after = try plan("1234", "1294", request(1294, .allAfterFirstChangedNumber, .up)).1
        #expect(Set(after.keys) == [0, 1])
        #expect(after[0]! == (0, 10), "an unchanged digit after the first change makes a full turn")
        let all = try plan("1234", "1294", request(1294, .allNumbers, .up)).1
        #expect(Set(all.keys) == [0, 1, 2, 3])
        let none = try plan("1234", "1294", request(1294, .noAnimation, .up))
        #expect(none.1.isEmpty && none.0.restingText == "1294")
    }

    @Test func aRetargetStartsFromTheVisibleState() throws {
        // Mid-roll from 3 up to 7: the window is 40 % between 5 and 6.
        let shown = RollColumns(columns: [RollColumn(strip: Array("34567"), position: 2.4, presence: 1)])
        let (columns, moves) = try plan("7", "9", request(9, .onlyChangedNumbers, .up), presentation: shown)
        #expect(columns.columns[0].strip == Array("56789"))
        #expect(abs(moves[0]!.0 - 0.4) < 1e-12 && moves[0]!.1 == 4)
        let visible = columns.columns[0]
        var start = visible
        start.position = moves[0]!.0
        #expect(start.visible.first == "5" && start.visible.next == "6" && abs(start.visible.offset - 0.4) < 1e-12)
    }

    @Test func columnsEnterAndLeaveByPresence() throws {
        let grow = try RollPlanner.plan(
            layer: "n", text: "1,000", oldValue: 999, request: request(1000), style: Self.style, model: RollColumns(showing: "999"), presentation: nil,
            running: [], begin: 0)
        let presence = grow.operations.compactMap { op -> String? in
            if case .addAnimation(_, let key?, _) = op, key.hasPrefix("roll.presence.") { return key } else { return nil }
        }
        #expect(Set(presence) == ["roll.presence.3", "roll.presence.4"])
        let shrink = try plan("1,000", "999", request(999))
        #expect(shrink.0.columns.count == 5 && shrink.0.columns[3].presence == 0 && shrink.0.columns[4].presence == 0)
        #expect(shrink.0.restingText == "999")
    }
}

@Suite struct NumberFormatTests {
    @Test func formatsAsAsked() {
        #expect(NumberFormat().string(for: 245_699) == "245,699")
        #expect(NumberFormat(usesGrouping: false).string(for: 245_699) == "245699")
        #expect(NumberFormat(fractionDigits: 2...2).string(for: 3.5) == "3.50", "trailing zeros are kept")
        #expect(NumberFormat(minimumIntegerDigits: 5, usesGrouping: false).string(for: 42) == "00042", "fixed width with leading zeros")
        #expect(NumberFormat(style: .currency, currencyCode: "USD", fractionDigits: 2...2).string(for: 1234.5) == "$1,234.50")
        #expect(NumberFormat(style: .percent).string(for: 0.25) == "25%")
        #expect(NumberFormat().string(for: -42) == "-42")
    }
}
