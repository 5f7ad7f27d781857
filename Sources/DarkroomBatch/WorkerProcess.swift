import Foundation

/// The supervisor's handle on one worker process (`BatchWorker`): `/proc/self/exe
/// __batch-worker`, jobs on its standard input, replies on its descriptor 3, its standard output
/// and error joined to the supervisor's standard error.
///
/// `receive` waits for the next reply line while watching the worker: it kills it (SIGKILL)
/// when the deadline passes (`timedOut`), when its resident set size (`/proc/PID/statm`, sampled
/// every 0.1 s) passes the memory limit (`overMemory`), or when an interrupt's grace period has
/// passed (`interrupted`); it notices when the worker dies on its own (`died`, with its wait
/// status).
///
/// An in-process worker (`startInProcess`, for a single-file develop) runs the same loop on a
/// thread of this process over the same two pipes, so the supervisor's code is the same; what
/// isolation cannot give there: a crash ends the whole process, and a worker that passes its time
/// or memory limit is abandoned (its file fails, the run ends, the process exits) rather than
/// killed.
final class WorkerProcess {
    private static let spawnLock = NSLock()
    let pid: pid_t
    private let toWorker: Int32
    private let reader: LineReader
    private var reaped = false
    private(set) var waitStatus: Int32 = 0
    /// Signalled when an in-process worker's thread ends; nil for a worker process.
    private let threadEnded: DispatchSemaphore?

    enum Outcome {
        case line([UInt8])
        /// The description, and whether the input caused it (a fault signal: SIGSEGV, SIGBUS,
        /// SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSYS) rather than something outside (SIGKILL or
        /// SIGHUP from elsewhere, an exit status).
        case died(String, inputFault: Bool)
        case timedOut
        case overMemory(Double)
        case interrupted
    }

