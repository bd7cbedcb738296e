import Foundation

/// `wayland-glue PROTOCOL.xml OUT.swift`: the Swift description of a Wayland protocol's
/// interfaces (their requests and events with wayland-scanner's signatures and argument
/// interfaces, the opcodes, and the codes of their `error` enums) as a
/// `WaylandDescription.WaylandProtocol`, which the
/// Wayland window (VitrineOutput) and server (VitrineWayland) turn into libwayland's
/// `wl_interface` tables at run time. Run at build time by the WaylandGlue plugin on wayland-protocols'
/// XML: the generated file lives in the build directory only.
struct Argument {
    var type = "", interface: String?, nullable = false
}

struct Message {
    var name = "", since = 1, arguments: [Argument] = []

    /// wayland-scanner's signature: the version it appeared in, then one letter per
    /// argument (`?` before a nullable one; an untyped new_id is `sun`).
    var signature: String {
        var text = since > 1 ? String(since) : ""
        for argument in arguments {
            if argument.nullable { text += "?" }
            switch argument.type {
            case "int": text += "i"
            case "uint": text += "u"
            case "fixed": text += "f"
            case "string": text += "s"
            case "object": text += "o"
            case "new_id": text += argument.interface == nil ? "sun" : "n"
            case "array": text += "a"
            case "fd": text += "h"
            default: text += "?"
            }
        }
        return text
    }

    /// The interface of each argument the signature has (nil for plain values).
    var types: [String?] {
        arguments.flatMap { a -> [String?] in
            a.type == "new_id" && a.interface == nil ? [nil, nil, nil] : [a.type == "object" || a.type == "new_id" ? a.interface : nil]
        }
    }
}

struct Interface {
    var name = "", version = 1, requests: [Message] = [], events: [Message] = []
    /// The entries of its `error` enum: name and code.
    var errors: [(name: String, value: String)] = []
}

/// The attributes of a tag's text (`arg name="x" type="uint"/`).
func attributes(_ tag: Substring) -> [String: String] {
    var result: [String: String] = [:]
    var rest = tag
    while let equals = rest.firstIndex(of: "=") {
        let key = rest[..<equals].split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).last.map(String.init) ?? ""
        guard let open = rest[equals...].firstIndex(of: "\""), let close = rest[rest.index(after: open)...].firstIndex(of: "\"") else { break }
        result[key] = String(rest[rest.index(after: open)..<close])
        rest = rest[rest.index(after: close)...]
    }
    return result
}

func quoted(_ s: String?) -> String { s.map { "\"\($0)\"" } ?? "nil" }
func messages(_ list: [Message]) -> String {
    list.map { "            .init(name: \(quoted($0.name)), signature: \(quoted($0.signature)), types: [\($0.types.map(quoted).joined(separator: ", "))])," }
        .joined(separator: "\n")
}

/// The interfaces of a protocol's XML, with their requests and events in opcode order.
func interfaces(in xml: String) -> [Interface] {
    var interfaces: [Interface] = []
    var message: Message?
    var isEvent = false
    var inErrors = false
    var scan = xml[...]
    // Comments and descriptions hold text, not tags the protocol is made of: they are skipped.
    while let open = scan.firstIndex(of: "<") {
        if scan[open...].hasPrefix("<!--"), let end = scan[open...].range(of: "-->") {
            scan = scan[end.upperBound...]
            continue
        }
        guard let close = scan[open...].firstIndex(of: ">") else { break }
        let tag = scan[scan.index(after: open)..<close]
        scan = scan[scan.index(after: close)...]
        var name = tag.prefix { $0 != " " && $0 != "\n" && $0 != "\t" }
        if name.count > 1, name.hasSuffix("/") { name = name.dropLast() }
        let values = attributes(tag)
        switch name {
        case "interface":
            interfaces.append(Interface(name: values["name"] ?? "", version: Int(values["version"] ?? "1") ?? 1))
        case "request", "event":
            message = Message(name: values["name"] ?? "", since: Int(values["since"] ?? "1") ?? 1)
            isEvent = name == "event"
            if tag.hasSuffix("/") {
                if isEvent { interfaces[interfaces.count - 1].events.append(message!) } else { interfaces[interfaces.count - 1].requests.append(message!) }
                message = nil
            }
        case "enum":
            inErrors = values["name"] == "error"
        case "/enum":
            inErrors = false
        case "entry" where inErrors:
            interfaces[interfaces.count - 1].errors.append((values["name"] ?? "", values["value"] ?? "0"))
        case "arg":
            message?.arguments.append(Argument(type: values["type"] ?? "", interface: values["interface"], nullable: values["allow-null"] == "true"))
        case "/request", "/event":
            if let finished = message {
                if isEvent { interfaces[interfaces.count - 1].events.append(finished) } else { interfaces[interfaces.count - 1].requests.append(finished) }
            }
            message = nil
        default:
            break
        }
    }
    return interfaces
}

/// The Swift description of `interfaces` for the protocol read from `path`.
func glue(for interfaces: [Interface], from path: String) -> String {
    let protocolName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        .split(separator: "-").enumerated().map { $0.offset == 0 ? String($0.element) : $0.element.capitalized }.joined()
    var out = "// Generated by wayland-glue from \(URL(fileURLWithPath: path).lastPathComponent) at build time; not kept in the repository.\n\n"
    out += "import WaylandDescription\n\n"
    out += "extension WaylandProtocol {\n    static let \(protocolName) = WaylandProtocol(interfaces: [\n"
    for interface in interfaces {
        out += "        WaylandProtocol.Interface(\n            name: \(quoted(interface.name)), version: \(interface.version),\n"
        out += "            requests: [\n\(messages(interface.requests))\n            ],\n"
        out += "            events: [\n\(messages(interface.events))\n            ]),\n"
    }
    out += "    ])\n}\n"
    for interface in interfaces {
        for (kind, list) in [("Request", interface.requests), ("Event", interface.events)] where !list.isEmpty {
            out += "\n/// \(interface.name)'s \(kind.lowercased()) opcodes.\nenum \(typeName(interface.name, kind)): UInt32 {\n"
            for (index, message) in list.enumerated() { out += "    case `\(message.name)` = \(index)\n" }
            out += "}\n"
        }
        if !interface.errors.isEmpty {
            out += "\n/// \(interface.name)'s protocol error codes.\nenum \(typeName(interface.name, "Error")): UInt32 {\n"
            for entry in interface.errors { out += "    case `\(entry.name)` = \(entry.value)\n" }
            out += "}\n"
        }
    }
    return out
}

/// "XdgWmBaseRequest" for xdg_wm_base's requests.
func typeName(_ interface: String, _ kind: String) -> String {
    interface.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() + kind
}

@main enum WaylandGlue {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 3, let xml = try? String(contentsOfFile: arguments[1], encoding: .utf8) else {
            FileHandle.standardError.write(Data("usage: wayland-glue PROTOCOL.xml OUT.swift (the XML must be readable)\n".utf8))
            exit(2)
        }
        do { try glue(for: interfaces(in: xml), from: arguments[1]).write(toFile: arguments[2], atomically: true, encoding: .utf8) } catch {
            FileHandle.standardError.write(Data("wayland-glue: cannot write \(arguments[2]): \(error)\n".utf8))
            exit(1)
        }
    }
}
