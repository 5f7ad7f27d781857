import DarkroomFormats

/// Builds small TIFF/DNG/DCP byte streams for tests, in either byte order. IFDs are appended
/// one after another; children are appended first so parents can point at them.
struct TIFFTestBuilder {
    struct Entry {
        var tag: UInt16, type: UInt16, count: Int, data: [UInt8]
    }

    private(set) var bytes: [UInt8] = []
    let bigEndian: Bool

    init(bigEndian: Bool = false, magic: UInt16 = 42) {
        self.bigEndian = bigEndian
        bytes = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        bytes += enc16(magic) + enc32(0)
    }

    func enc16(_ v: UInt16) -> [UInt8] {
        bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)]
    }
    func enc32(_ v: UInt32) -> [UInt8] {
        let le = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
        return bigEndian ? le.reversed() : le
    }

    func short(_ tag: UInt16, _ v: [UInt16]) -> Entry { Entry(tag: tag, type: 3, count: v.count, data: v.flatMap(enc16)) }
    func long(_ tag: UInt16, _ v: [UInt32]) -> Entry { Entry(tag: tag, type: 4, count: v.count, data: v.flatMap(enc32)) }
    func byte(_ tag: UInt16, _ v: [UInt8], type: UInt16 = 1) -> Entry { Entry(tag: tag, type: type, count: v.count, data: v) }
    func ascii(_ tag: UInt16, _ s: String) -> Entry {
        let b = Array(s.utf8) + [0]
        return Entry(tag: tag, type: 2, count: b.count, data: b)
    }
    func rational(_ tag: UInt16, _ v: [(UInt32, UInt32)]) -> Entry {
        Entry(tag: tag, type: 5, count: v.count, data: v.flatMap { enc32($0.0) + enc32($0.1) })
    }
    func srational(_ tag: UInt16, _ v: [(Int32, Int32)]) -> Entry {
        Entry(tag: tag, type: 10, count: v.count, data: v.flatMap { enc32(UInt32(bitPattern: $0.0)) + enc32(UInt32(bitPattern: $0.1)) })
    }
    func float(_ tag: UInt16, _ v: [Float]) -> Entry { Entry(tag: tag, type: 11, count: v.count, data: v.flatMap { enc32($0.bitPattern) }) }
    /// An entry with arbitrary raw fields (for hostile cases).
    func raw(_ tag: UInt16, type: UInt16, count: UInt32, value: UInt32) -> Entry {
        Entry(tag: tag, type: type, count: Int(count), data: enc32(value))
    }

    /// Appends raw bytes (pixel data, say) and returns their offset.
    mutating func append(_ data: [UInt8]) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let o = bytes.count
        bytes += data
        return o
    }

    /// Appends an IFD (values larger than 4 bytes follow it) and returns its offset.
    mutating func appendIFD(_ entries: [Entry], next: UInt32 = 0) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let start = bytes.count
        var valuesAt = start + 2 + 12 * entries.count + 4
        var values: [UInt8] = []
        bytes += enc16(UInt16(entries.count))
        for e in entries.sorted(by: { $0.tag < $1.tag }) {
            bytes += enc16(e.tag) + enc16(e.type) + enc32(UInt32(e.count))
            if e.data.count <= 4 {
                bytes += e.data + [UInt8](repeating: 0, count: 4 - e.data.count)
            } else {
                bytes += enc32(UInt32(valuesAt))
                values += e.data
                if values.count % 2 == 1 { values.append(0) }
                valuesAt = start + 2 + 12 * entries.count + 4 + values.count
            }
        }
        bytes += enc32(next)
        bytes += values
        return start
    }

    mutating func setFirstIFD(_ offset: Int) { patch32(at: 4, UInt32(offset)) }
    mutating func patch32(at o: Int, _ v: UInt32) { bytes.replaceSubrange(o..<(o + 4), with: enc32(v)) }
}

// MARK: - The raw DNGs the decoder suites write (uncompressed, lossless JPEG, JPEG XL, float)

