import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// `UncompressedDNGDecoder` against the LibRaw path (`DecodeOptions.nativeUncompressed = false`):
/// same pixels, same metadata, for every bit depth, both sample layouts, strips and tiles, both
/// byte orders, with ActiveArea and OpcodeList1; thread counts; hostile layouts.
///
/// LibRaw 0.20 (dcraw's `packed_dng_load_raw`) has no reader for uncompressed DNGs in several
/// tiles: it reads the TileOffsets array and what follows as if it were rows of pixels. A tiled
/// file is therefore compared with the samples it was written from and with LibRaw's decode of
/// the same image stored in strips (`libRawReference`); a wrong tiled decode by LibRaw itself is
/// only reported.
@Suite struct NativeDNGDecodeTests {
    // MARK: - Fixture: a minimal DNG written byte by byte

    /// One DNG to build: the raw image in IFD0, its pixel data after the IFD (the layout of our
    /// writer and Adobe's). The hostile overrides spoil it on purpose.
    struct Spec: Sendable, CustomTestStringConvertible {
        var width = 70, height = 50, samplesPerPixel = 1, bits = 12, bigEndian = false
        var rowsPerStrip = 7
        var tile: (width: Int, length: Int)? = nil
        /// ActiveArea top, left, bottom, right.
        var activeArea: [UInt32]? = [3, 5, 47, 66]
        var opcodeList1 = true
        var linearizationTable = false
        var seed: UInt64 = 1
        // Hostile overrides (written instead of the true values).
        var rowsPerStripTag: UInt32? = nil
        var byteCounts: [UInt32]? = nil
        var offsets: [UInt32]? = nil
        var imageSizeTag: (width: UInt32, height: UInt32)? = nil
        var truncateTo: Int? = nil

        var testDescription: String {
            "\(samplesPerPixel == 1 ? "CFA" : "LinearRaw") \(bits)-bit \(bigEndian ? "MM" : "II") " +
                (tile.map { "tiles \($0.width)x\($0.length)" } ?? "strips of \(rowsPerStrip)")
        }

        var maxValue: Int { (1 << bits) - 1 }

        /// Deterministic samples covering 0 and the maximum.
        var samples: [UInt16] {
            var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
            return (0..<(width * height * samplesPerPixel)).map { i in
                if i % 97 == 0 { return 0 }
                if i % 89 == 0 { return UInt16(maxValue) }
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                return UInt16(truncatingIfNeeded: state) & UInt16(maxValue)
            }
        }

        /// A MapTable over stored rows 0…9, columns 0…19 (position-dependent, so it shows where
        /// OpcodeList1 ran), inverting the values.
        var opcodeBytes: [UInt8] {
            let area = OpcodeArea(top: 0, left: 0, bottom: 10, right: 20, plane: 0, planes: UInt32(samplesPerPixel))
            let table = (0...maxValue).map { UInt16(maxValue - $0) }
            return OpcodeList(opcodes: [.mapTable(.init(area: area, table: table))]).encode()
        }
    }

