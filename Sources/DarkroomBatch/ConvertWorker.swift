import DarkroomCore
import DarkroomIO
import Foundation

/// One file for a convert worker (supervisor → worker, one JSON line).
struct ConvertWorkerJob: Codable, Sendable {
    var input: String
    var output: String
    var options: DNGConvertOptions
}

/// A convert worker's answer: first `size` (the memory estimate, for the supervisor's gate), then,
/// after a `WorkerGo`, `result` (the conversion's result, or its error and category).
struct ConvertWorkerReply: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case size, result }
    var kind: Kind
    /// Bytes the conversion is expected to hold at once.
    var estimate: Int64?
    var result: DNGConvertResult?
    var error: String?
    var category: String?
    /// The input is not a RAW file (skipped when it was found in a directory).
    var notRaw: Bool?
}

/// `darkroom __convert-worker`: converts files for `ConvertRunner` in a separate process, so a
/// file that crashes or hangs LibRaw (or passes its memory limit) fails alone: the supervisor
/// reports it (category `crashed`, `timeout`, `memory`) and starts a fresh worker. Jobs arrive on
/// standard input, replies leave on descriptor 3 (`WorkerProcess`); the worker ignores SIGINT and
/// SIGTERM (the supervisor handles them) and exits when its supervisor is gone.
///
/// Test-only fault hook: `DARKROOM_TEST_FAULT=crash:NAME,hang:NAME,memory:NAME` as for
/// `BatchWorker`, triggered before the conversion of the input whose file name is NAME.
public enum ConvertWorker {
    public static let argument = "__convert-worker"

    public static func main() -> Int32 {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_IGN)
        BatchWorker.watchParent()
        let faults = BatchWorker.Fault.parse(ProcessInfo.processInfo.environment["DARKROOM_TEST_FAULT"] ?? "")
        let reader = LineReader(fd: 0)
        while let line = reader.readLine() {
            guard let job = try? JSONDecoder().decode(ConvertWorkerJob.self, from: Data(line)) else { return 3 }
            var size = ConvertWorkerReply(kind: .size)
            size.estimate = estimate(job)
            guard send(size) else { return 0 }
            guard let goLine = reader.readLine(), let go = try? JSONDecoder().decode(WorkerGo.self, from: Data(goLine)) else { return 0 }
            if !go.go { continue }
            let name = (job.input as NSString).lastPathComponent
            for f in faults where f.name == name { f.trigger() }
            var reply = ConvertWorkerReply(kind: .result)
            do throws(DNGConvertError) {
                reply.result = try DNGConverter.convert(input: job.input, output: job.output, options: job.options)
            } catch {
                reply.error = error.description
                reply.category = error.category
                if case .decode(.notRaw) = error { reply.notRaw = true }
            }
            guard send(reply) else { return 0 }
        }
        return 0
    }

    /// The working set of one conversion, from LibRaw's header (no unpacking): source samples,
    /// read-back samples, the preview's crop (2 bytes each), its 8-bit render (3 bytes), and the
    /// embedded original's blocks; twice the file size when the header cannot be read.
    static func estimate(_ job: ConvertWorkerJob) -> Int64 {
        let fileSize = (try? FileManager.default.attributesOfItem(atPath: job.input)[.size] as? NSNumber)?.int64Value ?? 0
        guard let md = try? RawDecoder.metadata(path: job.input) else { return MemoryGate.saturating(fileSize, 2) }
        // Sizes come from the file: every product saturates (a 2³²-pixel side must not trap).
        let px = MemoryGate.saturating(MemoryGate.saturating(Int64(max(md.sensorWidth, 1)), Int64(max(md.sensorHeight, 1))),
                                       Int64(max(md.samplesPerPixel, 1)))
        let samples = MemoryGate.saturating(px, 8)
        let render = MemoryGate.saturating(px, 3)
        let original = job.options.embedOriginal ? MemoryGate.saturating(fileSize, 2) : 0
        let (a, o1) = samples.addingReportingOverflow(render)
        let (b, o2) = a.addingReportingOverflow(original)
        return o1 || o2 ? Int64.max : b
    }

    static func send(_ reply: ConvertWorkerReply) -> Bool {
        guard let bytes = WorkerWire.encode(reply) else { return false }
        return WorkerWire.send(bytes, to: BatchWorker.replyDescriptor)
    }
}
