import CZlib
import DarkroomFormats
import Foundation

/// Why an embedded original could not be made or read back.
public enum OriginalRawDataError: Error, Sendable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case tooLarge(path: String, bytes: Int)
    case corrupt(path: String, detail: String)
    case missing(path: String)
    case write(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let p, let r): return "\(p): cannot read (\(r))"
        case .tooLarge(let p, let n): return "\(p): \(n) bytes is too large to embed (OriginalRawFileData holds under 4 GiB)"
        case .corrupt(let p, let d): return "\(p): OriginalRawFileData is damaged (\(d))"
        case .missing(let p): return "\(p): no embedded original (no OriginalRawFileData tag)"
        case .write(let p, let r): return "\(p): cannot write (\(r))"
        }
    }
}

/// The OriginalRawFileData block format (DNG 1.7 tag 50828), big-endian, no padding:
/// data fork, Mac OS resource fork, Mac file type (4 bytes), creator (4 bytes), then the same four
/// for a sidecar .THM (absent blocks at the end take their defaults). A fork is ForkLength (u32,
/// uncompressed bytes; 0 ends the fork), then (N + 1) u32 offsets for N = ⌈ForkLength / 65536⌉
/// blocks — offsets from the fork's start (its ForkLength field) to each zlib-compressed 64 KiB
/// block, the last one to the fork's end — then the blocks.
///
/// We write the data fork, an empty resource fork and zero type/creator. The input is read and
/// compressed 64 KiB at a time and streamed to the DNG (`DNGWriter.appendOriginalRawFile`): the
/// file is never held in memory, whole or compressed.
public enum OriginalRawData {
    public static let blockSize = 65536

    /// The tag's bytes for the file at `path` (held in memory; `DNGWriter` streams instead).
    public static func encode(path: String) throws(OriginalRawDataError) -> [UInt8] {
        var out: [UInt8] = []
        _ = try encode(path: path) { (bytes: [UInt8], at: Int) throws(OriginalRawDataError) in
            if at == out.count { out += bytes } else { out.replaceSubrange(at..<(at + bytes.count), with: bytes) }
        }
        return out
    }

    /// Encodes the file at `path` block by block, handing `sink` each piece and its offset from
    /// the tag's start (the index is handed again, filled in, once every block is known): at most
    /// one 64 KiB block and its compressed form are held at a time. Returns the tag's length.
    public static func encode(path: String, sink: ([UInt8], Int) throws(OriginalRawDataError) -> Void) throws(OriginalRawDataError) -> Int {
        guard let fh = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { try? fh.close() }
        let length: Int
        do { length = Int(try fh.seekToEnd()); try fh.seek(toOffset: 0) } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        guard length < Int(UInt32.max) / 2 else { throw .tooLarge(path: path, bytes: length) }
        let blocks = (length + blockSize - 1) / blockSize
        let headerBytes = 4 + (blocks + 1) * 4
        var header: [UInt8] = []
        append32(&header, length)
        try sink(header, 0)
        var position = 4
        if blocks > 0 {
            try sink([UInt8](repeating: 0, count: headerBytes - 4), position)
            position = headerBytes
        }
        var index: [Int] = []
        var scratch = [UInt8](repeating: 0, count: Int(compressBound(uLong(blockSize))))
        var total = 0
        for _ in 0..<blocks {
            let chunk: Data
            do { chunk = try fh.read(upToCount: blockSize) ?? Data() } catch {
                throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
            }
            guard chunk.count == min(blockSize, length - total) else { throw .unreadable(path: path, reason: "file changed while being read") }
            total += chunk.count
            index.append(position)
            var outLength = uLong(scratch.count)
            let status = chunk.withUnsafeBytes { src in
                scratch.withUnsafeMutableBufferPointer { dst in
                    compress2(dst.baseAddress, &outLength, src.bindMemory(to: Bytef.self).baseAddress, uLong(src.count), Z_BEST_COMPRESSION)
                }
            }
            guard status == Z_OK else { throw .unreadable(path: path, reason: "zlib error \(status)") }
            try sink(Array(scratch[0..<Int(outLength)]), position)
            position += Int(outLength)
            guard position < Int(UInt32.max) else { throw .tooLarge(path: path, bytes: length) }
        }
        if blocks > 0 {
            index.append(position)
            var table: [UInt8] = []
            for o in index { append32(&table, o) }
            try sink(table, 4)
        }
        // Empty resource fork, zero Mac OS file type and creator.
        try sink([UInt8](repeating: 0, count: 12), position)
        return position + 12
    }

