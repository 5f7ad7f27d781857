import DarkroomCore
/// The structure of a TIFF-based file (TIFF, TIFF/EP, DNG, DCP): byte order, the IFD0 chain,
/// SubIFD trees (tag 330), EXIF (34665) and GPS (34853) IFDs. Pixel data is never touched.
///
/// Hostile input is rejected, never trusted: every read is bounds-checked; an IFD offset seen
/// twice (a loop) or an IFD overlapping another throws; nesting is limited to `maxDepth`,
/// entries per IFD to `maxEntriesPerIFD`, IFDs per file to `maxIFDCount`.
/// Image IFDs (the main chain and SubIFDs) are strict: an entry whose value bytes run past the
/// end of the file means the file is truncated, and throws. Problems inside the EXIF or GPS IFD
/// (a broken MakerNote, say) only add to `warnings`: they never hide the image.
public struct TIFFFile: Sendable {
    public static let maxDepth = 8
    public static let maxEntriesPerIFD = 4096
    public static let maxIFDCount = 512

    /// TIFF's magic number after the byte-order mark.
    public static let tiffMagic: UInt16 = 42
    /// Adobe camera profile (.dcp) files use 0x4352 ("RC" in little-endian) instead of 42.
    public static let dcpMagic: UInt16 = 0x4352

    public let reader: ByteReader
    public var bigEndian: Bool { reader.bigEndian }
    public let magic: UInt16
    /// The main chain: IFD0, IFD1, … each with its SubIFD/EXIF/GPS children.
    public private(set) var ifds: [TIFFIFD] = []
    /// Non-fatal structure problems.
    public private(set) var warnings: [String] = []

    private var visited: Set<Int> = []
    private var ranges: [(start: Int, end: Int)] = []

    /// Parses a TIFF (magic 42). BigTIFF (43) is rejected as unsupported.
    public init(bytes: [UInt8]) throws(TIFFError) {
        try self.init(bytes: bytes, acceptedMagic: [Self.tiffMagic])
    }

    /// Parses a TIFF-structured file whose magic number is one of `acceptedMagic`.
    /// `base` is where the structure starts inside `bytes` (its offsets are relative to it).
    public init(bytes: [UInt8], base: Int = 0, acceptedMagic: Set<UInt16>) throws(TIFFError) {
        try self.init(storage: ByteStorage(bytes), base: base, acceptedMagic: acceptedMagic)
    }

    /// Parses the structure starting at `base` of `storage` (array or memory-mapped file).
    public init(storage: ByteStorage, base: Int = 0, acceptedMagic: Set<UInt16> = [TIFFFile.tiffMagic]) throws(TIFFError) {
        guard base >= 0, base <= storage.count else { throw .truncated(at: base, needed: 8) }
        let head = (base..<min(base + 4, storage.count)).map { storage[$0] }
        guard storage.count - base >= 8 else {
            if head.count >= 2, head[0] != head[1] || (head[0] != 0x49 && head[0] != 0x4D) {
                throw .badMagic(found: head)
            }
            throw .truncated(at: 0, needed: 8)
        }
        let big: Bool
        switch (head[0], head[1]) {
        case (0x49, 0x49): big = false
        case (0x4D, 0x4D): big = true
        default: throw .badMagic(found: head)
        }
        reader = ByteReader(storage: storage, bigEndian: big, base: base)
        magic = try reader.u16(2)
        guard acceptedMagic.contains(magic) else { throw .badMagic(found: head) }

        var next = Int(try reader.u32(4))
        var index = 0
        while next != 0 {
            var ifd = try parseIFD(at: next, name: "IFD\(index)", depth: 0, strict: true)
            try parseChildren(of: &ifd, depth: 0)
            ifds.append(ifd)
            next = Int(try reader.u32(ifd.offset + 2 + 12 * ifd.storedEntryCount))
            index += 1
        }
        guard !ifds.isEmpty else { throw .badEntry(tag: 0, reason: "IFD0 offset is 0 (file has no images)") }
    }

    /// The first IFD (IFD0).
    public var ifd0: TIFFIFD? { ifds.first }

    /// Every image IFD: the main chain and all SubIFD trees, depth first.
    public var allImageIFDs: [TIFFIFD] { ifds.flatMap { $0.allImageIFDs } }

    private mutating func parseIFD(at offset: Int, name: String, depth: Int, strict: Bool) throws(TIFFError) -> TIFFIFD {
        guard depth <= Self.maxDepth else { throw .tooDeep(offset: offset) }
        guard !visited.contains(offset) else { throw .loopingIFD(offset: offset) }
        guard visited.count < Self.maxIFDCount else { throw .tooManyIFDs(count: visited.count + 1) }
        for r in ranges where offset >= r.start && offset < r.end { throw .overlappingIFD(offset: offset) }
        let count = Int(try reader.u16(offset))
        guard count <= Self.maxEntriesPerIFD else { throw .tooManyEntries(offset: offset, count: count) }
        let size = 2 + 12 * count + 4
        try reader.check(offset, size)
        let end = offset + size
        for r in ranges where offset < r.end && r.start < end { throw .overlappingIFD(offset: offset) }
        visited.insert(offset)
        ranges.append((offset, end))

        var entries: [TIFFEntry] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let p = offset + 2 + 12 * i
            let tag = try reader.u16(p)
            let type = try reader.u16(p + 2)
            let n = Int(try reader.u32(p + 4))
            var byteCount: Int? = nil
            if let t = TIFFFieldType(rawValue: type) {
                let (bc, overflow) = n.multipliedReportingOverflow(by: t.size)
                byteCount = overflow ? nil : bc
            }
            let valueOffset = (byteCount ?? Int.max) <= 4 ? p + 8 : Int(try reader.u32(p + 8))
            if strict, TIFFFieldType(rawValue: type) != nil {
                guard let byteCount else {
                    throw .badEntry(tag: tag, reason: "count \(n) overflows")
                }
                try reader.check(valueOffset, byteCount)
            }
            entries.append(TIFFEntry(tag: tag, typeCode: type, count: n, valueOffset: valueOffset, byteCount: byteCount))
        }
        var ifd = TIFFIFD(offset: offset, name: name, entries: entries, reader: reader)
        ifd.storedEntryCount = count
        return ifd
    }

    private mutating func parseChildren(of ifd: inout TIFFIFD, depth: Int) throws(TIFFError) {
        if let subs = try ifd.uints(TIFFTag.subIFDs) {
            for (i, off) in subs.enumerated() {
                var child = try parseIFD(at: Int(off), name: "\(ifd.name)/SubIFD\(i)", depth: depth + 1, strict: true)
                try parseChildren(of: &child, depth: depth + 1)
                ifd.subIFDs.append(child)
            }
        }
        ifd.exifIFD = parseLeniently(ifd, tag: TIFFTag.exifIFD, name: "\(ifd.name)/EXIF", depth: depth + 1)
        ifd.gpsIFD = parseLeniently(ifd, tag: TIFFTag.gpsIFD, name: "\(ifd.name)/GPS", depth: depth + 1)
    }

    private mutating func parseLeniently(_ parent: TIFFIFD, tag: UInt16, name: String, depth: Int) -> TIFFIFD? {
        do {
            guard let off = try parent.uint(tag) else { return nil }
            return try parseIFD(at: Int(off), name: name, depth: depth, strict: false)
        } catch {
            warnings.append("\(name) ignored: \(error)")
            return nil
        }
    }
}
