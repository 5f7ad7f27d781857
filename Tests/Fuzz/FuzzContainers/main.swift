// libFuzzer entry for `fuzzContainers` (Tests/Fuzz/Bodies): built only by `make fuzz`.
import CFuzzDriver
import DarkroomFuzzBodies
import Glibc

/// libFuzzer's callback by its C name (its runtime's own `main` refers to it; our entry point below
/// is the one that runs).
@_cdecl("LLVMFuzzerTestOneInput")
public func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data else { return 0 }
    return fuzzContainers(data, size)
}

// libFuzzer's driver runs from our entry point (SwiftPM names the executable's entry itself).
var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in
    guard let data else { return 0 }
    return fuzzContainers(data, size)
})
