import DarkroomCore
import DarkroomIO
import Foundation

/// The worker side of a batch: `darkroom __batch-worker` (started by `WorkerProcess` from
/// `/proc/self/exe`) reads `WorkerJob`s on standard input, one JSON line each, and answers on
/// file descriptor 3. It decodes, develops, encodes and writes one file at a time, so a file that
/// crashes or hangs a decoder takes down only this process; the supervisor reports that file and
/// starts a fresh worker. A worker develops many files (start-up is paid once per worker).
///
/// The worker writes only below the job's output directory, through its descriptor
/// (`AtomicWriter.confine`), never replacing the input it develops. It ignores SIGINT and SIGTERM
/// (Ctrl-C or a stop sent to the process group is the supervisor's to handle: running files
/// finish within the grace period, then the supervisor kills its workers) and exits when its
/// supervisor is gone.
///
/// Test-only fault hook, honoured only here: `DARKROOM_TEST_FAULT=crash:NAME,hang:NAME,memory:NAME`
/// makes the develop step of the input whose file name is NAME raise SIGSEGV, sleep forever, or
/// touch memory without bound.
public enum BatchWorker {
    /// The hidden first argument that selects worker mode.
    public static let argument = "__batch-worker"
    /// The descriptor replies are written to.
    static let replyDescriptor: Int32 = 3
    /// Environment variable holding the supervisor's pid.
    static let parentVariable = "DARKROOM_WORKER_PARENT"

    /// Runs the worker loop until standard input ends; returns the exit status.
    public static func main() -> Int32 {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        watchParent()
        return serve(jobs: 0, replies: replyDescriptor, inProcess: false)
    }

    /// The worker loop: reads jobs from `jobs`, answers on `replies`, until `jobs` ends. In a
    /// worker process (`inProcess` false) every write of the process is confined to the first
    /// job's output directory (`AtomicWriter.confine`); in process (a single-file develop, see
    /// `BatchRunner`) only this loop's writes are, through the directory handed to
    /// `FileDeveloper`, since the supervisor in the same process also writes the report.
    static func serve(jobs: Int32, replies: Int32, inProcess: Bool) -> Int32 {
        let faults = Fault.parse(ProcessInfo.processInfo.environment["DARKROOM_TEST_FAULT"] ?? "")
        let reader = LineReader(fd: jobs)
        var directories: [String: AtomicWriter.Directory] = [:]
        while let line = reader.readLine() {
            guard let job = try? JSONDecoder().decode(WorkerJob.self, from: Data(line)) else { return 3 }
            let dir: AtomicWriter.Directory
            if let d = directories[job.outputDirectory] { dir = d } else {
                do { dir = try AtomicWriter.Directory(path: job.outputDirectory, create: false) } catch {
                    guard reply(failure(job, error.description, .write), to: replies) else { return 0 }
                    continue
                }
                directories[job.outputDirectory] = dir
                if !inProcess { AtomicWriter.confine(to: dir) }
            }
            dir.protect(names: Set(job.reservedNames))
            dir.setProtected(identities: job.inputIdentity.map { [$0] } ?? [])
            let answer = run(job, directory: dir, reader: reader, replies: replies, faults: faults)
            guard let answer, reply(answer, to: replies) else { return 0 }
            // Freed heap kept by malloc counts as resident: hand it back when it is large enough to
            // matter against the next file's limit (trimming after every file costs page faults).
            if !inProcess && residentBytes() > BatchRunner.workerBaseMemory / 2 { _ = releaseFreeMemory(0) }
        }
        return 0
    }

    /// Ends this process when the supervisor dies: the kernel sends SIGKILL when the supervisor
    /// thread that started it ends (PR_SET_PDEATHSIG), and, as a fallback, a thread checks every
    /// 0.2 s whether this process was re-parented.
    static func watchParent() {
        guard let p = ProcessInfo.processInfo.environment[parentVariable].flatMap(Int32.init) else { return }
        _ = setParentDeathSignal(1 /* PR_SET_PDEATHSIG */, UInt(SIGKILL), 0, 0, 0)
        if getppid() != p { _exit(0) }    // the supervisor died before the request took effect
        let t = Thread {
            while true {
                if getppid() != p { _exit(0) }
                usleep(200_000)
            }
        }
        t.start()
    }

