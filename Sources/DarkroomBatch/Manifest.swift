import DarkroomIO
import Foundation

/// Size, modification time and content hash (`ContentHash`, XXH3-128) of an input file.
public struct InputFingerprint: Sendable, Equatable, Codable {
    public var size: Int64
    public var modified: Double
    public var contentHash: String?

    /// Size and mtime from stat(2); the hash is filled in lazily (`withHash`).
    public static func stat(_ path: String) -> InputFingerprint? {
        guard let a = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        let size = (a[.size] as? NSNumber)?.int64Value ?? -1
        let mod = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return InputFingerprint(size: size, modified: mod, contentHash: nil)
    }

    public func withHash(path: String) -> InputFingerprint {
        var f = self
        if f.contentHash == nil { f.contentHash = ContentHash.hexOfFile(path) }
        return f
    }
}

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
    public var time: Double
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

/// `OUTDIR/.darkroom-manifest.json` (or `.darkroom-manifest-K-of-N.json` for a shard, so
/// concurrent shards sharing OUTDIR never overwrite each other's file): output records keyed by
/// the output's path relative to OUTDIR, and failure records keyed by the output base name the
/// input would have had (both independent of how the input root was spelled). Every manifest
/// file in OUTDIR is read and merged (the newest record wins); this process's file is rewritten
/// atomically (`AtomicWriter`) after each change.
///
/// Up-to-date rule for an output: it exists, its record has the same recipe hash, and the
/// input is unchanged — same size and mtime, or, when those differ, the same content hash of its
/// content. A record is first written `pending` (before the output is written) and becomes
/// `done` after; because outputs appear atomically, a `pending` record whose output exists and
/// was not replacing an older file also proves a complete output (the run was killed between
/// the rename and the manifest update).
public final class Manifest: @unchecked Sendable {
    struct FileContent: Codable {
        var version = 1
        var tool = "darkroom"
        var outputs: [String: ManifestRecord] = [:]
        var failures: [String: ManifestFailure] = [:]
    }

    public let directory: String
    public let path: String
    private var content = FileContent()
    private let lock = NSLock()

    public init(directory: String, shard: Shard?) {
        self.directory = directory
        let name = shard.map { ".darkroom-manifest-\($0.index)-of-\($0.count).json" } ?? ".darkroom-manifest.json"
        path = (directory as NSString).appendingPathComponent(name)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for n in names.sorted() where n.hasPrefix(".darkroom-manifest") && n.hasSuffix(".json") {
            guard let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(n)),
                  let c = try? JSONDecoder().decode(FileContent.self, from: data) else { continue }
            for (k, r) in c.outputs where (content.outputs[k]?.time ?? -1) < r.time { content.outputs[k] = r }
            for (k, r) in c.failures where (content.failures[k]?.time ?? -1) < r.time { content.failures[k] = r }
        }
    }

    public func output(_ key: String) -> ManifestRecord? { lock.lock(); defer { lock.unlock() }; return content.outputs[key] }
    public func failure(_ key: String) -> ManifestFailure? { lock.lock(); defer { lock.unlock() }; return content.failures[key] }
    public var outputCount: Int { lock.lock(); defer { lock.unlock() }; return content.outputs.count }

    /// Records outputs (and forgets a failure of their input), then saves.
    public func set(outputs: [String: ManifestRecord], clearingFailureOf key: String) throws(BatchError) {
        lock.lock(); defer { lock.unlock() }
        for (k, r) in outputs { content.outputs[k] = r }
        content.failures[key] = nil
        try save()
    }

    /// Replaces a legacy (pre-XXH3) input hash in these records by `hash`, then saves; used once
    /// when such a record was accepted as the same input (`ContentHash.isLegacy`).
    public func replaceLegacyHashes(outputs keys: [String], failure key: String, with hash: String) {
        lock.lock(); defer { lock.unlock() }
        var changed = false
        for k in keys where content.outputs[k].map({ ContentHash.isLegacy($0.inputHash) }) == true {
            content.outputs[k]?.inputHash = hash; changed = true
        }
        if content.failures[key].map({ ContentHash.isLegacy($0.inputHash) }) == true {
            content.failures[key]?.inputHash = hash; changed = true
        }
        if changed { try? save() }   // not saved: the legacy hash is simply checked again next run
    }

    public func set(failure: ManifestFailure, for key: String) throws(BatchError) {
        lock.lock(); defer { lock.unlock() }
        content.failures[key] = failure
        try save()
    }

    private func save() throws(BatchError) {
        let enc = JSONEncoder()
        enc.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do { data = try enc.encode(content) } catch { throw .io("\(path): cannot encode manifest (\(error))") }
        do { try AtomicWriter.write([UInt8](data), to: path, overwrite: true) } catch { throw .io(error.description) }
    }
}
