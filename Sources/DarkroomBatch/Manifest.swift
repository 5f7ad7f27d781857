import DarkroomIO
import Foundation
import Glibc

/// Size, modification time and content hash (`ContentHash`, XXH3-128) of an input file.
public struct InputFingerprint: Sendable, Equatable, Codable {
    public var size: Int64
    public var modified: Double
    public var contentHash: String?

    /// What `stat` found at an input path.
    public enum Kind: Sendable, Equatable {
        case regular(InputFingerprint, AtomicWriter.FileIdentity)
        case missing
        /// A FIFO, device, socket or directory: never opened.
        case notRegular(String)
    }

    /// stat(2) of `path` (symlinks followed; nothing is opened, so a FIFO never blocks).
    public static func examine(_ path: String) -> Kind {
        var s = PosixStat()
        guard posixStat(path, &s) == 0 else { return .missing }
        switch s.st_mode & S_IFMT {
        case S_IFREG:
            let modified = Double(s.st_mtim.tv_sec) + Double(s.st_mtim.tv_nsec) / 1e9
            return .regular(InputFingerprint(size: Int64(s.st_size), modified: modified, contentHash: nil),
                            AtomicWriter.FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino)))
        case S_IFIFO: return .notRegular("a FIFO")
        case S_IFCHR: return .notRegular("a character device")
        case S_IFBLK: return .notRegular("a block device")
        case S_IFSOCK: return .notRegular("a socket")
        case S_IFDIR: return .notRegular("a directory")
        default: return .notRegular("not a regular file")
        }
    }

    /// Size and mtime from stat(2) of a regular file (nil for anything else); the hash is filled
    /// in lazily (`withHash`).
    public static func stat(_ path: String) -> InputFingerprint? {
        if case .regular(let f, _) = examine(path) { return f }
        return nil
    }

    /// With the content hash. The file is opened without blocking (O_NONBLOCK) and hashed only
    /// when that descriptor is a regular file, read through `/proc/self/fd/N` (the same open file),
    /// so a FIFO or device swapped in after `stat` is never read.
    public func withHash(path: String) -> InputFingerprint {
        var f = self
        guard f.contentHash == nil else { return f }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return f }
        defer { close(fd) }
        var s = PosixStat()
        guard fstat(fd, &s) == 0, (s.st_mode & S_IFMT) == S_IFREG else { return f }
        f.contentHash = ContentHash.hexOfFile("/proc/self/fd/\(fd)")
        return f
    }
}

/// `struct stat` (the name `stat` alone means `InputFingerprint.stat` inside the type).
typealias PosixStat = Glibc.stat
private func posixStat(_ path: String, _ s: inout PosixStat) -> Int32 { stat(path, &s) }

/// What the manifest remembers about one output file.
public struct ManifestRecord: Sendable, Equatable, Codable {
    public enum State: String, Sendable, Codable { case pending, done }
    public var input: String
    public var format: String
    public var recipe: String
    public var inputSize: Int64
    public var inputModified: Double
    public var inputHash: String
    public var state: State
    /// The output already existed when this (pending) write began, i.e. it was being replaced.
    public var replacing: Bool
    /// Seconds since 1970 (the newest record of an output wins when manifests are merged).
    public var time: Double
    /// The output's size and content hash (`ContentHash`) when it was recorded done; an output
    /// that no longer has them (replaced or damaged since) is not up to date. Absent in records
    /// of earlier versions (their outputs are trusted as before).
    public var outputSize: Int64? = nil
    public var outputHash: String? = nil

    /// Whether the output at `rel` below `directory` still is what this record describes: the
    /// recorded size and content hash (true for a record without them).
    public func outputMatches(_ directory: AtomicWriter.Directory, _ rel: String) -> Bool {
        guard let outputSize, let outputHash else { return true }
        guard let digest = OutputDigest.of(directory, rel) else { return false }
        return digest.size == outputSize && digest.hash == outputHash
    }

    public init(input: String, format: String, recipe: String, inputSize: Int64, inputModified: Double, inputHash: String,
                state: State, replacing: Bool, time: Double) {
        self.input = input; self.format = format; self.recipe = recipe; self.inputSize = inputSize
        self.inputModified = inputModified; self.inputHash = inputHash; self.state = state; self.replacing = replacing; self.time = time
    }
}

/// Size and content hash of an output file, read below its output directory (no symlink followed,
/// only a regular file).
public enum OutputDigest {
    public static func of(_ directory: AtomicWriter.Directory, _ rel: String) -> (size: Int64, hash: String)? {
        guard let fd = directory.openRegular(rel) else { return nil }
        defer { close(fd) }
        var s = PosixStat()
        guard fstat(fd, &s) == 0, let hash = ContentHash.hexOfFile("/proc/self/fd/\(fd)") else { return nil }
        return (Int64(s.st_size), hash)
    }
}

