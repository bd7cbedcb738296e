/// Why a screen keyboard's layout or theme cannot be used: what was asked and what to do.
public struct KeyboardError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
