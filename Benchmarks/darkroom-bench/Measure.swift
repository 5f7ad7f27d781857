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

/// One subprocess run under `/usr/bin/time -v`: wall time around spawn and reap, CPU time from
/// `wait4`'s resource usage (including the children a shell pipeline waited for), peak RSS from
/// `time` (a child spawned straight from this large process would report this process's RSS: the
/// kernel carries the pre-exec high-water mark into `ru_maxrss`).
struct ProcessRun {
    var wall: Double
    var cpu: Double
    var peakMB: Double
    var status: Int32
    var stderr: String
}

enum Subprocess {
    static let timeTool = "/usr/bin/time"

    /// Runs `arguments` (argv[0] looked up in PATH) with stdout to /dev/null and stderr captured.
    /// `posix_spawnp` + `wait4`, not Foundation's `Process`: its `waitUntilExit` polls a run loop
    /// and added up to ~50 ms to a 0.25 s run.
    static func run(_ arguments: [String], shell: Bool = false) throws -> ProcessRun {
        guard !arguments.isEmpty else { throw BenchFailure("empty command") }
        let argv = [timeTool, "-v"] + (shell ? ["/bin/bash", "-c", arguments.joined(separator: " ")] : arguments)
        let errPath = NSTemporaryDirectory() + "darkroom-bench-stderr-\(getpid())"
        defer { unlink(errPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        var pid: pid_t = 0
        let t0 = Clock.now()
        let rc = posix_spawnp(&pid, argv[0], &actions, nil, &cArgs, environ)
        guard rc == 0 else { throw BenchFailure("\(argv[0]): cannot start (\(String(cString: strerror(rc))))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let wall = Clock.now() - t0
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        var peakKB = 0.0
        for line in err.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("Maximum resident set size"), let v = t.split(separator: ":").last.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
                peakKB = v
            }
        }
        let exitStatus: Int32 = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return ProcessRun(wall: wall, cpu: seconds(usage.ru_utime) + seconds(usage.ru_stime),
                          peakMB: peakKB / 1024, status: exitStatus, stderr: err)
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