extension TIFFTestBuilder {
    /// The tags every decoder suite's test DNG carries: a raw IFD (NewSubFileType 0, CFA or
    /// LinearRaw by `samplesPerPixel`) of `width × height` samples of `bits` bits, Make "Darkroom",
    /// Model `model`, UniqueCameraModel "Darkroom `model`", `dngVersion`, an AsShotNeutral and a
    /// D65 ColorMatrix1 (so the files develop like a camera's), and an RGGB CFA when mosaicked.
    func testCameraEntries(model: String, dngVersion: [UInt8], width: UInt32, height: UInt32, bits: Int,
                           samplesPerPixel spp: Int, compression: UInt16) -> [Entry] {
        var e = [
            long(TIFFTag.newSubFileType, [0]),
            long(TIFFTag.imageWidth, [width]), long(TIFFTag.imageLength, [height]),
            short(TIFFTag.bitsPerSample, Array(repeating: UInt16(bits), count: spp)),
            short(TIFFTag.compression, [compression]),
            short(TIFFTag.photometricInterpretation, [spp == 1 ? 32803 : 34892]),
            ascii(TIFFTag.make, "Darkroom"), ascii(TIFFTag.model, model),
            short(TIFFTag.samplesPerPixel, [UInt16(spp)]), short(TIFFTag.planarConfiguration, [1]),
            byte(TIFFTag.dngVersion, dngVersion), ascii(TIFFTag.uniqueCameraModel, "Darkroom \(model)"),
            rational(TIFFTag.asShotNeutral, [(1, 2), (1, 1), (2, 3)]),
            srational(TIFFTag.colorMatrix1, [(8716, 10000), (-2692, 10000), (-907, 10000), (-4446, 10000), (12201, 10000),
                                             (2466, 10000), (-556, 10000), (1205, 10000), (6757, 10000)]),
            short(TIFFTag.calibrationIlluminant1, [21]),
        ]
        if spp == 1 { e += [short(TIFFTag.cfaRepeatPatternDim, [2, 2]), byte(TIFFTag.cfaPattern, [0, 1, 1, 2])] }
        return e
    }

    /// TileWidth/TileLength/TileOffsets/TileByteCounts for `tile`, else StripOffsets/StripByteCounts/RowsPerStrip.
    func blockEntries(tile: (width: Int, length: Int)?, rowsPerStrip: UInt32, offsets: [UInt32], counts: [UInt32]) -> [Entry] {
        if let tile {
            return [long(TIFFTag.tileWidth, [UInt32(tile.width)]), long(TIFFTag.tileLength, [UInt32(tile.length)]),
                    long(TIFFTag.tileOffsets, offsets), long(TIFFTag.tileByteCounts, counts)]
        }
        return [long(TIFFTag.stripOffsets, offsets), long(TIFFTag.stripByteCounts, counts), long(TIFFTag.rowsPerStrip, [rowsPerStrip])]
    }

    /// A one-IFD file whose `blocks` follow the IFD, at the offsets handed to `entries`. The IFD's
    /// size does not depend on the offsets' values, so it is laid out once to find where the data goes.
    static func dngWithBlocks(_ blocks: [[UInt8]], bigEndian: Bool = false,
                              entries: (TIFFTestBuilder, [UInt32]) -> [Entry]) -> [UInt8] {
        func build(_ offsets: [UInt32]) -> TIFFTestBuilder {
            var b = TIFFTestBuilder(bigEndian: bigEndian)
            b.setFirstIFD(b.appendIFD(entries(b, offsets)))
            return b
        }
        var start = build(blocks.map { _ in 0 }).bytes.count
        start += start % 2
        var offsets: [UInt32] = [], at = start
        for d in blocks { offsets.append(UInt32(at)); at += d.count }
        var b = build(offsets)
        let placed = b.append(blocks.flatMap { $0 })
        precondition(placed == start)
        return b.bytes
    }
}
