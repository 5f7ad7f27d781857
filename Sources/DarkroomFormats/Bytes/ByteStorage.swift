import DarkroomCore
import Glibc

/// The bytes a `ByteReader` reads: an array shared copy-on-write, or a read-only memory
/// map of a file (so reading the metadata of a large raw never copies its pixel data).
///
/// A mapped file truncated by another process while it is read yields zeros past its new end
/// instead of SIGBUS (`MappedFile`); `truncatedWhileMapped` says so, and readers then fail.
public final class ByteStorage: @unchecked Sendable {
    private enum Kind {
        case array([UInt8])
        case mapped(UnsafeRawBufferPointer)
    }
    private let kind: Kind
    public let count: Int
    /// Owns the map `kind` points into (unmapped with this storage).
    private let mapping: MappedFile?

    public init(_ bytes: [UInt8]) {
        kind = .array(bytes)
        count = bytes.count
        mapping = nil
    }

    /// Maps the file at `path` read-only (`MappedFile`).
    public init(mapping path: String) throws(TIFFError) {
        let file: MappedFile
        do { file = try MappedFile(path: path) } catch { throw .file(path: path, .unreadable(reason: error.reason)) }
        count = file.bytes.count
        kind = count == 0 ? .array([]) : .mapped(file.bytes)
        mapping = consume file
    }

    /// True when the mapped file shrank while it was read (see `MappedFile`).
    package var truncatedWhileMapped: Bool {
        switch mapping {
        case .some(let file): return file.truncatedWhileMapped
        case .none: return false
        }
    }

    /// The byte at `index`; callers have bounds-checked it.
    @inline(__always) package subscript(index: Int) -> UInt8 {
        switch kind {
        case .array(let a): return a[index]
        case .mapped(let p): return p[index]
        }
    }

    /// Four bytes at `index` as an integer (one dispatch per read, not per byte); bounds-checked by the caller.
    @inline(__always) package func load32(_ index: Int, bigEndian: Bool) -> UInt32 {
        let b0, b1, b2, b3: UInt32
        switch kind {
        case .array(let a):
            b0 = UInt32(a[index]); b1 = UInt32(a[index + 1]); b2 = UInt32(a[index + 2]); b3 = UInt32(a[index + 3])
        case .mapped(let p):
            b0 = UInt32(p[index]); b1 = UInt32(p[index + 1]); b2 = UInt32(p[index + 2]); b3 = UInt32(p[index + 3])
        }
        return bigEndian ? b0 << 24 | b1 << 16 | b2 << 8 | b3 : b3 << 24 | b2 << 16 | b1 << 8 | b0
    }

    /// A copy of `range` (tag values: small).
    package func copy(_ range: Range<Int>) -> [UInt8] {
        switch kind {
        case .array(let a): return Array(a[range])
        case .mapped(let p): return Array(p[range])
        }
    }
}
