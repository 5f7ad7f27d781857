import DarkroomCore
/// Why TIFF/DNG structure could not be read or written. Each description is one line; when the
/// file is known the error is wrapped in `.file(path:_:)`, whose description starts with the path.
public indirect enum TIFFError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first four bytes are not "II*\0" / "MM\0*" (or the DCP variants "IIRC" / "MMCR").
    case badMagic(found: [UInt8])
    /// A read of `needed` bytes at offset `at` would run past the end of the file.
    case truncated(at: Int, needed: Int)
    /// The file became shorter while it was being read (another process truncated it).
    case shrankWhileReading
    /// An IFD offset that was already visited (a loop in the chain or SubIFD tree).
    case loopingIFD(offset: Int)
    /// An IFD whose bytes overlap another IFD.
    case overlappingIFD(offset: Int)
    /// IFD nesting deeper than `TIFFFile.maxDepth`.
    case tooDeep(offset: Int)
    /// More IFDs in the file than `TIFFFile.maxIFDCount`.
    case tooManyIFDs(count: Int)
    /// An IFD declaring more entries than `TIFFFile.maxEntriesPerIFD`.
    case tooManyEntries(offset: Int, count: Int)
    /// A malformed entry: wrong type, impossible count, data out of range, bad value.
    case badEntry(tag: UInt16, reason: String)
    /// A tag the reader needs is missing.
    case missingTag(tag: UInt16, ifd: String)
    /// No IFD holds a raw image (NewSubFileType 0 with CFA or LinearRaw photometric).
    case noRawIFD
    /// A file could not be opened or read.
    case unreadable(reason: String)
    /// libtiff (or the file system) reported an error while writing.
    case writeFailed(reason: String)
    /// The image or options cannot be written as DNG.
    case invalidInput(reason: String)
    /// Any of the above, in a named file.
    case file(path: String, TIFFError)

    public var description: String {
        switch self {
        case .badMagic(let b):
            return "not a TIFF/DNG file (header bytes \(b.map { String($0, radix: 16) }.joined(separator: " ")))"
        case .truncated(let at, let needed): return "truncated: needs \(needed) bytes at offset \(at)"
        case .shrankWhileReading: return "truncated while being read (the file shrank; is it still being copied?)"
        case .loopingIFD(let o): return "looping IFD chain: IFD at offset \(o) visited twice"
        case .overlappingIFD(let o): return "IFD at offset \(o) overlaps another IFD"
        case .tooDeep(let o): return "IFD at offset \(o) nested too deeply"
        case .tooManyIFDs(let n): return "too many IFDs (\(n))"
        case .tooManyEntries(let o, let n): return "IFD at offset \(o) declares \(n) entries"
        case .badEntry(let t, let r): return "bad tag \(TIFFTag.name(t)) (\(t)): \(r)"
        case .missingTag(let t, let ifd): return "missing tag \(TIFFTag.name(t)) (\(t)) in \(ifd)"
        case .noRawIFD: return "no raw image IFD (NewSubFileType 0 with CFA or LinearRaw)"
        case .unreadable(let r): return "cannot read file (\(r))"
        case .writeFailed(let r): return "write failed: \(r)"
        case .invalidInput(let r): return "cannot write DNG: \(r)"
        case .file(let p, let e): return "\(p): \(e.underlying.description)"
        }
    }

    /// The error without its file wrapper.
    public var underlying: TIFFError {
        if case .file(_, let e) = self { return e.underlying }
        return self
    }

    /// Wraps the error with a path (once).
    public func inFile(_ path: String) -> TIFFError {
        if case .file = self { return self }
        return .file(path: path, self)
    }
}