    /// Samples of one stored row packed as DNG stores them.
    static func pack(_ row: ArraySlice<UInt16>, bits: Int, bigEndian: Bool) -> [UInt8] {
        switch bits {
        case 16: return row.flatMap { bigEndian ? [UInt8($0 >> 8), UInt8($0 & 0xFF)] : [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case 8: return row.map { UInt8($0) }
        default:
            var out: [UInt8] = [], acc = 0, n = 0
            for v in row {
                acc = acc << bits | Int(v); n += bits
                while n >= 8 { n -= 8; out.append(UInt8(acc >> n & 0xFF)) }
                acc &= (1 << n) - 1
            }
            if n > 0 { out.append(UInt8(acc << (8 - n) & 0xFF)) }
            return out
        }
    }

    /// The strips or tiles of `spec`, in file order.
    static func blocks(_ spec: Spec) -> [[UInt8]] {
        let s = spec.samples, spp = spec.samplesPerPixel, w = spec.width, h = spec.height
        var out: [[UInt8]] = []
        if let t = spec.tile {
            for ty in stride(from: 0, to: h, by: t.length) {
                for tx in stride(from: 0, to: w, by: t.width) {
                    var block: [UInt8] = []
                    for y in ty..<(ty + t.length) {
                        var row = [UInt16](repeating: 0, count: t.width * spp)
                        if y < h {
                            for x in tx..<min(w, tx + t.width) {
                                for c in 0..<spp { row[(x - tx) * spp + c] = s[(y * w + x) * spp + c] }
                            }
                        }
                        block += pack(row[...], bits: spec.bits, bigEndian: spec.bigEndian)
                    }
                    out.append(block)
                }
            }
        } else {
            for y0 in stride(from: 0, to: h, by: spec.rowsPerStrip) {
                var block: [UInt8] = []
                for y in y0..<min(h, y0 + spec.rowsPerStrip) {
                    block += pack(s[(y * w * spp)..<((y + 1) * w * spp)], bits: spec.bits, bigEndian: spec.bigEndian)
                }
                out.append(block)
            }
        }
        return out
    }

    static func dngBytes(_ spec: Spec) -> [UInt8] {
        let data = blocks(spec)
        let counts = data.map { UInt32($0.count) }
        let bytes = TIFFTestBuilder.dngWithBlocks(data, bigEndian: spec.bigEndian) { b, offsets in
            let spp = spec.samplesPerPixel
            let size = spec.imageSizeTag ?? (UInt32(spec.width), UInt32(spec.height))
            var e = b.testCameraEntries(model: "Native Test", dngVersion: [1, 4, 0, 0], width: size.width, height: size.height,
                                        bits: spec.bits, samplesPerPixel: spp, compression: 1)
            e += [b.long(TIFFTag.blackLevel, Array(repeating: 16, count: spp)),
                  b.long(TIFFTag.whiteLevel, Array(repeating: UInt32(spec.maxValue), count: spp))]
            e += b.blockEntries(tile: spec.tile, rowsPerStrip: spec.rowsPerStripTag ?? UInt32(spec.rowsPerStrip),
                                offsets: spec.offsets ?? offsets, counts: spec.byteCounts ?? counts)
            if let a = spec.activeArea { e.append(b.long(TIFFTag.activeArea, a)) }
            if spec.opcodeList1 { e.append(b.byte(TIFFTag.opcodeList1, spec.opcodeBytes, type: 7)) }
            if spec.linearizationTable { e.append(b.short(TIFFTag.linearizationTable, (0...spec.maxValue).map { UInt16($0) })) }
            return e
        }
        return spec.truncateTo.map { Array(bytes.prefix($0)) } ?? bytes
    }

    static func write(_ spec: Spec, _ name: String) throws -> String {
        let path = DNGTestSupport.tempPath(name, subdirectory: "native")
        try Data(dngBytes(spec)).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func decode(_ path: String, native: Bool, opcodes: Bool = true, threads: Int = 0) throws(DecodeError) -> RawImage {
        var o = DecodeOptions(applyOpcodeList1: opcodes, threads: threads)
        o.nativeUncompressed = native
        return try RawDecoder.decode(path: path, options: o)
    }

    /// The stored samples of `spec` inside its ActiveArea.
    static func activeSamples(_ spec: Spec) -> [UInt16] {
        DNGTestSupport.activeSamples(spec.samples, width: spec.width, height: spec.height,
                                     samplesPerPixel: spec.samplesPerPixel, activeArea: spec.activeArea)
    }

    /// The LibRaw path's decode of `spec` (of its strip-stored twin when `spec` is tiled and
    /// LibRaw misreads the tiles).
    static func libRawReference(_ spec: Spec, _ path: String, opcodes: Bool) throws -> RawImage {
        let own = try decode(path, native: false, opcodes: opcodes)
        guard spec.tile != nil else { return own }
        var twin = spec
        twin.tile = nil
        let twinPath = try write(twin, "twin-\(spec.seed).dng")
        defer { unlink(twinPath) }
        let reference = try decode(twinPath, native: false, opcodes: opcodes)
        if own.pixels != reference.pixels { print("NATIVE LibRaw misreads the tiles of \(spec.testDescription)") }
        return reference
    }


    // MARK: - Native == LibRaw

    static let layouts: [Spec] = {
        var out: [Spec] = []
        for bits in [8, 10, 12, 14, 16] {
            for spp in [1, 3] {
                for big in [false, true] {
                    for tiled in [false, true] {
                        var s = Spec()
                        s.bits = bits; s.samplesPerPixel = spp; s.bigEndian = big
                        s.seed = UInt64(bits * 8 + spp * 4 + (big ? 2 : 0) + (tiled ? 1 : 0))
                        if tiled { s.tile = (16, 16) }
                        out.append(s)
                    }
                }
            }
        }
        return out
    }()

    @Test(arguments: layouts)
    func nativeMatchesLibRaw(_ spec: Spec) throws {
        let path = try Self.write(spec, "match-\(spec.seed).dng")
        defer { unlink(path) }
        for opcodes in [true, false] {
            let native = try Self.decode(path, native: true, opcodes: opcodes)
            let libRaw = try Self.libRawReference(spec, path, opcodes: opcodes)
            DNGTestSupport.expectSame(native, libRaw, "\(spec.testDescription), OpcodeList1 \(opcodes)")
            #expect(native.width == 61 && native.height == 44 && native.samplesPerPixel == spec.samplesPerPixel)
            #expect(native.metadata.cfa == (spec.samplesPerPixel == 1 ? CFAPattern.rggb.shifted(dx: 5, dy: 3) : nil))
            #expect(native.metadata.blackLevel == Array(repeating: 16, count: spec.samplesPerPixel))
            #expect(native.metadata.whiteLevel == Array(repeating: Double(spec.maxValue), count: spec.samplesPerPixel))
            #expect(native.metadata.exif.model == "Native Test")
            let expected = Self.activeSamples(spec)
            if opcodes {
                // MapTable inverted stored rows 0…9, columns 0…19: active rows 0…6, columns 0…14.
                let spp = spec.samplesPerPixel, i = (2 * 61 + 3) * spp, j = (20 * 61 + 30) * spp
                #expect(native.pixels[i] == UInt16(spec.maxValue) - expected[i])
                #expect(native.pixels[j] == expected[j])
            } else {
                #expect(native.pixels == expected)
            }
        }
    }

    /// Our own writer (16-bit, II): strips and tiles, CFA and LinearRaw, its full metadata;
    /// tiles against libtiff's reading and the strip-stored file's LibRaw decode.
    @Test(arguments: [1, 3])
    func dngWriterFiles(spp: Int) throws {
        let image = DNGTestSupport.image(cfa: spp == 1 ? .grbg : nil, bits: 14, width: 70, height: 50, spp: spp)
        let stripPath = DNGTestSupport.tempPath("writer-\(spp)-strips.dng", subdirectory: "native")
        let tilePath = DNGTestSupport.tempPath("writer-\(spp)-tiles.dng", subdirectory: "native")
        defer { unlink(stripPath); unlink(tilePath) }
        try DNGWriter.write(image, to: stripPath, options: DNGWriteOptions(rowsPerStrip: 9))
        try DNGWriter.write(image, to: tilePath, options: DNGWriteOptions(tileSize: spp == 1 ? 32 : 16))
        #expect(DNGTestSupport.libtiffRead(tilePath, subIFD: false)?.pixels == image.pixels)
        for opcodes in [true, false] {
            let reference = try Self.decode(stripPath, native: false, opcodes: opcodes)
            DNGTestSupport.expectSame(try Self.decode(stripPath, native: true, opcodes: opcodes), reference, "writer strips spp \(spp)")
            DNGTestSupport.expectSame(try Self.decode(tilePath, native: true, opcodes: opcodes), reference, "writer tiles spp \(spp)")
            if !opcodes { #expect(reference.pixels == image.pixels) }
        }
    }

    @Test func threadCountNeverChangesPixels() throws {
        for var spec in [Spec(), Spec(samplesPerPixel: 3, bits: 14, bigEndian: true)] {
            spec.height = 200; spec.activeArea = [1, 2, 199, 67]
            spec.tile = spec.samplesPerPixel == 3 ? (32, 16) : nil
            let path = try Self.write(spec, "threads.dng")
            defer { unlink(path) }
            for opcodes in [true, false] {
                let one = try Self.decode(path, native: true, opcodes: opcodes, threads: 1)
                for t in [2, 3, 0] {
                    DNGTestSupport.expectSame(one, try Self.decode(path, native: true, opcodes: opcodes, threads: t), "\(t) threads")
                }
                DNGTestSupport.expectSame(one, try Self.libRawReference(spec, path, opcodes: opcodes), "LibRaw")
            }
        }
    }

    /// Every uncompressed DNG in `../shared/samples/dng` (none when absent): native == LibRaw.
    @Test func sharedSamplesMatchLibRaw() throws {
        var compared = 0
        for name in DNGSampleTests.sampleFiles {
            let path = DNGSampleTests.samplesDirectory + "/" + name
            guard let dng = try? DNGMetadataReader.readForDecoding(contentsOf: path), let layout = dng.layout,
                  UncompressedDNGDecoder.unsupportedReason(layout) == nil else { continue }
            let libRaw: RawImage
            do { libRaw = try Self.decode(path, native: false) } catch {
                print("NATIVE \(name): LibRaw path throws \(error); native must throw too")
                #expect(throws: DecodeError.self) { try Self.decode(path, native: true) }
                continue
            }
            let native = try Self.decode(path, native: true)
            DNGTestSupport.expectSame(native, libRaw, name)
            print("NATIVE \(name): \(native.width)x\(native.height)x\(native.samplesPerPixel) \(layout.bitsPerSample)-bit identical")
            compared += 1
        }
        if FileManager.default.fileExists(atPath: DNGSampleTests.samplesDirectory + "/rpi_pidng_640x480_test.dng") {
            #expect(compared >= 4)
        }
    }

    // MARK: - Scope

    @Test func outOfScopeLayoutsAreLeftToLibRaw() throws {
        let file = try TIFFFile(bytes: Self.dngBytes(Spec()))
        let base = try DNGMetadataReader.rawDataLayout(DNGMetadataReader.findRawIFD(file), file: file)
        #expect(UncompressedDNGDecoder.unsupportedReason(base) == nil)
        var l = base; l.compression = 7
        #expect(UncompressedDNGDecoder.unsupportedReason(l) == "Compression 7")
        l = base; l.planarConfiguration = 2
        #expect(UncompressedDNGDecoder.unsupportedReason(l) == "PlanarConfiguration 2")
        l = base; l.bitsPerSample = [32]
        #expect(UncompressedDNGDecoder.unsupportedReason(l) == "BitsPerSample [32]")
        l = base; l.samplesPerPixel = 3; l.bitsPerSample = [16, 12, 16]
        #expect(UncompressedDNGDecoder.unsupportedReason(l) == "BitsPerSample [16, 12, 16]")
        l = base; l.sampleFormat = [3]
        #expect(UncompressedDNGDecoder.unsupportedReason(l) == "SampleFormat [3]")
        l = base; l.fillOrder = 2
        #expect(UncompressedDNGDecoder.unsupportedReason(l) == "FillOrder 2")

        // A LinearizationTable goes to LibRaw (which applies it): decoding still works.
        var lin = Spec(); lin.linearizationTable = true
        let path = try Self.write(lin, "linearization.dng")
        defer { unlink(path) }
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        #expect(UncompressedDNGDecoder.unsupportedReason(layout) == "LinearizationTable")
        DNGTestSupport.expectSame(try Self.decode(path, native: true), try Self.decode(path, native: false), "LinearizationTable")
    }

    /// The bit unpacker against a plain reference, every depth, every start and length in a row.
    @Test(arguments: Array(8...16))
    func unpackMatchesReference(bits: Int) {
        let n = 37
        let values = (0..<n).map { UInt16(($0 * 2_654_435_761 >> 5) & ((1 << bits) - 1)) }
        for big in [false, true] {
            let row = Self.pack(values[...], bits: bits, bigEndian: big)
            row.withUnsafeBytes { raw in
                for first in 0..<n {
                    for count in 0...(n - first) {
                        var out = [UInt16](repeating: 0xFFFF, count: count)
                        out.withUnsafeMutableBufferPointer { o in
                            UncompressedDNGDecoder.unpack(row: raw.baseAddress!, rowBytes: row.count, first: first, count: count,
                                                          bits: bits, bigEndian: big, into: o.baseAddress!)
                        }
                        #expect(out == Array(values[first..<(first + count)]), "\(bits)-bit from \(first), \(count) samples")
                    }
                }
            }
        }
    }

    // MARK: - Hostile layouts

    static func expectError(_ path: String, _ kind: String, _ body: () throws(DecodeError) -> Void) {
        do {
            try body()
            Issue.record("\(path): expected a \(kind) error")
        } catch {
            let text = error.description
            #expect(text.hasPrefix(path + ": ") && !text.contains("\n"), "\(text)")
            switch (kind, error) {
            case ("truncated", .truncated), ("corrupt", .corrupt): break
            default: Issue.record("expected \(kind), got \(text)")
            }
        }
    }

    /// Decoder-level checks (no LibRaw retry): each spoilt layout throws the stated kind.
    @Test func spoiltLayoutsThrowCleanly() throws {
        let good = Spec()
        let path = try Self.write(good, "layout.dng")
        defer { unlink(path) }
        let file = try TIFFFile(bytes: Self.dngBytes(good))
        let layout = try DNGMetadataReader.rawDataLayout(DNGMetadataReader.findRawIFD(file), file: file)
        let all = PixelRect(x: 0, y: 0, width: 70, height: 50)
        func run(_ l: DNGRawDataLayout, _ kind: String, region: PixelRect = all) {
            Self.expectError(path, kind) { () throws(DecodeError) in _ = try UncompressedDNGDecoder.decode(l, region: region, threads: 2, path: path) }
        }
        let decoded = try UncompressedDNGDecoder.decode(layout, region: all, threads: 2, path: path)
        #expect(decoded == good.samples)

        var l = layout; l.blocks = .strips(rowsPerStrip: 0)
        run(l, "corrupt")
        l = layout; l.blocks = .strips(rowsPerStrip: 3)                       // 17 strips needed, 8 given
        run(l, "corrupt")
        l = layout; l.offsets.removeLast(); l.byteCounts.removeLast()
        run(l, "corrupt")
        l = layout; l.offsets[3] = 1 << 40                                     // beyond the end of the file
        run(l, "truncated")
        l = layout; l.offsets[7] = Int.max - 10                                // offset + size overflows
        run(l, "truncated")
        l = layout; l.byteCounts[2] -= 1                                       // one byte short, data present
        run(l, "corrupt")
        l = layout; l.offsets[5] = l.offsets[0]                                // shared bytes, fewer than the file holds
        #expect(try UncompressedDNGDecoder.decode(l, region: all, threads: 1, path: path)[(35 * 70)..<(42 * 70)] == decoded[0..<(7 * 70)])
        l = layout; l.blocks = .tiles(width: 16, length: 16)                   // 20 tiles needed, 8 strips given
        run(l, "corrupt")
        l = layout; l.blocks = .tiles(width: 0, length: 16)
        run(l, "corrupt")
        l = layout; l.width = Int(UInt32.max); l.height = Int(UInt32.max)
        run(l, "corrupt")
        l = layout; l.height = 1 << 30; l.blocks = .strips(rowsPerStrip: 1 << 27)  // 8 strips of 2^27 rows
        run(l, "truncated")
        l = layout; l.offsets = Array(repeating: l.offsets[0], count: 8); l.height = 40 * 8; l.blocks = .strips(rowsPerStrip: 40)
        l.byteCounts = Array(repeating: 40 * 105, count: 8)                    // 8 × the same 4200 bytes > the file
        run(l, "corrupt")
        run(layout, "corrupt", region: PixelRect(x: 60, y: 0, width: 20, height: 5))
        l = layout; l.bitsPerSample = [32]
        #expect(throws: DecodeError.unsupported(path: path, reason: "uncompressed DNG with BitsPerSample [32]")) {
            try UncompressedDNGDecoder.decode(l, region: all, threads: 1, path: path)
        }
    }

    /// File-level: what LibRaw cannot read either throws one clean line; what it reads (strips
    /// stored as one run of rows, whatever RowsPerStrip and the byte counts say) is still decoded.
    @Test func hostileFiles() throws {
        let good = Spec()
        let n = Self.blocks(good).count                                        // 8 strips of 7 rows
        let stripBytes = UInt32(7 * 105)

        // Data cut short: the metadata reader already sees strips past the end.
        var cut = good; cut.truncateTo = Self.dngBytes(good).count - 500
        var path = try Self.write(cut, "cut.dng")
        Self.expectError(path, "truncated") { () throws(DecodeError) in _ = try Self.decode(path, native: true) }
        unlink(path)

        // A strip offset far past the end.
        var far = good; far.offsets = (0..<n).map { $0 == 3 ? 1 << 30 : 0 }
        path = try Self.write(far, "far.dng")
        Self.expectError(path, "truncated") { () throws(DecodeError) in _ = try Self.decode(path, native: true) }
        unlink(path)

        // Byte counts too small and the data runs past the end: neither decoder can read it.
        var short = good; short.byteCounts = Array(repeating: stripBytes, count: n - 1) + [10]
        short.truncateTo = Self.dngBytes(good).count - 50
        path = try Self.write(short, "short.dng")
        Self.expectError(path, "truncated") { () throws(DecodeError) in _ = try Self.decode(path, native: true) }
        unlink(path)

        // 60000 x 60000 declared, a few kilobytes stored: refused before any allocation.
        var huge = good; huge.imageSizeTag = (60000, 60000); huge.activeArea = nil; huge.opcodeList1 = false
        path = try Self.write(huge, "huge.dng")
        Self.expectError(path, "truncated") { () throws(DecodeError) in _ = try Self.decode(path, native: true) }
        unlink(path)

        // Tiles that do not cover the image (19 of 20 listed): refused, not handed to LibRaw,
        // which would read the TileOffsets array as pixels.
        var tiled = good; tiled.tile = (16, 16)
        let tiles = Self.blocks(tiled)
        tiled.byteCounts = tiles.dropLast().map { UInt32($0.count) }
        let inFile = UInt32(Self.dngBytes(good).count / 2)                    // any offset with a tile's bytes after it
        tiled.offsets = (0..<(tiles.count - 1)).map { _ in inFile }
        tiled.opcodeList1 = false
        path = try Self.write(tiled, "uncovered.dng")
        Self.expectError(path, "corrupt") { () throws(DecodeError) in _ = try Self.decode(path, native: true) }
        unlink(path)

        // Bogus RowsPerStrip (0, or 3 for strips of 7) and short byte counts with the data present:
        // the strict check refuses them, LibRaw reads the rows as one run, as it always did (plus a warning).
        let expected = Self.activeSamples(good)
        for (label, spoil) in [("RowsPerStrip 0", { (s: inout Spec) in s.rowsPerStripTag = 0 }),
                               ("RowsPerStrip 3", { (s: inout Spec) in s.rowsPerStripTag = 3 }),
                               ("short byte counts", { (s: inout Spec) in s.byteCounts = Array(repeating: 100, count: n) })] {
            var s = good; s.opcodeList1 = false
            spoil(&s)
            path = try Self.write(s, "lenient.dng")
            defer { unlink(path) }
            var image = try Self.decode(path, native: true)
            #expect(image.pixels == expected, "\(label)")
            let warning = image.metadata.warnings.popLast() ?? ""
            #expect(warning.hasSuffix("; strips read by LibRaw as one run of rows"), "\(label): \(warning)")
            DNGTestSupport.expectSame(image, try Self.decode(path, native: false), label)
        }
    }

    /// Random byte flips in a packed 12-bit tiled file: decode returns or throws, never traps.
    @Test func byteFlipFuzz() throws {
        var spec = Spec(); spec.width = 40; spec.height = 30; spec.tile = (16, 16); spec.activeArea = [1, 1, 29, 39]
        let seed = Self.dngBytes(spec)
        let path = DNGTestSupport.tempPath("fuzz.dng", subdirectory: "native")
        defer { unlink(path) }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
        var decoded = 0, failed = 0
        for _ in 0..<300 {
            var bytes = seed
            // Flips land in the IFD and its values (the first 700 bytes) most of the time.
            for _ in 0..<(1 + Int(next() % 3)) {
                let i = next() % 4 == 0 ? Int(next() % UInt64(bytes.count)) : Int(next() % 700)
                bytes[i] ^= UInt8(truncatingIfNeeded: next() | 1)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do { _ = try Self.decode(path, native: true); decoded += 1 } catch {
                #expect(error.description.hasPrefix(path) && !error.description.contains("\n"))
                failed += 1
            }
        }
        #expect(decoded + failed == 300 && decoded > 0 && failed > 0)
    }
}
