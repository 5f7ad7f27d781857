import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Wall and CPU seconds of repeated runs.
struct Timing: Sendable, Codable {
    var wall: [Double]
    var cpu: [Double]
    /// Peak resident set size in MB (subprocess runs only; 0 in-process).
    var peakMB: Double = 0

    var best: Double { wall.min() ?? 0 }
    var median: Double {
        let s = wall.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
    var cpuMedian: Double {
        let s = cpu.sorted()
        guard !s.isEmpty else { return 0 }
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

enum Clock {
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// User + system CPU seconds of this process so far.
    static func cpu() -> Double {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6
            + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
    }
}

/// Runs `body` `runs` times in-process; returns wall and CPU time of each run.
func measure<T>(runs: Int, _ body: () throws -> T) rethrows -> (Timing, T) {
    var wall: [Double] = [], cpu: [Double] = []
    var last: T?
    for _ in 0..<max(1, runs) {
        let c0 = Clock.cpu(), t0 = Clock.now()
        let r = try body()
        let t1 = Clock.now(), c1 = Clock.cpu()
        wall.append(t1 - t0); cpu.append(c1 - c0)
        last = r
        _ = last
    }
    // `runs >= 1`, so `last` is set.
    return (Timing(wall: wall, cpu: cpu), last!)
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

/// One subprocess run under `/usr/bin/time -v`.
struct ProcessRun {
    var wall: Double
    var cpu: Double
    var peakMB: Double
    var status: Int32
    var stderr: String
}

enum Subprocess {
    static let timeTool = "/usr/bin/time"

    /// Runs `arguments` (argv[0] is looked up in PATH by `/usr/bin/env`) under `/usr/bin/time -v`.
    static func run(_ arguments: [String], shell: Bool = false) throws -> ProcessRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: timeTool)
        p.arguments = ["-v"] + (shell ? ["/bin/bash", "-c", arguments.joined(separator: " ")] : arguments)
        let errPipe = Pipe()
        p.standardError = errPipe
        p.standardOutput = FileHandle.nullDevice
        let t0 = Clock.now()
        try p.run()
        let errData = errPipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let wall = Clock.now() - t0
        let err = String(decoding: errData, as: UTF8.self)
        func field(_ name: String) -> Double {
            for line in err.split(separator: "\n") {
                let t = line.trimmingCharacters(in: .whitespaces)
                if t.hasPrefix(name), let v = t.split(separator: ":").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
                    return v
                }
            }
            return 0
        }
        let cpu = field("User time (seconds)") + field("System time (seconds)")
        let rss = field("Maximum resident set size (kbytes)") / 1024
        return ProcessRun(wall: wall, cpu: cpu, peakMB: rss, status: p.terminationStatus, stderr: err)
    }

    /// `runs` timed runs after `warmup` untimed ones; fails if any run fails.
    static func time(_ arguments: [String], shell: Bool = false, runs: Int, warmup: Int = 0) throws -> Timing {
        for _ in 0..<warmup {
            let r = try run(arguments, shell: shell)
            guard r.status == 0 else { throw BenchFailure("\(arguments.joined(separator: " ")): exit \(r.status): \(r.stderr.suffix(400))") }
        }
        var t = Timing(wall: [], cpu: [])
        for _ in 0..<max(1, runs) {
            let r = try run(arguments, shell: shell)
            guard r.status == 0 else { throw BenchFailure("\(arguments.joined(separator: " ")): exit \(r.status): \(r.stderr.suffix(400))") }
            t.wall.append(r.wall); t.cpu.append(r.cpu); t.peakMB = max(t.peakMB, r.peakMB)
        }
        return t
    }

    /// Full path of an executable in PATH, or nil.
    static func which(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