    /// Writes the data fork of `data` (the tag's bytes, from `source`) to the open descriptor
    /// `fd`, block by block; returns the bytes written. Offsets measured from the fork's start or
    /// from its index (both occur in the wild) are accepted.
    public static func decodeDataFork(_ data: [UInt8], source: String,
                                      write: ([UInt8]) throws(OriginalRawDataError) -> Void) throws(OriginalRawDataError) -> Int {
        func u32(_ o: Int) throws(OriginalRawDataError) -> Int {
            guard o >= 0, o + 4 <= data.count else { throw .corrupt(path: source, detail: "ends at byte \(data.count), needs \(o + 4)") }
            return Int(data[o]) << 24 | Int(data[o + 1]) << 16 | Int(data[o + 2]) << 8 | Int(data[o + 3])
        }
        let length = try u32(0)
        if length == 0 { return 0 }
        let blocks = (length + blockSize - 1) / blockSize
        let indexBytes = (blocks + 1) * 4
        guard 4 + indexBytes <= data.count else { throw .corrupt(path: source, detail: "\(blocks) blocks declared, \(data.count) bytes") }
        var offsets: [Int] = []
        for i in 0...blocks { offsets.append(try u32(4 + i * 4)) }
        // Base of the offsets: the fork's start (first block right after the index), else the index.
        let base = offsets[0] == 4 + indexBytes ? 0 : offsets[0] == indexBytes ? 4 : -1
        guard base >= 0 else { throw .corrupt(path: source, detail: "first block offset \(offsets[0]) is not after the index") }
        var out = [UInt8](repeating: 0, count: blockSize)
        var written = 0
        for b in 0..<blocks {
            let start = base + offsets[b], end = base + offsets[b + 1]
            guard start <= end, end <= data.count else { throw .corrupt(path: source, detail: "block \(b) at \(start)…\(end) outside \(data.count) bytes") }
            let expected = min(blockSize, length - written)
            var outLength = uLong(out.count)
            let status = data.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    uncompress(dst.baseAddress, &outLength, src.baseAddress! + start, uLong(end - start))
                }
            }
            guard status == Z_OK, Int(outLength) == expected else {
                throw .corrupt(path: source, detail: "block \(b) inflates to \(outLength) bytes (zlib \(status)), \(expected) expected")
            }
            try write(Array(out[0..<expected]))
            written += expected
        }
        return written
    }

    private static func append32(_ out: inout [UInt8], _ v: Int) {
        out += [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}

/// Writes a DNG's embedded original back to disk.
public enum OriginalRawExtractor {
    public struct Extracted: Sendable, Equatable {
        public var path: String
        public var bytes: Int
        public var sha256: String
    }

    /// Extracts the data fork of `dng`'s OriginalRawFileData into `directory` under its
    /// OriginalRawFileName (last path component; "NAME.original" when absent), after checking
    /// OriginalRawFileDigest when present. Written to a temporary file, then linked (or, with
    /// `overwrite`, renamed) into place: never a partial output. Whatever `overwrite` says, an
    /// existing file that is one of `inputs` (device and inode: the DNGs of this run) or was
    /// written earlier in this run (`written`, identity → the DNG it came from) is never replaced.
    public static func extract(dng: String, to directory: String, overwrite: Bool,
                               inputs: Set<AtomicWriter.FileIdentity> = [],
                               written: [AtomicWriter.FileIdentity: String] = [:]) throws(OriginalRawDataError) -> Extracted {
        let ifd0: TIFFIFD
        do {
            let file = try TIFFFile(storage: ByteStorage(mapping: dng))
            guard let first = file.ifd0 else { throw TIFFError.noRawIFD }
            ifd0 = first
        } catch let e as TIFFError { throw .corrupt(path: dng, detail: e.underlying.description) } catch {
            throw .unreadable(path: dng, reason: "\(error)")
        }
        let data: [UInt8]
        do {
            guard let d = try ifd0.bytes(TIFFTag.originalRawFileData), !d.isEmpty else { throw OriginalRawDataError.missing(path: dng) }
            data = d
        } catch let e as OriginalRawDataError { throw e } catch {
            throw .corrupt(path: dng, detail: "\(error)")
        }
        if let stored = (try? ifd0.bytes(TIFFTag.originalRawFileDigest)) ?? nil, stored.count == 16 {
            let computed = RawDigest.md5(data)
            guard stored == computed else {
                throw .corrupt(path: dng, detail: "OriginalRawFileDigest \(RawDigest.hex(stored)) does not match the data (\(RawDigest.hex(computed)))")
            }
        }
        let stem = ((dng as NSString).lastPathComponent as NSString).deletingPathExtension
        let stored = ((try? ifd0.string(TIFFTag.originalRawFileName)) ?? nil) ?? ""
        var name = (stored.replacingOccurrences(of: "\\", with: "/") as NSString).lastPathComponent
        name = String(name.map { $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true ? "_" : $0 })
        if name.isEmpty || name == "." || name == ".." || name.hasPrefix(".") { name = stem + ".original" }
        let output = (directory as NSString).appendingPathComponent(name)
        func refuseProtected() throws(OriginalRawDataError) {
            guard let id = AtomicWriter.FileIdentity.of(path: output) else { return }
            if inputs.contains(id) { throw .write(path: output, reason: "it is an input of this run; never replaced") }
            if let other = written[id] {
                throw .write(path: output, reason: "already written in this run from \(other) (both embed the name \(name)); not replaced")
            }
        }
        try refuseProtected()
        if !overwrite, FileManager.default.fileExists(atPath: output) {
            throw .write(path: output, reason: "exists (use --overwrite to replace it)")
        }
        let temp = AtomicWriter.temporaryPath(beside: output)
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .write(path: output, reason: String(cString: strerror(errno))) }
        defer { unlink(temp) }
        var hasher = SHA256()
        let written: Int
        do throws(OriginalRawDataError) {
            written = try OriginalRawData.decodeDataFork(data, source: dng) { (block: [UInt8]) throws(OriginalRawDataError) in
                hasher.update(block)
                var offset = 0
                while offset < block.count {
                    let n = block.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
                    guard n > 0 else { throw .write(path: output, reason: String(cString: strerror(errno))) }
                    offset += n
                }
            }
            guard fsync(fd) == 0 else { throw .write(path: output, reason: String(cString: strerror(errno))) }
        } catch {
            close(fd)
            throw error
        }
        close(fd)
        try refuseProtected()   // again, just before the rename: the narrowest window
        if overwrite {
            guard rename(temp, output) == 0 else { throw .write(path: output, reason: String(cString: strerror(errno))) }
        } else {
            guard link(temp, output) == 0 else { throw .write(path: output, reason: String(cString: strerror(errno))) }
        }
        return Extracted(path: output, bytes: written, sha256: RawDigest.hex(hasher.finalize()))
    }
}
