import Testing
import VitrineRaster
import VitrineWayland

/// Positioner rules placing a 30 × 20 popup against an anchor rectangle near the
/// bottom-right corner of a 60 × 40 window, worked by hand: unconstrained it goes to
/// (54, 34), past both edges.
@Suite struct PositionerRulesTests {
    static let window = PixelRect(x: 0, y: 0, width: 60, height: 40)

    static func corner(_ adjustment: PositionerRules.Adjustment) -> PositionerRules {
        var rules = PositionerRules(width: 30, height: 20)
        rules.anchorRect = PixelRect(x: 50, y: 30, width: 4, height: 4)
        rules.anchor = .bottomRight
        rules.gravity = .bottomRight
        rules.adjustment = adjustment
        return rules
    }

    @Test func eachAdjustmentAgainstHandWorkedPlaces() {
        #expect(Self.corner([]).place(within: Self.window) == PixelRect(x: 54, y: 34, width: 30, height: 20))
        // Flipped: anchored at the rectangle's top-left corner, extending up and left.
        #expect(Self.corner([.flipX, .flipY]).place(within: Self.window) == PixelRect(x: 20, y: 10, width: 30, height: 20))
        #expect(Self.corner([.slideX, .slideY]).place(within: Self.window) == PixelRect(x: 30, y: 20, width: 30, height: 20))
        #expect(Self.corner([.resizeX, .resizeY]).place(within: Self.window) == PixelRect(x: 54, y: 34, width: 6, height: 6))
        // Each axis on its own: flip x only, resize y only.
        #expect(Self.corner([.flipX, .resizeY]).place(within: Self.window) == PixelRect(x: 20, y: 34, width: 30, height: 6))
    }

    @Test func flipComesBeforeSlideAndIsUndoneWhenItDoesNotFit() {
        // 50 wide from x 50 going right: flipped it would start at 0 (fits); 70 wide fits
        // neither way, so the flip is not taken and the slide puts it at the left edge.
        var rules = Self.corner([.flipX, .slideX])
        rules.width = 50
        #expect(rules.place(within: Self.window).x == 0)
        rules.width = 70
        #expect(rules.place(within: Self.window) == PixelRect(x: 0, y: 34, width: 70, height: 20))
    }

    @Test func centredAnchorsGravitiesAndOffset() {
        var rules = PositionerRules(width: 10, height: 6)
        rules.anchorRect = PixelRect(x: 20, y: 10, width: 20, height: 10)
        rules.offset = (3, -2)
        // Centred on the rectangle's centre (30, 15), then offset.
        #expect(rules.place(within: Self.window) == PixelRect(x: 28, y: 10, width: 10, height: 6))
        rules.anchor = .top
        rules.gravity = .top
        #expect(rules.place(within: Self.window) == PixelRect(x: 28, y: 2, width: 10, height: 6))
        rules.anchor = .left
        rules.gravity = .left
        #expect(rules.place(within: Self.window) == PixelRect(x: 13, y: 10, width: 10, height: 6))
    }

    @Test func slidingFollowsTheGravityWhenThePopupIsWiderThanTheArea() {
        var rules = PositionerRules(width: 80, height: 10)
        rules.anchorRect = PixelRect(x: 10, y: 0, width: 0, height: 0)
        rules.adjustment = .slideX
        rules.gravity = .bottomRight
        #expect(rules.place(within: Self.window).x == 0)
        rules.gravity = .bottomLeft
        // Going left from 10 it starts at -70; slid right until its right edge is at 60.
        #expect(rules.place(within: Self.window).x == -20)
    }

    @Test func aNestedAreaIsTheWindowInTheParentsCoordinates() {
        var rules = PositionerRules(width: 20, height: 10)
        rules.anchorRect = PixelRect(x: 0, y: 0, width: 30, height: 10)
        rules.anchor = .topRight
        rules.gravity = .bottomRight
        rules.adjustment = [.flipX]
        // The parent popup is at (20, 5) in the window: the window is (-20, -5, 60, 40) to it.
        let area = PixelRect(x: -20, y: -5, width: 60, height: 40)
        #expect(rules.place(within: area) == PixelRect(x: -20, y: 0, width: 20, height: 10), "flipped to the parent's left, at the window's edge")
    }
}
