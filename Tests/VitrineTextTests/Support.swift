import Testing
@testable import VitrineText

/// A fresh library per test: libraries are not shared across threads.
func fonts() throws -> FontLibrary { try FontLibrary() }

/// A resolved face for `family`.
func face(_ family: String, _ weight: FontWeight = .regular, in library: FontLibrary) throws -> FontFace {
    try library.font(for: FontDescriptor(family: family, weight: weight)).primary
}
