import DarkroomCore
import DarkroomIO
import Foundation

/// One job for a worker process (supervisor → worker, one JSON object per line on the worker's
/// standard input). A `metadata` job answers with the file's size and EXIF; a `develop` job first
/// answers with the size (so the supervisor can admit it through the memory gate), waits for a
/// `WorkerGo`, then develops and answers with the result.
struct WorkerJob: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case metadata, develop }
    struct Output: Codable, Sendable {
        var format: OutputFormat
        /// Relative to `outputDirectory`.
        var relativePath: String
    }
    /// `ExportOptions`, as sent.
    struct Export: Codable, Sendable {
        var quality: Int?
        var overwrite: Bool
        var stripMetadata: Bool
        var heifChroma444: Bool
        var heifNCLX: Bool
        var computedMattes: [MatteKind]
        var suppliedMattes: [SuppliedMatteSpec]
        init(_ e: ExportOptions) {
            quality = e.quality; overwrite = e.overwrite; stripMetadata = e.stripMetadata
            heifChroma444 = e.heifChroma444; heifNCLX = e.heifNCLX; computedMattes = e.computedMattes; suppliedMattes = e.suppliedMattes
        }
        var options: ExportOptions {
            var e = ExportOptions()
            e.quality = quality; e.overwrite = overwrite; e.stripMetadata = stripMetadata
            e.heifChroma444 = heifChroma444; e.heifNCLX = heifNCLX; e.computedMattes = computedMattes; e.suppliedMattes = suppliedMattes
            return e
        }
    }
    /// `DecodeOptions`, as sent.
    struct Decode: Codable, Sendable {
        var applyOpcodeList1: Bool
        var bayerDump: BayerDumpParameters?
        var threads: Int
        var nativeUncompressed: Bool
        var nativeLosslessJPEG: Bool
        init(_ d: DecodeOptions) {
            applyOpcodeList1 = d.applyOpcodeList1; bayerDump = d.bayerDump; threads = d.threads
            nativeUncompressed = d.nativeUncompressed; nativeLosslessJPEG = d.nativeLosslessJPEG
        }
        var options: DecodeOptions {
            var d = DecodeOptions(applyOpcodeList1: applyOpcodeList1, bayerDump: bayerDump, threads: threads)
            d.nativeUncompressed = nativeUncompressed; d.nativeLosslessJPEG = nativeLosslessJPEG
            return d
        }
    }

    var kind: Kind
    var input: String
    /// Whether the input was named on the command line (a non-RAW one is a failure, not skipped).
    var explicit: Bool
    /// The input's device and inode: the worker refuses to replace it.
    var inputIdentity: AtomicWriter.FileIdentity?
    var outputDirectory: String
    var outputs: [Output]
    /// Relative paths below OUTDIR no output may take (manifests, lock, report).
    var reservedNames: [String]
    var recipe: DevelopRecipe
    var export: Export
    var decode: Decode
}

/// The supervisor's answer to a size reply: develop now, or give up (interrupted).
struct WorkerGo: Codable, Sendable {
    var go: Bool
}

/// A worker's answer (worker → supervisor, one JSON object per line).
struct WorkerReply: Codable, Sendable {
    enum Kind: String, Codable, Sendable { case size, result }
    var kind: Kind
    /// Size of the image the file declares (sensor, or the Bayer dump's parameters).
    var width: Int?
    var height: Int?
    var exif: ExifInfo?
    var status: FileStatus?
    var error: String?
    var category: FailureCategory?
    var outputWidth: Int?
    var outputHeight: Int?
    var warnings: [String]?
    /// The picture-quality controls as resolved for the file (`DevelopPlan.resolvedControls`).
    var controls: [String: String]?
    var decodeMilliseconds: Double?
    var renderMilliseconds: Double?
    var encodeMilliseconds: Double?
    /// The worker's peak resident set size so far (MiB).
    var peakMemoryMB: Double?
    /// Outputs that exist after a failure (written before a later one failed).
    var writtenOutputs: [String]?
}

/// Reads newline-terminated lines from a file descriptor (blocking, or after `poll` said ready).
final class LineReader {
    let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var atEnd = false
    init(fd: Int32) { self.fd = fd }

    /// A complete line already buffered, if any.
    func bufferedLine() -> [UInt8]? {
        guard let nl = buffer.firstIndex(of: 0x0A) else { return nil }
        let line = Array(buffer[..<nl])
        buffer.removeSubrange(...nl)
        return line
    }

    /// Reads what is available once (one `read`); false at end of file or on error.
    func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { atEnd = true; return false }
            buffer += chunk[0..<n]
            return true
        }
    }

    /// The next line, blocking; nil at end of file.
    func readLine() -> [UInt8]? {
        while true {
            if let l = bufferedLine() { return l }
            if !fill() { return nil }
        }
    }
}

enum WorkerWire {
    static func encode<T: Encodable>(_ value: T) -> [UInt8]? {
        let enc = JSONEncoder()
        enc.outputFormatting = [.withoutEscapingSlashes]
        guard let d = try? enc.encode(value) else { return nil }
        return [UInt8](d) + [0x0A]
    }

    /// Writes all of `bytes`; false when the other end is gone (EPIPE) or on error.
    static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; return false }
                off += n
            }
            return true
        }
    }
}