/// What the manifest remembers about an input that failed or was skipped as not RAW.
public struct ManifestFailure: Sendable, Equatable, Codable {
    public var input: String
    public var recipe: String
    public var inputSize: Int64
    public var inputModified: Double
    public var inputHash: String
    public var status: String
    public var error: String
    public var category: String
    public var time: Double
}

/// `OUTDIR/.darkroom-manifest.json` (or `.darkroom-manifest-K-of-N.json` for a shard): output
/// records keyed by the output's path relative to OUTDIR, and failure records keyed by the output
/// base name the input would have had (both independent of how the input root was spelled).
/// Every manifest file in OUTDIR is read and merged (the newest record wins).
///
/// Concurrent runs into one OUTDIR are safe: every change is a read-modify-write of this run's
/// manifest file under an exclusive `flock` on `OUTDIR/.darkroom-manifest.lock` (the file is
/// re-read when another run replaced it since), written atomically (`AtomicWriter`), so no run
/// loses another's records.
///
/// Up-to-date rule for an output: it exists, its record has the same recipe hash, and the
/// input is unchanged — same size and mtime, or, when those differ, the same content hash of its
/// content. A record is first written `pending` (before the output is written) and becomes
/// `done` after; because outputs appear atomically, a `pending` record whose output exists, looks
/// complete (`OutputCheck`) and was not replacing an older file also proves a complete output
/// (the run was killed between the rename and the manifest update). Opening the manifest
/// resolves such records: complete → `done`, missing → dropped; nothing missing is ever `done`.
public final class Manifest: @unchecked Sendable {
    struct FileContent: Codable {
        var version = 1
        var tool = "darkroom"
        var outputs: [String: ManifestRecord] = [:]
        var failures: [String: ManifestFailure] = [:]
    }

    /// Name of the lock file below OUTDIR.
    public static let lockName = ".darkroom-manifest.lock"

    public let directory: AtomicWriter.Directory
    /// This run's manifest file, relative to OUTDIR.
    public let name: String
    public var path: String { directory.fullPath(name) }
    /// The merged view (every manifest file, plus this run's changes).
    private var content = FileContent()
    /// This run's file as last read or written, and the stat that identifies that version.
    private var mine = FileContent()
    private var mineVersion: [Int64] = []
    private let lock = NSLock()
    private let lockFD: Int32

    public init(directory: AtomicWriter.Directory, shard: Shard?) throws(BatchError) {
        self.directory = directory
        name = shard.map { ".darkroom-manifest-\($0.index)-of-\($0.count).json" } ?? ".darkroom-manifest.json"
        do { lockFD = try directory.openFile(Self.lockName, flags: O_RDWR | O_CREAT) } catch {
            throw .io("\(directory.fullPath(Self.lockName)): cannot open the manifest lock (\(error.description))")
        }
        try locked { () throws(BatchError) in
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            for n in names.sorted() where Self.isManifestName(n) && n != name {
                guard let c = Self.decode(directory.read(n)) else { continue }
                merge(c)
            }
            reloadMine()
            merge(mine)
            // Resolve this file's pending records left by a killed run.
            var changed = false
            for (k, r) in mine.outputs where r.state == .pending {
                if !directory.exists(k) { mine.outputs[k] = nil; content.outputs[k] = nil; changed = true }
                else if !r.replacing, OutputCheck.looksComplete(directory, k, format: r.format) {
                    var d = r; d.state = .done
                    mine.outputs[k] = d; content.outputs[k] = d; changed = true
                }
            }
            if changed { try save() }
        }
    }

    deinit { close(lockFD) }

    /// Whether `name` is a manifest file or the lock (reserved below OUTDIR).
    public static func isManifestName(_ n: String) -> Bool { n.hasPrefix(".darkroom-manifest") && n.hasSuffix(".json") }
    public static func isReserved(_ n: String) -> Bool { isManifestName(n) || n == lockName }

    public func output(_ key: String) -> ManifestRecord? { lock.lock(); defer { lock.unlock() }; return content.outputs[key] }
    public func failure(_ key: String) -> ManifestFailure? { lock.lock(); defer { lock.unlock() }; return content.failures[key] }
    public var outputCount: Int { lock.lock(); defer { lock.unlock() }; return content.outputs.count }

    /// Records outputs (and forgets a failure of their input), then saves.
    public func set(outputs: [String: ManifestRecord], clearingFailureOf key: String) throws(BatchError) {
        try locked { () throws(BatchError) in
            reloadMine()
            for (k, r) in outputs { mine.outputs[k] = r; content.outputs[k] = r }
            mine.failures[key] = nil; content.failures[key] = nil
            try save()
        }
    }

