import DarkroomTestSupport
import Foundation

/// Runs the built `darkroom` binary (found beside the test bundle, as the batch tests find it)
/// with a time limit, capturing its status, stdout and stderr, and whether a signal ended it.
enum CLIProcess {
    struct Result {
        var status: Int32
        var signalled: Bool
        var timedOut: Bool
        var stdout: String
        var stderr: String
        /// stderr's non-empty lines.
        var errorLines: [String] { stderr.split(separator: "\n").map(String.init).filter { !$0.isEmpty } }
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "darkroom binary not found next to the test bundle; build it first" }
    }

    /// The built `darkroom` beside the test bundle (`TestSupport.binary`).
    static var binary: String? { TestSupport.binary }

    static func run(_ args: [String], timeout: Double = 60) throws -> Result {
        guard let bin = binary else { throw Missing() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: bin)
        p.arguments = args
        let outURL = URL(fileURLWithPath: NSTemporaryDirectory() + "darkroom-cli-\(UUID().uuidString).out")
        let errURL = URL(fileURLWithPath: NSTemporaryDirectory() + "darkroom-cli-\(UUID().uuidString).err")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outURL); try? FileManager.default.removeItem(at: errURL) }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        while p.isRunning {
            if Date() > deadline { timedOut = true; p.terminate(); break }
            usleep(2000)
        }
        p.waitUntilExit()
        try? out.close(); try? err.close()
        return Result(status: p.terminationStatus, signalled: p.terminationReason == .uncaughtSignal, timedOut: timedOut,
                      stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }
}
