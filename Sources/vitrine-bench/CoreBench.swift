import Foundation
import VitrineCore

func runCoreBenchmarks(_ options: [String]) {
    print("{\"bench\":\"core.placeholder\"}")
}
