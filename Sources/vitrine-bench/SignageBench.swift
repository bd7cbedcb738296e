import Foundation
import Logging
import VitrineConfig
import VitrineDaemon
import VitrineOutput
import VitrineOutputSet
import VitrineProtocol
import VitrineRaster

// vitrine-bench signage: playlists on a coordinator in this process (headless 640×360,
// manual clock at 60 Hz).
//
// switch: a playlist of three full-screen scenes (red, green, blue), 2 s each, pushed in
// over 0.25 s. Every frame presented across 30 switches is looked at by a frame tap and
// sorted: one item whole, a mix of the two items (the transition), or anything else —
// background or a half-loaded scene ("blank"). The goal is the transition's frames at most
// (0.25 s × 60 = 15, its first at progress 0 showing the old item whole) per switch and no
// blank frame, beside the 100–200 ms black gap reported for Anthias (issues #95, #3262).
//
// day: a day of a 10-item playlist (8.64 s each: 10 000 switches, cut to 1 000 with
// --quick), the clock moved from one item's end to the next: the CPU time per switch
// against a frame with no switch in the same run, and the resident memory at the start,
// the middle and the end.

func runSignageBenchmarks(_ arguments: [String]) {
    let quick = arguments.contains("--quick")
    do {
        try switchBench()
        try dayBench(switches: quick ? 1000 : 10_000)
    } catch {
        FileHandle.standardError.write(Data("vitrine-bench signage: \(error)\n".utf8))
        exit(1)
    }
}

private let colours = ["#d03030", "#30d030", "#3030d0", "#d0d030", "#30d0d0", "#d030d0", "#808080", "#202020", "#f0f0f0", "#d08030"]

private func config(items: Int, seconds: Double, transition: String) -> String {
    var text = ""
    for i in 0..<items {
        text += """
            [scenes.s\(i)]
            background = "#000000"
            [[scenes.s\(i).layers]]
            id = "panel"
            properties = { bounds = [0, 0, 640, 360], position = [320, 180], backgroundColor = "\(colours[i])" }

            """
    }
    let list = (0..<items).map { "{ scene = \"s\($0)\", duration = \(seconds)\(transition) }" }.joined(separator: ", ")
    return text + "[output]\nbackground = \"#ff00ff\"\n[[playlists]]\nname = \"p\"\nitems = [\(list)]\n[[schedules]]\nplaylist = \"p\"\n"
}

private final class Bench: ClientConnection {
    let clientID = 1
    let coordinator: Coordinator

    init(_ toml: String) throws {
        var settings = DaemonSettings(configuration: try Configuration(toml: toml, source: "/tmp/bench.toml"))
        settings.clock = .manual
        coordinator = try Coordinator(
            settings: settings, output: try HeadlessOutput(width: 640, height: 360), logger: Logger(label: "bench") { _ in SwiftLogNoOpLogHandler() })
        coordinator.connect(self)
    }

    func send(_ line: String) {}

    func clock(_ time: Double) {
        _ = coordinator.handle(line: Array(#"{"id": 1, "cmd": "clock.set", "time": \#(time)}"#.utf8), from: self)
        coordinator.flush()
    }
}

/// Sorts each presented frame: which item it shows whole, a mix of two, or neither.
private final class FrameSorter: FrameTap {
    var kinds: [String] = []
    private let items: [UInt32]

    init(items: [UInt32]) { self.items = items }

    func frame(_ surface: Surface, damage: [PixelRect]) {
        var seen = Set<UInt32>()
        for y in stride(from: 0, to: surface.height, by: 9) {
            for x in stride(from: 0, to: surface.width, by: 7) { seen.insert(surface.pixels[y * surface.stride + x]) }
        }
        if seen.count == 1, let only = seen.first, let index = items.firstIndex(of: only) {
            kinds.append("item\(index)")
        } else if seen.isSubset(of: Set(items)) || seen.allSatisfy({ Self.isMix($0, of: items) }) {
            kinds.append("mix")
        } else {
            kinds.append("blank")
        }
    }

    /// A blend of two of the items' colours (a column the transition's edge crosses).
    private static func isMix(_ pixel: UInt32, of items: [UInt32]) -> Bool {
        if items.contains(pixel) { return true }
        func channels(_ p: UInt32) -> [Double] { [Double((p >> 16) & 0xff), Double((p >> 8) & 0xff), Double(p & 0xff)] }
        for a in items {
            for b in items where a != b {
                let (pa, pb, pp) = (channels(a), channels(b), channels(pixel))
                let t = (pp[0] - pa[0]) / (pb[0] - pa[0] == 0 ? 1 : pb[0] - pa[0])
                if (0...1).contains(t), (0..<3).allSatisfy({ abs(pa[$0] + (pb[$0] - pa[$0]) * t - pp[$0]) <= 3 }) { return true }
            }
        }
        return false
    }
}

private func switchBench() throws {
    let transition = ", transition = { transition = \"push\", subtype = \"fromRight\", duration = 0.25, timing = \"linear\" }"
    let bench = try Bench(config(items: 3, seconds: 2, transition: transition))
    let argb: [UInt32] = [0xFFD0_3030, 0xFF30_D030, 0xFF30_30D0]
    let sorter = FrameSorter(items: argb)
    // (from the first item shown whole: it came in over the output's background at start)
    bench.clock(0.5)
    bench.coordinator.outputSet.heads[0].pipeline.add(sorter)
    let switches = 30
    for frame in 31...(switches * 120 + 90) { bench.clock(Double(frame) / 60) }
    bench.coordinator.outputSet.heads[0].pipeline.remove(sorter)
    let mixed = sorter.kinds.filter { $0 == "mix" }.count, blank = sorter.kinds.filter { $0 == "blank" }.count
    print(
        "{\"bench\":\"signage.switch\",\"switches\":\(switches),\"frames\":\(sorter.kinds.count),\"transition_frames_expected\":15,\"mixed_frames_per_switch\":\(String(format: "%.2f", Double(mixed) / Double(switches))),\"blank_frames\":\(blank),\"anthias_gap_ms\":\"100-200\"}"
    )
}

private func dayBench(switches: Int) throws {
    let bench = try Bench(config(items: 10, seconds: 8.64, transition: ""))
    func cpu() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    func residentMB() -> Double {
        let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
        return fields.count > 1 ? (Double(fields[1]) ?? 0) * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576 : 0
    }
    var memory: [Double] = [residentMB()]
    var switchCPU = 0.0, idleCPU = 0.0
    for i in 1...switches {
        let end = Double(i) * 8.64
        let before = cpu()
        bench.clock(end)
        let between = cpu()
        bench.clock(end + 1.0 / 60)
        let after = cpu()
        switchCPU += between - before
        idleCPU += after - between
        if i == switches / 2 { memory.append(residentMB()) }
    }
    memory.append(residentMB())
    let perSwitch = switchCPU / Double(switches) * 1000, perFrame = idleCPU / Double(switches) * 1000
    print(
        "{\"bench\":\"signage.day\",\"switches\":\(switches),\"cpu_per_switch_ms\":\(String(format: "%.3f", perSwitch)),\"cpu_per_plain_frame_ms\":\(String(format: "%.3f", perFrame)),\"ratio\":\(String(format: "%.2f", perSwitch / max(perFrame, 1e-6))),\"resident_mb\":[\(memory.map { String(format: "%.1f", $0) }.joined(separator: ","))]}"
    )
}
