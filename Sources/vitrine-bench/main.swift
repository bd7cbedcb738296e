import Foundation

// vitrine-bench: release-build benchmarks that print one JSON object per line.
//
//     swift run -c release vitrine-bench core|raster|frame|rolling|protocol|flood|restore|shadow|image|video|outputs|fleet|compositor|osk|signage|text [--quick]

let arguments = Array(CommandLine.arguments.dropFirst())
let suites: [String: ([String]) -> Void] = [
    "core": runCoreBenchmarks,
    "raster": runRasterBenchmarks,
    "frame": runFrameBenchmarks,
    "rolling": runRollingBenchmarks,
    "protocol": runProtocolBenchmarks,
    "restore": runRestoreBenchmarks,
    "flood": runFloodBenchmarks,
    "image": runImageBenchmarks,
    "shadow": runShadowBenchmarks,
    "video": runVideoBenchmarks,
    "outputs": runOutputsBenchmarks,
    "fleet": runFleetBenchmarks,
    "compositor": runCompositorBenchmarks,
    "osk": runOskBenchmarks,
    "signage": runSignageBenchmarks,
    "text": runTextBenchmarks,
]
guard let name = arguments.first, let suite = suites[name] else {
    let known = suites.keys.sorted().joined(separator: "|")
    FileHandle.standardError.write(Data("usage: vitrine-bench \(known) [options]\n".utf8))
    exit(2)
}
suite(Array(arguments.dropFirst()))
