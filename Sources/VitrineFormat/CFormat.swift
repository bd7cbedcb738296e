import Glibc

/// `printf`-style formatting through the C library, for the conversions callers have
/// already validated (one argument per conversion).
public func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    // Most results are short: written into the stack first, to the heap only when longer
    // (bound text formats its numbers on every frame it animates).
    let short = 128
    let fitted: String? = withUnsafeTemporaryAllocation(of: CChar.self, capacity: short) { buffer in
        let needed = Int(withVaList(arguments) { vsnprintf(buffer.baseAddress!, short, format, $0) })
        return needed < short ? String(cString: buffer.baseAddress!) : nil
    }
    if let fitted { return fitted }
    let capacity = Int(withVaList(arguments) { vsnprintf(nil, 0, format, $0) }) + 1
    var buffer = [CChar](repeating: 0, count: capacity)
    _ = withVaList(arguments) { vsnprintf(&buffer, capacity, format, $0) }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
