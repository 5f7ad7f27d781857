// libFuzzer entry for `fuzzColourFiles` (Tests/Fuzz/Bodies): built only by `make fuzz`.
import DarkroomFuzzBodies
import FuzzDriver
import Glibc

/// libFuzzer's callback by its C name (its runtime's own `main` refers to it; `runLibFuzzer` runs).
@_cdecl("LLVMFuzzerTestOneInput")
public func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 { data.map { fuzzColourFiles($0, size) } ?? 0 }

exit(runLibFuzzer(fuzzColourFiles))
