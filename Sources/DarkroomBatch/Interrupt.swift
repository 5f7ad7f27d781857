import Dispatch
import Foundation

/// Ctrl-C handling: the first SIGINT (or SIGTERM) stops new files from starting while running
/// ones finish (their outputs are written atomically, so nothing partial appears); a second one
/// removes this process's temporary files below the output directory and exits 130 at once.
public final class Interrupt: @unchecked Sendable {
    public static let shared = Interrupt()
    private let lock = NSLock()
    private var flag = false
    private var sources: [DispatchSourceSignal] = []
    private var cleanupDirectory: String?

    public var requested: Bool { lock.lock(); defer { lock.unlock() }; return flag }

    public func request() { lock.lock(); flag = true; lock.unlock() }

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
        let dir = cleanupDirectory
        lock.unlock()
        if second {
            if let dir { TempSweeper.sweep(dir, onlyPID: getpid()) }
            _exit(130)
        }
        FileHandle.standardError.write(Data("\ndarkroom: interrupted; finishing running files (Ctrl-C again to abort)\n".utf8))
    }
}

/// Removes `AtomicWriter` temporary files (`.NAME.tmp-PID-N`) below a directory that belong to
/// processes no longer alive (left by kill -9 or a crash), or to one given process.
public enum TempSweeper {
    @discardableResult
    public static func sweep(_ dir: String, onlyPID: Int32? = nil) -> [String] {
        var removed: [String] = []
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        while let rel = e.nextObject() as? String {
            let name = (rel as NSString).lastPathComponent
            guard name.hasPrefix("."), let r = name.range(of: ".tmp-", options: .backwards) else { continue }
            let tail = name[r.upperBound...].split(separator: "-")
            guard tail.count == 2, let pid = Int32(tail[0]), UInt32(tail[1]) != nil else { continue }
            let stale: Bool
            if let onlyPID { stale = pid == onlyPID } else { stale = pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH }
            if stale {
                let full = (dir as NSString).appendingPathComponent(rel)
                if unlink(full) == 0 { removed.append(full) }
            }
        }
        return removed
    }
}