    /// The job and reply pipes ([read, write] each), close-on-exec; call under `spawnLock`.
    private static func makePipes() -> Result<(jobs: [Int32], replies: [Int32]), BatchError> {
        var jobs: [Int32] = [0, 0], replies: [Int32] = [0, 0]
        guard pipe(&jobs) == 0 else { return .failure(.io("cannot create a pipe: \(String(cString: strerror(errno)))")) }
        guard pipe(&replies) == 0 else {
            close(jobs[0]); close(jobs[1])
            return .failure(.io("cannot create a pipe: \(String(cString: strerror(errno)))"))
        }
        for fd in jobs + replies { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return .success((jobs, replies))
    }

    /// Starts a worker from `executable` (a `darkroom` binary; normally `/proc/self/exe`).
    /// `argument` selects the worker loop (`BatchWorker.argument` or `ConvertWorker.argument`).
    static func spawn(executable: String, argument: String = BatchWorker.argument) -> Result<WorkerProcess, BatchError> {
        // Pipes are created close-on-exec under one lock with the spawn, so no worker inherits
        // another worker's pipe ends (which would hide its end of input).
        spawnLock.lock(); defer { spawnLock.unlock() }
        let jobs: [Int32], replies: [Int32]
        switch makePipes() {
        case .success(let p): (jobs, replies) = p
        case .failure(let e): return .failure(e)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, jobs[0], 0)
        posix_spawn_file_actions_adddup2(&actions, 2, 1)
        posix_spawn_file_actions_adddup2(&actions, replies[1], BatchWorker.replyDescriptor)
        var env = ProcessInfo.processInfo.environment
        env[BatchWorker.parentVariable] = String(getpid())
        // A crash is reported as one line naming the file and the signal, not a runtime backtrace
        // (set SWIFT_BACKTRACE yourself to get one).
        if env["SWIFT_BACKTRACE"] == nil { env["SWIFT_BACKTRACE"] = "enable=no" }
        let envStrings = env.map { "\($0.key)=\($0.value)" }
        let args = ["darkroom", argument]
        var pid: pid_t = 0
        let rc = withCStrings(args) { argv in
            withCStrings(envStrings) { envp in
                posix_spawn(&pid, executable, &actions, nil, argv, envp)
            }
        }
        close(jobs[0]); close(replies[1])
        guard rc == 0 else {
            close(jobs[1]); close(replies[0])
            return .failure(.io("cannot start a worker process: \(String(cString: strerror(rc)))"))
        }
        return .success(WorkerProcess(pid: pid, toWorker: jobs[1], fromWorker: replies[0]))
    }

    /// Starts the worker loop on a thread of this process (see the type's description).
    static func startInProcess() -> Result<WorkerProcess, BatchError> {
        spawnLock.lock(); defer { spawnLock.unlock() }
        let jobs: [Int32], replies: [Int32]
        switch makePipes() {
        case .success(let p): (jobs, replies) = p
        case .failure(let e): return .failure(e)
        }
        let ended = DispatchSemaphore(value: 0)
        let (jobsIn, repliesOut) = (jobs[0], replies[1])
        let t = Thread {
            _ = BatchWorker.serve(jobs: jobsIn, replies: repliesOut, inProcess: true)
            close(jobsIn); close(repliesOut)
            ended.signal()
        }
        t.stackSize = 8 << 20    // as the main thread of a worker process
        t.start()
        return .success(WorkerProcess(pid: getpid(), toWorker: jobs[1], fromWorker: replies[0], threadEnded: ended))
    }

    var inProcess: Bool { threadEnded != nil }

    private init(pid: pid_t, toWorker: Int32, fromWorker: Int32, threadEnded: DispatchSemaphore? = nil) {
        self.pid = pid; self.toWorker = toWorker; self.reader = LineReader(fd: fromWorker); self.threadEnded = threadEnded
    }

    private var inputClosed = false

    deinit {
        if !inputClosed { close(toWorker) }
        close(reader.fd)
        if !reaped {
            if !inProcess { kill(pid, SIGKILL) }
            _ = reap()
        }
    }

    /// Sends one message; false when the worker is gone.
    func send<T: Encodable>(_ message: T) -> Bool {
        guard let bytes = WorkerWire.encode(message) else { return false }
        return WorkerWire.send(bytes, to: toWorker)
    }

    /// Waits for the next reply line (see the type's description). `deadline` is in
    /// `Date().timeIntervalSince1970` seconds; `memoryLimit` in bytes (0: none).
    func receive(deadline: Double?, memoryLimit: Int64) -> Outcome {
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        while true {
            if let l = reader.bufferedLine() { return .line(l) }
            if reader.atEnd { return died() }
            var p = pollfd(fd: reader.fd, events: Int16(POLLIN), revents: 0)
            let r = poll(&p, 1, 100)
            if r > 0 {
                if !reader.fill() { return died() }
                continue
            }
            if r < 0 && errno != EINTR { return died() }
            if let deadline, Date().timeIntervalSince1970 >= deadline { terminate(); return .timedOut }
            if memoryLimit > 0, let rss = residentPages().map({ $0 * page }), rss > memoryLimit {
                terminate()
                return .overMemory(Double(rss) / 1048576)
            }
            if Interrupt.shared.graceExpired { terminate(); return .interrupted }
        }
    }

    /// What an outcome that lost this worker means for its file: the failure category, one line
    /// naming `input`, and whether the input caused it (see `Outcome.died`). Nil for a reply line
    /// and for an interrupt. `timeout` (seconds) and `memoryLimit` (bytes) are the limits the
    /// `receive` that produced `outcome` was given.
    func loss(_ outcome: Outcome, input: String, timeout: Double, memoryLimit: Int64)
        -> (category: FailureCategory, message: String, inputFault: Bool)? {
        switch outcome {
        case .line, .interrupted:
            return nil
        case .died(let why, let inputFault):
            return (.crashed, "\(input): \(why)", inputFault)
        case .timedOut:
            let ended = inProcess ? "develop abandoned" : "worker process killed"
            return (.timeout, "\(input): no result after \(BatchRunner.seconds(timeout)) s (--timeout); \(ended)", true)
        case .overMemory(let mb):
            let who = inProcess ? "the process" : "the worker process"
            let ended = inProcess ? "develop abandoned" : "killed"
            return (.memory, "\(input): \(who) used \(Int(mb)) MiB, over its limit of \(memoryLimit >> 20) MiB; \(ended)", true)
        }
    }

    /// Resident pages of the worker (second field of /proc/PID/statm).
    private func residentPages() -> Int64? {
        let fd = open("/proc/\(pid)/statm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 128)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        let fields = String(decoding: buf[0..<n], as: UTF8.self).split(separator: " ")
        return fields.count > 1 ? Int64(fields[1]) : nil
    }

    /// SIGKILL and reap; an in-process worker is abandoned (its input closed, its thread left to
    /// end with the process).
    func terminate() {
        guard !reaped else { return }
        if inProcess {
            if !inputClosed { close(toWorker); inputClosed = true }
            reaped = true
            return
        }
        kill(pid, SIGKILL)
        _ = reap()
    }

    /// Ends an idle worker: closing its input makes it exit; reaped so its peak memory counts in
    /// RUSAGE_CHILDREN.
    func finish() {
        if !inputClosed { close(toWorker); inputClosed = true }
        _ = reap()
    }

    private func reap() -> Int32 {
        guard !reaped else { return waitStatus }
        if let threadEnded {
            // An idle in-process worker ends as soon as its input is closed.
            _ = threadEnded.wait(timeout: .now() + 5)
            reaped = true
            return 0
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        waitStatus = status
        return status
    }

    /// "worker process killed by SIGSEGV (signal 11)" or "worker process exited … status N".
    private func died() -> Outcome {
        if inProcess {
            _ = reap()
            return .died("in-process worker ended unexpectedly", inputFault: false)
        }
        let s = reap()
        let sig = s & 0x7F
        if sig != 0 && sig != 0x7F {
            let fault: Set<Int32> = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE, SIGSYS]
            return .died("worker process killed by \(Self.signalName(sig)) (signal \(sig))", inputFault: fault.contains(sig))
        }
        return .died("worker process exited unexpectedly with status \((s >> 8) & 0xFF)", inputFault: false)
    }

    static func signalName(_ sig: Int32) -> String {
        let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGBUS: "SIGBUS", SIGILL: "SIGILL", SIGTRAP: "SIGTRAP",
                                      SIGABRT: "SIGABRT", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM",
                                      SIGINT: "SIGINT", SIGPIPE: "SIGPIPE", SIGXCPU: "SIGXCPU", SIGXFSZ: "SIGXFSZ",
                                      SIGSYS: "SIGSYS", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT"]
        return names[sig] ?? "signal \(sig)"
    }
}

/// Calls `body` with a NULL-terminated C array of the strings.
private func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var ptrs: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    ptrs.append(nil)
    defer { for p in ptrs { free(p) } }
    return body(ptrs)
}
