import Testing
@testable import VitrineCore

/// A key path's part resolved when an animation is attached reads and sets what the
/// path's strings read and set.
@Suite struct SlotComponentTests {
    static let paths: [[String]] = [
        ["x"], ["y"], ["width"], ["height"], ["rotation"], ["rotation", "z"], ["scale"], ["scale", "x"], ["scale", "y"],
        ["translation"], ["translation", "x"], ["translation", "y"],
    ]

    static let values: [Value] = [
        .point(Point(x: 3, y: -4)), .size(Size(width: 5, height: 7)),
        .transform(AffineTransform(rotationAngle: 0.7).concatenating(AffineTransform(scaleX: 2, y: -1.5))),
        .transform(AffineTransform(translationX: 12, y: -9)), .number(2),
        .transformValue(Transform3D(rotationAngle: 0.5, x: 0, y: 1, z: 0)),
    ]

    @Test(arguments: paths)
    func readsAndSetsWhatThePathNames(path: [String]) throws {
        let component = try #require(SlotComponent(path))
        for value in Self.values {
            for change in [{ (v: Value) in Value.add(v, v) }, { _ in .number(0.25) }, { _ in .size(Size(width: 1, height: 2)) }] {
                var resolved = value
                var read: Value?
                let applied = component.update(&resolved) { v in
                    read = v
                    return change(v)
                }
                guard applied else {
                    #expect(read == nil, "\(path) on \(value): nothing read")
                    continue
                }
                let expectedRead = value.component(path[...])
                #expect(read == expectedRead, "\(path) on \(value): read")
                let expected = expectedRead.flatMap { value.settingComponent(path[...], to: change($0)) } ?? value
                #expect(resolved == expected, "\(path) on \(value): set")
            }
        }
    }

    @Test func pathsItDoesNotStandForAreLeftToTheStrings() {
        for path in [["z"], ["rotation", "x"], ["size", "width"], ["scale", "z"], ["translation", "z"], ["x", "y"], []] {
            #expect(SlotComponent(path) == nil, "\(path)")
        }
    }
}
