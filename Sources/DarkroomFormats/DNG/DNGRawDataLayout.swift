import DarkroomCore

/// How the raw IFD stores its samples, as declared by its tags (TIFF 6.0 sections 3 "Strips"
/// and 15 "Tiles"; DNG 1.7 chapter 4). Read from the IFD `DNGMetadataReader.findRawIFD` chose,
/// so the pixel decoder and the metadata always describe the same image. Values are as stored
/// (defaults filled in); nothing here is validated against the file beyond what
/// `DNGMetadataReader.checkImageData` already checks.
package struct DNGRawDataLayout: Sendable, Equatable {
    package enum Blocks: Sendable, Equatable {
        /// Rows per strip (RowsPerStrip; TIFF default 2³²−1, one strip).
        case strips(rowsPerStrip: Int)
        /// TileWidth × TileLength tiles, left to right, top to bottom.
        case tiles(width: Int, length: Int)
    }

    /// FillOrder (266), which `TIFFTag` does not name: 1 (default) packs bits MSB first.
    package static let fillOrderTag: UInt16 = 266

    /// File byte order ("MM"): 16-bit samples are stored in it.
    package var bigEndian: Bool
    package var width: Int
    package var height: Int
    package var samplesPerPixel: Int
    /// BitsPerSample, one value per sample as stored (count 1 or SamplesPerPixel).
    package var bitsPerSample: [Int]
    package var compression: Int
    package var planarConfiguration: Int
    /// SampleFormat values (1 unsigned integer, 3 IEEE float); [1] when absent.
    package var sampleFormat: [Int]
    package var fillOrder: Int
    package var blocks: Blocks
    /// StripOffsets / TileOffsets, absolute file offsets.
    package var offsets: [Int]
    /// StripByteCounts / TileByteCounts.
    package var byteCounts: [Int]
    package var hasLinearizationTable: Bool
    /// LinearizationTable values (SHORTs; nil when absent or not readable).
    package var linearizationTable: [UInt16]? = nil
    // JPEG XL / floating-point decoders (JXLDNGDecoder, FloatDNGDecoder):
    /// Predictor (317): 1 none, 3 floating point, 34894/34895 FloatingPointX2/X4 (DNG 1.4).
    package var predictor: Int = 1
    /// RowInterleaveFactor (50975) and ColumnInterleaveFactor (52547, DNG 1.7.1): the stored image
    /// holds the CFA's fields one after another (`DNGFieldInterleave`). 1 = none.
    package var rowInterleaveFactor: Int = 1
    package var columnInterleaveFactor: Int = 1

    package init(bigEndian: Bool, width: Int, height: Int, samplesPerPixel: Int, bitsPerSample: [Int], compression: Int,
                 planarConfiguration: Int, sampleFormat: [Int], fillOrder: Int, blocks: Blocks, offsets: [Int],
                 byteCounts: [Int], hasLinearizationTable: Bool, linearizationTable: [UInt16]? = nil, predictor: Int = 1,
                 rowInterleaveFactor: Int = 1, columnInterleaveFactor: Int = 1) {
        self.bigEndian = bigEndian; self.width = width; self.height = height; self.samplesPerPixel = samplesPerPixel
        self.bitsPerSample = bitsPerSample; self.compression = compression; self.planarConfiguration = planarConfiguration
        self.sampleFormat = sampleFormat; self.fillOrder = fillOrder; self.blocks = blocks; self.offsets = offsets
        self.byteCounts = byteCounts; self.hasLinearizationTable = hasLinearizationTable
        self.linearizationTable = linearizationTable; self.predictor = predictor
        self.rowInterleaveFactor = rowInterleaveFactor; self.columnInterleaveFactor = columnInterleaveFactor
    }
}

extension DNGMetadataReader {
    /// Metadata and the raw IFD's data layout from one parse of the memory-mapped file. The
    /// layout is nil when one of its tags is malformed (the metadata reader already rejected
    /// everything it needs); callers then leave decoding to LibRaw.
    package static func readForDecoding(contentsOf path: String) throws(TIFFError) -> (metadata: RawMetadata, layout: DNGRawDataLayout?) {
        let storage = try ByteStorage(mapping: path)
        do throws(TIFFError) {
            let file = try TIFFFile(storage: storage)
            let raw = try findRawIFD(file)
            let metadata = try read(file, raw: raw)
            let layout = try? rawDataLayout(raw, file: file)
            if storage.truncatedWhileMapped { throw TIFFError.shrankWhileReading }
            return (metadata, layout)
        } catch {
            throw error.inFile(path)
        }
    }

    /// The strip or tile layout of `raw`, with TIFF defaults for absent tags.
    package static func rawDataLayout(_ raw: TIFFIFD, file: TIFFFile) throws(TIFFError) -> DNGRawDataLayout {
        guard let width = try raw.int(TIFFTag.imageWidth), let height = try raw.int(TIFFTag.imageLength) else {
            throw .missingTag(tag: TIFFTag.imageWidth, ifd: raw.name)
        }
        let blocks: DNGRawDataLayout.Blocks
        let offsets: [UInt32]?, counts: [UInt32]?
        if raw.contains(TIFFTag.tileOffsets) {
            blocks = .tiles(width: try raw.int(TIFFTag.tileWidth) ?? 0, length: try raw.int(TIFFTag.tileLength) ?? 0)
            offsets = try raw.uints(TIFFTag.tileOffsets); counts = try raw.uints(TIFFTag.tileByteCounts)
        } else {
            blocks = .strips(rowsPerStrip: try raw.int(TIFFTag.rowsPerStrip) ?? Int(UInt32.max))
            offsets = try raw.uints(TIFFTag.stripOffsets); counts = try raw.uints(TIFFTag.stripByteCounts)
        }
        guard let offsets, let counts else { throw .missingTag(tag: TIFFTag.stripOffsets, ifd: raw.name) }
        return DNGRawDataLayout(
            bigEndian: file.bigEndian, width: width, height: height,
            samplesPerPixel: try raw.int(TIFFTag.samplesPerPixel) ?? 1,
            bitsPerSample: try raw.uints(TIFFTag.bitsPerSample)?.map { Int($0) } ?? [1],
            compression: try raw.int(TIFFTag.compression) ?? 1,
            planarConfiguration: try raw.int(TIFFTag.planarConfiguration) ?? 1,
            sampleFormat: try raw.uints(TIFFTag.sampleFormat)?.map { Int($0) } ?? [1],
            fillOrder: try raw.int(DNGRawDataLayout.fillOrderTag) ?? 1,
            blocks: blocks,
            offsets: offsets.map { file.reader.base + Int($0) },
            byteCounts: counts.map { Int($0) },
            hasLinearizationTable: raw.contains(TIFFTag.linearizationTable),
            linearizationTable: (try? raw.uints(TIFFTag.linearizationTable))??.map { UInt16(clamping: $0) },
            // JPEG XL / floating-point decoders:
            predictor: try raw.int(317) ?? 1,
            rowInterleaveFactor: try raw.int(50975) ?? 1,
            columnInterleaveFactor: try raw.int(52547) ?? 1)
    }
}
