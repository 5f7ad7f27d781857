import DarkroomIO
import Dispatch
import Foundation

/// Ctrl-C and SIGTERM handling: the first SIGINT or SIGTERM stops new files from starting while
/// running ones finish (their outputs are written atomically, so nothing partial appears), for at
/// most `gracePeriod` seconds, after which the batch kills its workers; a second signal kills the
/// workers at once, removes this run's temporary files below the output directory and exits 130.
/// So a signal always ends the process, even when a file hangs in a decoder.
public final class Interrupt: @unchecked Sendable {
    public static let shared = Interrupt()
    /// Seconds running files get to finish after the first signal.
    public static let gracePeriod: Double = 10
    private let lock = NSLock()
    private var flag = false
    private var firstSignal: Double?
    private var sources: [DispatchSourceSignal] = []
    private var cleanupDirectory: String?
    private var abortHandlers: [@Sendable () -> Void] = []

    public var requested: Bool { lock.lock(); defer { lock.unlock() }; return flag }

    /// True once the grace period after the first signal has passed.
    public var graceExpired: Bool {
        lock.lock(); defer { lock.unlock() }
        guard let t = firstSignal else { return false }
        return Date().timeIntervalSince1970 - t >= Self.gracePeriod
    }

    public func request() {
        lock.lock(); flag = true
        if firstSignal == nil { firstSignal = Date().timeIntervalSince1970 }
        lock.unlock()
    }

    /// Runs `handler` (e.g. killing worker processes) before an abort exits the process.
    public func onAbort(_ handler: @escaping @Sendable () -> Void) {
        lock.lock(); abortHandlers.append(handler); lock.unlock()
    }

    /// Installs the handlers (idempotent).
    public func install(cleanupDirectory: String?) {
        lock.lock(); defer { lock.unlock() }
        self.cleanupDirectory = cleanupDirectory
        guard sources.isEmpty else { return }
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { [weak self] in self?.fired() }
            s.resume()
            sources.append(s)
        }
    }

    private func fired() {
        lock.lock()
        let second = flag
        flag = true
        if firstSignal == nil { firstSignal = Date().timeIntervalSince1970 }
        let dir = cleanupDirectory
        let handlers = abortHandlers
        lock.unlock()
        if second {
            for h in handlers { h() }
            if let dir { TempSweeper.sweep(dir, onlyPID: getpid()); TempSweeper.sweep(dir) }
            _exit(130)
        }
        FileHandle.standardError.write(Data("\ndarkroom: interrupted; finishing running files (Ctrl-C again to abort)\n".utf8))
    }
}

/// Removes `AtomicWriter` temporary files (`.tmp-PID-N-HOST`, and the older `.tmp-PID-N` and
/// `.NAME.tmp-PID-N`) below a directory that belong to processes no longer alive (left by kill -9
/// or a crash), or to one given process. A file written on another machine (its HOST is not
/// `AtomicWriter.hostTag`: shards on several nodes sharing one folder) is never judged by its
/// process id, which means nothing here; it is removed only once it has not changed for
/// `foreignAge` seconds (a writer renames its file within seconds). The walk opens every
/// sub-directory with O_NOFOLLOW: a symbolic link below the directory is never followed, so
/// nothing outside it is touched.
public enum TempSweeper {
    /// How long a temporary file of another machine must have been left unchanged to be removed.
    public static let foreignAge: Double = 3600

    /// The process id in a temporary file's name, and the host tag when the name carries one.
    static func owner(ofTemporary name: String) -> (pid: Int32, host: String?)? {
        guard name.hasPrefix("."), let r = name.range(of: ".tmp-", options: .backwards) else { return nil }
        let tail = name[r.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard tail.count == 2 || tail.count == 3, let pid = Int32(tail[0]), pid > 0, UInt32(tail[1]) != nil else { return nil }
        guard tail.count == 3 else { return (pid, nil) }
        guard tail[2].count == 8, UInt32(tail[2], radix: 16) != nil else { return nil }
        return (pid, String(tail[2]))
    }

    /// True when /proc says `pid` has exited and waits to be reaped (state Z) or is dead (X).
    static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "Z" || state == "X"
    }

    @discardableResult
    public static func sweep(_ dir: String, onlyPID: Int32? = nil) -> [String] {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        var removed: [String] = []
        var alive: [Int32: Bool] = [:]
        func stale(_ pid: Int32) -> Bool {
            if let onlyPID { return pid == onlyPID }
            if let a = alive[pid] { return !a }
            // A zombie (dead, not yet reaped: a killed run's worker whose new parent does not reap
            // it, as in some containers) writes nothing more: its files are stale too.
            let isAlive = pid == getpid() || ((kill(pid, 0) == 0 || errno != ESRCH) && !Self.isZombie(pid))
            alive[pid] = isAlive
            return !isAlive
        }
        func visit(_ fd: Int32, _ path: String, depth: Int) {
            guard depth < 64, let d = fdopendir(fd) else { close(fd); return }
            defer { closedir(d) }
            var subdirs: [String] = []
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name == "." || name == ".." { continue }
                var s = stat()
                guard fstatat(dirfd(d), name, &s, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                if (s.st_mode & S_IFMT) == S_IFDIR { subdirs.append(name); continue }
                guard (s.st_mode & S_IFMT) == S_IFREG, let owner = owner(ofTemporary: name) else { continue }
                if let host = owner.host, host != AtomicWriter.hostTag {
                    let modified = Double(s.st_mtim.tv_sec) + Double(s.st_mtim.tv_nsec) / 1e9
                    guard onlyPID == nil, Date().timeIntervalSince1970 - modified > foreignAge else { continue }
                } else if !stale(owner.pid) {
                    continue
                }
                if unlinkat(dirfd(d), name, 0) == 0 { removed.append(path + "/" + name) }
            }
            for name in subdirs {
                let sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if sub >= 0 { visit(sub, path + "/" + name, depth: depth + 1) }
            }
        }
        visit(fd, dir, depth: 0)
        return removed
    }
}