    /// This process's resident set size in bytes (/proc/self/statm).
    static func residentBytes() -> Int64 {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int64(fields[1]) else { return 0 }
        return pages * Int64(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func reply(_ r: WorkerReply, to fd: Int32) -> Bool {
        guard let bytes = WorkerWire.encode(r) else { return false }
        return WorkerWire.send(bytes, to: fd)
    }

    static func failure(_ job: WorkerJob, _ message: String, _ category: FailureCategory) -> WorkerReply {
        var r = WorkerReply(kind: .result)
        r.status = .failed; r.error = message; r.category = category
        return r
    }

    /// One job; nil when the supervisor went away mid-job.
    static func run(_ job: WorkerJob, directory: AtomicWriter.Directory, reader: LineReader, replies: Int32,
                    faults: [Fault]) -> WorkerReply? {
        var job = job
        // A symlinked input is decoded through its target (decoders size files with lstat).
        var l = PosixStat()
        if lstat(job.input, &l) == 0, (l.st_mode & S_IFMT) == S_IFLNK {
            job.input = URL(fileURLWithPath: job.input).resolvingSymlinksInPath().path
        }
        let decode = job.decode.options
        // Checked again here (the supervisor's stat was earlier): never open a FIFO or device.
        if case .notRegular(let what) = InputFingerprint.examine(job.input) {
            var r = failure(job, "\(job.input): \(what), not a regular file; not opened", .notRegular)
            if !job.explicit { r.status = .skipped }
            return r
        }
        let md: RawMetadata
        do throws(DecodeError) { md = try RawDecoder.metadata(path: job.input, options: decode) } catch {
            let size = (try? FileManager.default.attributesOfItem(atPath: job.input)[.size] as? NSNumber)?.int64Value ?? 0
            let error = reclassified(error, path: job.input, size: size)
            var r = failure(job, error.description, FailureCategory(label: DevelopFailure.decode(error).category))
            // Not an image: skipped in a folder. Named like a RAW but unreadable: a failure.
            if case .notRaw = error, !job.explicit, !RawFileExtensions.isRaw(path: job.input) { r.status = .skipped }
            return r
        }
        let (w, h) = decode.bayerDump.map { ($0.width, $0.height) } ?? (md.sensorWidth, md.sensorHeight)
        var size = WorkerReply(kind: .size)
        size.width = w; size.height = h
        if job.kind == .metadata {
            size.kind = .result
            size.exif = md.exif
            size.status = .developed
            return size
        }
        guard reply(size, to: replies), let goLine = reader.readLine() else { return nil }
        guard let go = try? JSONDecoder().decode(WorkerGo.self, from: Data(goLine)), go.go else {
            var r = WorkerReply(kind: .result); r.status = .notRun
            return r
        }
        let name = (job.input as NSString).lastPathComponent
        for f in faults where f.name == name { f.trigger() }
        let outputs = job.outputs.map { ($0.format, directory.fullPath($0.relativePath)) }
        var r = WorkerReply(kind: .result)
        do throws(DevelopFailure) {
            let results = try FileDeveloper.develop(input: job.input, outputs: outputs, recipe: job.recipe,
                                                    export: job.export.options, decode: decode, directory: directory)
            r.status = .developed
            if let first = results.first {
                r.outputWidth = first.width; r.outputHeight = first.height; r.warnings = first.warnings
                r.controls = first.controls.isEmpty ? nil : first.controls
                r.decodeMilliseconds = first.decodeMilliseconds; r.renderMilliseconds = first.renderMilliseconds
                r.encodeMilliseconds = results.reduce(0) { $0 + $1.encodeMilliseconds }
            }
        } catch {
            r.status = .failed
            r.error = error.description
            if case .write(let w) = error { r.category = FailureCategory(label: w.category) } else {
                r.category = FailureCategory(label: error.category)
            }
            r.writtenOutputs = job.outputs.map(\.relativePath).filter { directory.exists($0) }
        }
        r.peakMemoryMB = processPeakMemoryMB()
        return r
    }

    /// A file too short to hold any RAW header that does not start like a TIFF is "not RAW"
    /// (the decoder calls it truncated, which is right only for RAW-looking files).
    static func reclassified(_ error: DecodeError, path: String, size: Int64) -> DecodeError {
        guard case .truncated = error, size < 64 else { return error }
        let head = FileManager.default.contents(atPath: path).map { [UInt8]($0.prefix(2)) } ?? []
        if head == [0x49, 0x49] || head == [0x4D, 0x4D] { return error }
        return .notRaw(path: path, detail: "unrecognised content (\(size) bytes)")
    }

    /// A test-only fault (see the type's description).
    struct Fault {
        enum Kind: String { case crash, hang, memory }
        var kind: Kind
        var name: String

        static func parse(_ text: String) -> [Fault] {
            text.split(separator: ",").compactMap { item in
                let p = item.split(separator: ":", maxSplits: 1)
                guard p.count == 2, let k = Kind(rawValue: String(p[0])) else { return nil }
                return Fault(kind: k, name: String(p[1]))
            }
        }

        func trigger() {
            switch kind {
            case .crash: signal(SIGSEGV, SIG_DFL); raise(SIGSEGV)
            case .hang: while true { sleep(3600) }
            case .memory:
                var blocks: [UnsafeMutableRawPointer] = []
                for _ in 0..<24 {    // up to 1.5 GiB, 64 MiB at a time, every page touched
                    guard let p = malloc(64 << 20) else { break }
                    memset(p, 1, 64 << 20)
                    blocks.append(p)
                    usleep(20_000)
                }
                for p in blocks { free(p) }
            }
        }
    }
}

/// glibc's `malloc_trim`: returns freed heap memory to the system between files, so one large file
/// does not count against the next file's memory limit.
@_silgen_name("malloc_trim")
private func releaseFreeMemory(_ pad: Int) -> Int32

/// prctl(2), declared with fixed arguments (the C prototype is variadic; integer arguments are
/// passed the same way on x86-64 and arm64).
@_silgen_name("prctl")
private func setParentDeathSignal(_ option: Int32, _ arg2: UInt, _ arg3: UInt, _ arg4: UInt, _ arg5: UInt) -> Int32