    /// Replaces a legacy (pre-XXH3) input hash in these records by `hash`, then saves; used once
    /// when such a record was accepted as the same input (`ContentHash.isLegacy`).
    public func replaceLegacyHashes(outputs keys: [String], failure key: String, with hash: String) {
        // Not saved when the lock fails: the legacy hash is simply checked again next run.
        try? locked { () throws(BatchError) in
            reloadMine()
            var changed = false
            for k in keys {
                guard let r = mine.outputs[k] ?? content.outputs[k], ContentHash.isLegacy(r.inputHash) else { continue }
                var updated = r
                updated.inputHash = hash
                mine.outputs[k] = updated; content.outputs[k] = updated; changed = true
            }
            if let f = mine.failures[key] ?? content.failures[key], ContentHash.isLegacy(f.inputHash) {
                var updated = f
                updated.inputHash = hash
                mine.failures[key] = updated; content.failures[key] = updated; changed = true
            }
            if changed { try save() }
        }
    }

    public func set(failure: ManifestFailure, for key: String) throws(BatchError) {
        try locked { () throws(BatchError) in
            reloadMine()
            mine.failures[key] = failure; content.failures[key] = failure
            try save()
        }
    }

    /// Runs `body` holding the in-process lock and the OUTDIR lock.
    private func locked(_ body: () throws(BatchError) -> Void) throws(BatchError) {
        lock.lock(); defer { lock.unlock() }
        while flock(lockFD, LOCK_EX) != 0 {
            guard errno == EINTR else { throw .io("\(directory.fullPath(Self.lockName)): cannot lock (\(String(cString: strerror(errno))))") }
        }
        defer { flock(lockFD, LOCK_UN) }
        try body()
    }

    /// Device, inode, size and mtime of this run's file (empty when missing).
    private func currentVersion() -> [Int64] {
        guard let s = directory.status(name) else { return [] }
        return [Int64(s.st_dev), Int64(bitPattern: UInt64(s.st_ino)), Int64(s.st_size), Int64(s.st_mtim.tv_sec), Int64(s.st_mtim.tv_nsec)]
    }

    /// Re-reads this run's file when another run replaced it (called under the lock).
    private func reloadMine() {
        let v = currentVersion()
        guard v != mineVersion || v.isEmpty else { return }
        mine = Self.decode(directory.read(name)) ?? FileContent()
        mineVersion = v
        merge(mine)
    }

    private func merge(_ c: FileContent) {
        for (k, r) in c.outputs where (content.outputs[k]?.time ?? -1) <= r.time { content.outputs[k] = r }
        for (k, r) in c.failures where (content.failures[k]?.time ?? -1) <= r.time { content.failures[k] = r }
    }

    private static func decode(_ bytes: [UInt8]?) -> FileContent? {
        guard let bytes else { return nil }
        return try? JSONDecoder().decode(FileContent.self, from: Data(bytes))
    }

    private func save() throws(BatchError) {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try enc.encode(mine) } catch { throw .io("\(path): cannot encode manifest (\(error))") }
        do { try AtomicWriter.write([UInt8](data), in: directory, relativePath: name, overwrite: true) } catch {
            throw .io(error.description)
        }
        mineVersion = currentVersion()
    }
}

/// A cheap structural check that an output file is complete: JPEG starts with SOI and ends with
/// EOI, TIFF starts with a byte-order mark and 42, HEIF has an `ftyp` box first.
public enum OutputCheck {
    public static func looksComplete(_ directory: AtomicWriter.Directory, _ rel: String, format: String) -> Bool {
        guard let fd = directory.openRegular(rel) else { return false }
        defer { close(fd) }
        var s = stat()
        guard fstat(fd, &s) == 0, s.st_size >= 16 else { return false }
        var head = [UInt8](repeating: 0, count: 12), tail = [UInt8](repeating: 0, count: 2)
        guard head.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 12, 0) }) == 12,
              tail.withUnsafeMutableBytes({ pread(fd, $0.baseAddress, 2, off_t(s.st_size - 2)) }) == 2 else { return false }
        switch OutputFormat(rawValue: format) {
        case .jpeg: return head[0] == 0xFF && head[1] == 0xD8 && tail == [0xFF, 0xD9]
        case .tiff: return head[0..<4] == [0x49, 0x49, 0x2A, 0x00] || head[0..<4] == [0x4D, 0x4D, 0x00, 0x2A]
        case .heif: return head[4..<8] == [0x66, 0x74, 0x79, 0x70]
        case .exr: return head[0..<4] == [0x76, 0x2F, 0x31, 0x01]
        case nil: return true
        }
    }
}
