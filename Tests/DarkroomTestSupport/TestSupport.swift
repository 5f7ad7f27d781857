import Foundation

/// What every test target shares: the package and sample paths, temporary directories, and
/// running the `darkroom` binary or an independent tool (sha256sum, xxhsum, exiftool, heif-info…)
/// as a subprocess. Suite-specific helpers stay in their test target as extensions.
public enum TestSupport {
    /// The package root (…/Tests/DarkroomTestSupport/TestSupport.swift → three levels up).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Where `../shared/samples` is (or would be) beside the checkout.
    public static let sharedSamplesPath: URL = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/samples")

    /// `../shared/samples` beside the checkout, when present.
    public static var sharedSamples: URL? { sharedSamples("") }

    /// `../shared/samples/SUB` beside the checkout, when present.
    public static func sharedSamples(_ sub: String) -> URL? {
        var u = sharedSamplesPath
        if !sub.isEmpty { u = u.appendingPathComponent(sub) }
        return FileManager.default.fileExists(atPath: u.path) ? u : nil
    }

    /// The visible files of `../shared/samples/SUB`, sorted by name; empty when absent.
    public static func files(in sub: String) -> [URL] {
        guard let dir = sharedSamples(sub) else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { dir.appendingPathComponent($0) }
    }

    /// A fresh temporary directory named after the calling test; remove it with `cleanup`.
    public static func tempDirectory(_ tag: String = #function) -> String {
        let safe = tag.filter { $0.isLetter || $0.isNumber }
        let path = NSTemporaryDirectory() + "darkroom-test-\(safe)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    public static func cleanup(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

    /// `bytes` written to a fresh temporary file with `suffix`; the caller removes it.
    public static func temporaryFile(_ bytes: [UInt8], suffix: String) throws -> String {
        let path = NSTemporaryDirectory() + "darkroom-test-\(UUID().uuidString).\(suffix)"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The first of `candidates` that is an executable file (e.g. a tool in /usr/bin or /usr/local/bin).
    public static func tool(_ candidates: String...) -> String? {
        candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The built `darkroom` executable in the build products directory holding this test bundle.
    public static var binary: String? {
        let arg0 = URL(fileURLWithPath: ProcessInfo.processInfo.arguments[0])
        let candidates = [arg0.deletingLastPathComponent(), arg0.deletingLastPathComponent().deletingLastPathComponent(),
                          Bundle.main.bundleURL.deletingLastPathComponent(), Bundle.main.bundleURL]
        for dir in candidates {
            let p = dir.appendingPathComponent("darkroom").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }

    /// A finished subprocess: exit status (or terminating signal) and its output.
    public struct Run: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    public struct TestFailure: Error, CustomStringConvertible {
        public let description: String
        public init(_ d: String) { description = d }
    }

    /// Runs `darkroom ARGS` to completion (see `runTool`).
    public static func run(_ args: [String], in dir: String? = nil, environment: [String: String] = [:],
                           limit: Double = 300) throws -> Run {
        guard let bin = binary else { throw TestFailure("darkroom binary not found next to the test bundle; build it first") }
        return try runTool(bin, args, in: dir, environment: environment, limit: limit)
    }

    /// Runs `executable ARGS` to completion (with `environment` added to this process's), draining
    /// stdout and stderr concurrently so a chatty child never blocks on a full pipe. When `limit`
    /// seconds pass first, kills it and throws: a hang is a test failure, not a stuck run.
    public static func runTool(_ executable: String, _ args: [String], in dir: String? = nil,
                               environment: [String: String] = [:], limit: Double = 300) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        if let dir { p.currentDirectoryURL = URL(fileURLWithPath: dir) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let pid = p.processIdentifier
        let killed = DataBox()
        let watchdog = DispatchWorkItem { killed.data = Data([1]); kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit, execute: watchdog)
        defer { watchdog.cancel() }
        let errBox = DataBox()
        let t = Thread { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        t.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !errBox.done { usleep(1000) }
        if killed.done {
            throw TestFailure("\((executable as NSString).lastPathComponent) \(args.joined(separator: " ")) did not finish within \(limit) s (killed)")
        }
        return Run(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                   stderr: String(decoding: errBox.data, as: UTF8.self))
    }

    private final class DataBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value = Data()
        private var finished = false
        var data: Data {
            get { lock.lock(); defer { lock.unlock() }; return value }
            set { lock.lock(); value = newValue; finished = true; lock.unlock() }
        }
        var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    }
}
