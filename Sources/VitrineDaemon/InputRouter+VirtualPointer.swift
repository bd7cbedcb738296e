import VitrineCore
import VitrineInput
import VitrineSystem
import VitrineWayland

/// Virtual pointers (`zwlr_virtual_pointer_v1`, wayvnc's): their events are the pointer's
/// as a device's are, bindings and hosted windows included.
extension InputRouter: VirtualPointerDelegate {
    /// The device name virtual pointers' events carry.
    static let virtualPointerDevice = "virtual-pointer"

    func virtualPointer(_ event: VirtualPointerEvent) {
        let primary = outputSet.primary
        let (width, height) = (Double(primary.backend.mode.width), Double(primary.backend.mode.height))
        var kind = PointerEvent.Kind.motion
        var point = pointer
        switch event {
        case .motion(let dx, let dy):
            point = Point(x: min(max(0, point.x + dx), width - 1), y: min(max(0, point.y + dy), height - 1))
        case .absolute(let x, let y, let name):
            let head = name.flatMap { name in outputSet.heads.first { $0.name == name } } ?? primary
            let mode = head.backend.mode
            point = Point(
                x: head.origin.x - primary.origin.x + x * Double(mode.width), y: head.origin.y - primary.origin.y + y * Double(mode.height))
        case .button(let code, let pressed): kind = .button(code, pressed: pressed)
        case .axis(let dx, let dy): kind = .axis(dx: dx, dy: dy)
        }
        handle(.pointer(PointerEvent(time: EventLoop.monotonicSeconds, kind: kind, point: point, device: Self.virtualPointerDevice)))
        changed()
    }
}
