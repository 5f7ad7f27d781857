// libFuzzer's driver for the fuzz executables (`make fuzz` only): each target's entry point calls
// `runLibFuzzer` with its body (Tests/Fuzz/Bodies). SwiftPM names an executable's entry itself,
// so the driver runs from there rather than from libFuzzer's own `main`.
import CFuzzDriver

/// The body of the target being run (one per process).
nonisolated(unsafe) private var currentBody: ((UnsafePointer<UInt8>, Int) -> Int32)?

/// Runs libFuzzer over `body` with this process's arguments; returns its exit status.
public func runLibFuzzer(_ body: @escaping (UnsafePointer<UInt8>, Int) -> Int32) -> Int32 {
    currentBody = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data, let body = currentBody else { return 0 }
        return body(data, size)
    }
}
