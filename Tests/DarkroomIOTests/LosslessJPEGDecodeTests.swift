import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// Lossless JPEG (Compression 7) DNGs: our writer's streams read by LibRaw; `LosslessJPEGDecoder`
/// against the LibRaw path (`DecodeOptions.nativeLosslessJPEG = false`) and against the samples
/// the streams were made from, for bit depths, strips and tiles, 1…3 components, ActiveArea and
/// OpcodeList1, predictors 1…7, point transforms, restart markers and thread counts; hostile
/// streams throw one clean error.
///
/// LibRaw 0.20 (`lossless_dng_load_raw`) reads one stream per tile but only the first strip's
/// stream, ignores the point transform, and predicts the first line of a restart interval with
/// the scan's predictor instead of Ra (T.81 H.1.2.1): those cases are checked against the source
/// samples only.
@Suite struct LosslessJPEGDecodeTests {
    struct WriterCase: Sendable, CustomTestStringConvertible {
        var bits: Int, width: Int, height: Int, tile: Int?, rowsPerStrip = 1 << 30, components = 2
        var testDescription: String {
            "\(bits)-bit \(width)x\(height) \(tile.map { "tiles \($0)" } ?? "one strip") \(components) comp"
        }
    }

    static func writerImage(_ c: WriterCase) -> RawImage {
        var image = DNGTestSupport.image(cfa: .rggb, bits: c.bits, width: c.width, height: c.height)
        image.metadata.bitsPerSample = c.bits
        return image
    }

    static func writeLJ92(_ image: RawImage, _ name: String, tile: Int?, rowsPerStrip: Int = 1 << 30, components: Int = 2) throws -> String {
        let path = DNGTestSupport.tempPath(name, subdirectory: "lj92")
        try DNGWriter.write(image, to: path, options: DNGWriteOptions(rowsPerStrip: rowsPerStrip, tileSize: tile,
                                                                      compression: .losslessJPEG(components: components)))
        return path
    }

    /// LibRaw 0.20 reads one JPEG stream per tile, but only the first strip's stream: strips are
    /// written as one strip here.
    static let writerCases: [WriterCase] = [12, 14, 16].flatMap { bits in [
        WriterCase(bits: bits, width: 70, height: 50, tile: nil),
        WriterCase(bits: bits, width: 71, height: 53, tile: nil, components: 1),
        WriterCase(bits: bits, width: 300, height: 270, tile: 256),
        WriterCase(bits: bits, width: 257, height: 255, tile: 256, components: 1),
        WriterCase(bits: bits, width: 90, height: 61, tile: 32),
    ] }

    @Test(arguments: writerCases)
    func libRawReadsOurStreams(_ c: WriterCase) throws {
        let image = Self.writerImage(c)
        let path = try Self.writeLJ92(image, "writer-\(c.bits)-\(c.width)-\(c.tile ?? 0)-\(c.components).dng",
                                      tile: c.tile, rowsPerStrip: c.rowsPerStrip, components: c.components)
        defer { unlink(path) }
        let u = try LibRawDecoder.unpack(path: path)
        #expect(u.rawWidth == c.width && u.rawHeight == c.height)
        let first = zip(u.pixels, image.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(u.pixels.count == image.pixels.count && first == nil, "\(c.testDescription): first difference at \(first ?? -1)")
        let md = try DNGMetadataReader.readForDecoding(contentsOf: path)
        #expect(md.layout?.compression == 7 && md.layout?.bitsPerSample == [c.bits])
    }

    // MARK: - Fixture: hand-made lossless JPEG DNGs

    /// One DNG to build byte by byte: the raw image in IFD0, one stream per strip or tile after
    /// the IFD. The hostile fields spoil it on purpose.
    struct Spec: Sendable, CustomTestStringConvertible {
        var width = 70, height = 50, samplesPerPixel = 1, bits = 12
        var rowsPerStrip = 50
        var tile: Int? = nil
        /// Components per stream column for CFA data (LinearRaw uses SamplesPerPixel).
        var components = 2
        var predictor = 1, pointTransform = 0
        /// Lines per restart interval (0: none).
        var restartLines = 0
        /// One Huffman table per component.
        var tablePerComponent = false
        /// A LinearizationTable of this many entries (nil: none).
        var linearizationCount: Int? = nil
        /// ActiveArea top, left, bottom, right.
        var activeArea: [UInt32]? = [3, 5, 47, 66]
        var opcodeList1 = true
        var seed: UInt64 = 1
        /// Changes the streams (block index, bytes) after encoding.
        var spoil: (@Sendable (Int, inout [UInt8]) -> Void)? = nil
        var label = ""

        var testDescription: String {
            "\(samplesPerPixel == 1 ? "CFA" : "LinearRaw") \(bits)-bit " + (tile.map { "tiles \($0)" } ?? "strips of \(rowsPerStrip)")
                + " \(nc) comp\(tablePerComponent ? " (own tables)" : ""), predictor \(predictor), Pt \(pointTransform), restart \(restartLines)\(label)"
        }

        var nc: Int { samplesPerPixel == 1 ? components : samplesPerPixel }
        var maxValue: Int { (1 << bits) - 1 }

        /// Deterministic samples covering 0 and the maximum, smooth enough for prediction to
        /// matter; the low Pt bits are zero.
        var samples: [UInt16] {
            var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
            let n = width * height * samplesPerPixel
            return (0..<n).map { i in
                if i % 97 == 0 { return 0 }
                if i % 89 == 0 { return (UInt16(maxValue) >> pointTransform) << pointTransform }
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                let ramp = (i % (width * samplesPerPixel)) * maxValue / (width * samplesPerPixel)
                let v = (ramp + Int(state % 64) - 32) & maxValue
                return (UInt16(v) >> pointTransform) << pointTransform
            }
        }

        var opcodeBytes: [UInt8] {
            let area = OpcodeArea(top: 0, left: 0, bottom: 10, right: 20, plane: 0, planes: UInt32(samplesPerPixel))
            let table = (0...maxValue).map { UInt16(maxValue - $0) }
            return OpcodeList(opcodes: [.mapTable(.init(area: area, table: table))]).encode()
        }
    }

    /// The streams of `spec`, in file order.
    static func streams(_ spec: Spec) -> [[UInt8]] {
        let s = spec.samples, spp = spec.samplesPerPixel, w = spec.width, h = spec.height
        func encode(_ block: [UInt16], blockWidth: Int, rows: Int) -> [UInt8] {
            var e = LosslessJPEGEncoder(columns: blockWidth * spp / spec.nc, lines: rows, components: spec.nc, precision: spec.bits)
            e.predictor = spec.predictor; e.pointTransform = spec.pointTransform
            e.restartInterval = spec.restartLines * e.columns
            e.tablePerComponent = spec.tablePerComponent
            return block.withUnsafeBufferPointer { e.encode($0) }
        }
        var out: [[UInt8]] = []
        if let t = spec.tile {
            for ty in stride(from: 0, to: h, by: t) {
                for tx in stride(from: 0, to: w, by: t) {
                    var block = [UInt16](repeating: 0, count: t * t * spp)
                    for y in ty..<min(h, ty + t) {
                        for x in tx..<min(w, tx + t) {
                            for c in 0..<spp { block[((y - ty) * t + x - tx) * spp + c] = s[(y * w + x) * spp + c] }
                        }
                    }
                    out.append(encode(block, blockWidth: t, rows: t))
                }
            }
        } else {
            for y0 in stride(from: 0, to: h, by: spec.rowsPerStrip) {
                let rows = min(h, y0 + spec.rowsPerStrip) - y0
                out.append(encode(Array(s[(y0 * w * spp)..<((y0 + rows) * w * spp)]), blockWidth: w, rows: rows))
            }
        }
        if let spoil = spec.spoil { for i in out.indices { spoil(i, &out[i]) } }
        return out
    }

    static func dngBytes(_ spec: Spec) -> [UInt8] {
        let data = streams(spec)
        let counts = data.map { UInt32($0.count) }
        return TIFFTestBuilder.dngWithBlocks(data) { b, offsets in
            let spp = spec.samplesPerPixel
            var e = b.testCameraEntries(model: "LJ92 Test", dngVersion: [1, 4, 0, 0], width: UInt32(spec.width),
                                        height: UInt32(spec.height), bits: spec.bits, samplesPerPixel: spp, compression: 7)
            e += [b.long(TIFFTag.blackLevel, Array(repeating: 16, count: spp)),
                  b.long(TIFFTag.whiteLevel, Array(repeating: UInt32(spec.maxValue), count: spp))]
            e += b.blockEntries(tile: spec.tile.map { (width: $0, length: $0) }, rowsPerStrip: UInt32(spec.rowsPerStrip),
                                offsets: offsets, counts: counts)
            if let a = spec.activeArea { e.append(b.long(TIFFTag.activeArea, a)) }
            if spec.opcodeList1 { e.append(b.byte(TIFFTag.opcodeList1, spec.opcodeBytes, type: 7)) }
            if let n = spec.linearizationCount { e.append(b.short(TIFFTag.linearizationTable, Self.linearization(n))) }
            return e
        }
    }

    static func write(_ spec: Spec, _ name: String) throws -> String {
        let path = DNGTestSupport.tempPath(name, subdirectory: "lj92")
        try Data(dngBytes(spec)).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func decode(_ path: String, native: Bool, opcodes: Bool = true, threads: Int = 0) throws(DecodeError) -> RawImage {
        var o = DecodeOptions(applyOpcodeList1: opcodes, threads: threads)
        o.nativeLosslessJPEG = native
        return try RawDecoder.decode(path: path, options: o)
    }

    /// The stored samples of `spec` inside its ActiveArea.
    static func activeSamples(_ spec: Spec) -> [UInt16] {
        DNGTestSupport.activeSamples(spec.samples, width: spec.width, height: spec.height,
                                     samplesPerPixel: spec.samplesPerPixel, activeArea: spec.activeArea)
    }


    /// Native decode of `spec` (with and without OpcodeList1) against its samples and, where
    /// LibRaw reads it the T.81 way, against the LibRaw path.
    static func check(_ spec: Spec, libRaw: Bool) throws {
        let path = try write(spec, "check-\(UUID().uuidString).dng")
        defer { unlink(path) }
        // The native decoder itself (RawDecoder would fall back to LibRaw silently on `.unsupported`).
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        let stored = PixelRect(x: 0, y: 0, width: spec.width, height: spec.height)
        #expect(try LosslessJPEGDecoder.decode(layout, region: stored, threads: 2, path: path) == spec.samples, "\(spec.testDescription)")
        for opcodes in [true, false] {
            let native = try decode(path, native: true, opcodes: opcodes)
            #expect(native.metadata.warnings.isEmpty, "\(spec.testDescription): \(native.metadata.warnings)")
            if libRaw { DNGTestSupport.expectSame(native, try decode(path, native: false, opcodes: opcodes), "\(spec.testDescription), OpcodeList1 \(opcodes)") }
            let expected = activeSamples(spec)
            if opcodes {
                let spp = spec.samplesPerPixel, i = (2 * 61 + 3) * spp, j = (20 * 61 + 30) * spp
                #expect(native.pixels[i] == UInt16(spec.maxValue) - expected[i], "\(spec.testDescription)")
                #expect(native.pixels[j] == expected[j], "\(spec.testDescription)")
            } else {
                #expect(native.pixels == expected, "\(spec.testDescription): native != source samples")
            }
        }
    }

    // MARK: - Native == LibRaw == source

    static let layouts: [Spec] = {
        var out: [Spec] = []
        var seed: UInt64 = 10
        for bits in [8, 12, 14, 16] {
            for spp in [1, 3] {
                for tiled in [false, true] {
                    for components in spp == 1 ? [1, 2] : [3] {
                        var s = Spec()
                        s.bits = bits; s.samplesPerPixel = spp; s.components = components
                        s.seed = seed; seed += 1
                        if tiled { s.tile = 32 }
                        out.append(s)
                        if components > 1 && bits != 8 { s.tablePerComponent = true; s.seed = seed; seed += 1; out.append(s) }
                    }
                }
            }
        }
        return out
    }()

    @Test(arguments: layouts)
    func nativeMatchesLibRaw(_ spec: Spec) throws {
        try Self.check(spec, libRaw: true)
    }

    @Test(arguments: 2...7)
    func predictors(_ predictor: Int) throws {
        for tile in [nil, 32] as [Int?] {
            var s = Spec(bits: 14, tile: tile, predictor: predictor, seed: UInt64(predictor))
            try Self.check(s, libRaw: true)
            s.samplesPerPixel = 3; s.bits = 16
            try Self.check(s, libRaw: true)
        }
    }

    /// Restart intervals of whole lines: predictor 1 as LibRaw reads it; other predictors by T.81.
    @Test(arguments: [1, 2, 4, 7])
    func restartMarkers(_ predictor: Int) throws {
        for lines in [1, 3, 16] {
            for tile in [nil, 32] as [Int?] {
                let s = Spec(bits: 12, tile: tile, predictor: predictor, restartLines: lines, seed: UInt64(lines))
                try Self.check(s, libRaw: predictor == 1)
            }
        }
    }

    @Test func pointTransform() throws {
        for pt in [1, 3] {
            try Self.check(Spec(bits: 14, tile: 32, predictor: 6, pointTransform: pt), libRaw: false)
            try Self.check(Spec(bits: 16, pointTransform: pt), libRaw: false)
        }
    }

    /// Several strips (LibRaw 0.20 reads only the first), the last one shorter.
    @Test func severalStrips() throws {
        for rows in [1, 7, 16] {
            try Self.check(Spec(bits: 14, rowsPerStrip: rows, seed: UInt64(rows)), libRaw: false)
            try Self.check(Spec(samplesPerPixel: 3, bits: 12, rowsPerStrip: rows, seed: UInt64(rows)), libRaw: false)
        }
    }

    /// Our writer's files: native == LibRaw == written pixels, full metadata.
    @Test(arguments: writerCases)
    func writerFilesNativeMatchesLibRaw(_ c: WriterCase) throws {
        let image = Self.writerImage(c)
        let path = try Self.writeLJ92(image, "native-\(c.bits)-\(c.width)-\(c.tile ?? 0)-\(c.components).dng",
                                      tile: c.tile, components: c.components)
        defer { unlink(path) }
        for opcodes in [true, false] {
            let native = try Self.decode(path, native: true, opcodes: opcodes)
            DNGTestSupport.expectSame(native, try Self.decode(path, native: false, opcodes: opcodes), c.testDescription)
            if !opcodes { #expect(native.pixels == image.pixels) }
        }
    }

    @Test func threadCountNeverChangesPixels() throws {
        for spec in [Spec(width: 200, height: 170, tile: 32), Spec(width: 90, height: 200, samplesPerPixel: 3, rowsPerStrip: 9),
                     Spec(width: 300, height: 260, bits: 16, tile: 256)] {
            let path = try Self.write(spec, "threads-\(UUID().uuidString).dng")
            defer { unlink(path) }
            for opcodes in [true, false] {
                let one = try Self.decode(path, native: true, opcodes: opcodes, threads: 1)
                for t in [2, 3, 0] {
                    DNGTestSupport.expectSame(one, try Self.decode(path, native: true, opcodes: opcodes, threads: t), "\(t) threads")
                }
            }
        }
    }

    /// The Blackmagic sample both ways; skipped when ../shared is absent. Its Compression 7 tiles
    /// are SOF1 (DCT) streams, not lossless ones: the native decoder declines them (unsupported)
    /// and LibRaw decodes them on both paths, with no warning.
    @Test func blackmagicSampleMatchesLibRaw() throws {
        let path = DNGSampleTests.samplesDirectory + "/imageio_Blackmagic.dng"
        guard FileManager.default.fileExists(atPath: path) else { return }
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        #expect(LosslessJPEGDecoder.unsupportedReason(layout) == nil)
        let native = try Self.decode(path, native: true)
        #expect(native.metadata.warnings.filter { $0.contains("LibRaw") }.isEmpty, "\(native.metadata.warnings)")
        DNGTestSupport.expectSame(native, try Self.decode(path, native: false), "Blackmagic")
        let region = PixelRect(x: 0, y: 0, width: layout.width, height: layout.height)
        do {
            _ = try LosslessJPEGDecoder.decode(layout, region: region, threads: 2, path: path)
            Issue.record("SOF1 tiles decoded natively")
        } catch {
            guard case .invalidLayout(.unsupported(_, let reason)) = error else { Issue.record("\(error.error)"); return }
            #expect(reason.contains("SOF1"))
        }
    }

    // MARK: - Hostile streams

    /// The decoder's own verdict on a spoilt spec: `kind` "truncated" or "corrupt", and whether
    /// it is a layout failure (LibRaw may still read) or a data failure.
    static func expectFailure(_ spec: Spec, _ kind: String, layoutFailure: Bool, _ label: String) throws {
        let path = try write(spec, "hostile-\(UUID().uuidString).dng")
        defer { unlink(path) }
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        let region = PixelRect(x: 0, y: 0, width: spec.width, height: spec.height)
        for threads in [1, 2] {
            do {
                _ = try LosslessJPEGDecoder.decode(layout, region: region, threads: threads, path: path)
                Issue.record("\(label): expected a \(kind) error")
            } catch {
                let e = error.error, text = e.description
                #expect(text.hasPrefix(path + ": ") && !text.contains("\n"), "\(label): \(text)")
                switch (kind, e) {
                case ("truncated", .truncated), ("corrupt", .corrupt), ("unsupported", .unsupported): break
                default: Issue.record("\(label): expected \(kind), got \(text)")
                }
                switch error {
                case .invalidLayout: #expect(layoutFailure, "\(label): \(text)")
                case .invalidData: #expect(!layoutFailure, "\(label): \(text)")
                }
            }
        }
        // Through RawDecoder: a clean error, or (layout failures) LibRaw's decode with a warning.
        do {
            let image = try decode(path, native: true)
            #expect(layoutFailure && image.metadata.warnings.contains { $0.contains("read by LibRaw") }, "\(label): decoded")
        } catch {
            #expect(error.description.hasPrefix(path + ": "), "\(label): \(error)")
        }
    }

    /// Offset of the first byte after marker `marker` (0xFF `marker`) in `stream`.
    static func after(_ marker: UInt8, in stream: [UInt8]) -> Int {
        (0..<(stream.count - 1)).first { stream[$0] == 0xFF && stream[$0 + 1] == marker }! + 2
    }

    @Test func hostileStreams() throws {
        let base = Spec(width: 64, height: 64, tile: 32, activeArea: nil, opcodeList1: false)
        func spoilt(_ label: String, _ f: @escaping @Sendable (inout [UInt8]) -> Void) -> Spec {
            var s = base; s.label = label
            s.spoil = { i, b in if i == 2 { f(&b) } }
            return s
        }
        // Entropy-coded data cut short (EOI kept, so the stream ends early).
        try Self.expectFailure(spoilt("data cut") { b in
            b.removeSubrange((b.count - 40)..<(b.count - 2))
        }, "truncated", layoutFailure: false, "data cut")
        // Stream cut inside its headers.
        try Self.expectFailure(spoilt("headers cut") { b in b.removeSubrange(30...) }, "truncated", layoutFailure: true, "headers cut")
        // DHT claiming more codes than the lengths allow (3 codes of length 1).
        try Self.expectFailure(spoilt("DHT overfull") { b in b[Self.after(0xC4, in: b) + 3] = 3 }, "corrupt", layoutFailure: true, "DHT overfull")
        // DHT symbol above 16.
        try Self.expectFailure(spoilt("DHT symbol") { b in b[Self.after(0xC4, in: b) + 19] = 40 }, "corrupt", layoutFailure: true, "DHT symbol")
        // A code the table does not define: all ones for the rest of the data.
        try Self.expectFailure(spoilt("undefined code") { b in
            let sos = Self.after(0xDA, in: b), start = sos + Int(b[sos]) << 8 + Int(b[sos + 1])
            // All ones (stuffed): the all-ones code is never defined (T.81 C.2).
            for k in stride(from: start, to: b.count - 3, by: 2) { b[k] = 0xFF; b[k + 1] = 0x00 }
        }, "corrupt", layoutFailure: false, "undefined code")
        // SOF sizes that do not fill the tile; a huge frame; precision 17; 5 components.
        func sof(_ label: String, _ at: Int, _ v: [UInt8]) -> Spec {
            spoilt(label) { b in let o = Self.after(0xC3, in: b) + at; b.replaceSubrange(o..<(o + v.count), with: v) }
        }
        try Self.expectFailure(sof("SOF lines", 3, [0, 31]), "corrupt", layoutFailure: false, "SOF lines short")
        try Self.expectFailure(sof("SOF lines", 3, [0, 33]), "corrupt", layoutFailure: true, "SOF lines long")
        try Self.expectFailure(sof("SOF huge", 3, [0xFF, 0xFF, 0xFF, 0xFF]), "truncated", layoutFailure: false, "SOF huge")
        try Self.expectFailure(sof("SOF precision", 2, [17]), "corrupt", layoutFailure: true, "SOF precision")
        try Self.expectFailure(sof("SOF components", 7, [5]), "corrupt", layoutFailure: true, "SOF components")
        // SOS predictor 0 and 8.
        for p: UInt8 in [0, 8] {
            try Self.expectFailure(spoilt("predictor \(p)") { b in
                let sos = Self.after(0xDA, in: b); b[sos + 2 + 1 + 2 * 2] = p
            }, "corrupt", layoutFailure: true, "predictor \(p)")
        }
        // Lossy SOF (baseline) instead of SOF3.
        try Self.expectFailure(spoilt("SOF0") { b in b[Self.after(0xC3, in: b) - 1] = 0xC0 }, "corrupt", layoutFailure: false, "SOF0")
        // Restart markers: one missing, one out of order.
        var restart = base; restart.restartLines = 4
        var missing = restart; missing.label = "RST missing"
        missing.spoil = { i, b in
            if i == 1, let k = (0..<(b.count - 1)).first(where: { b[$0] == 0xFF && b[$0 + 1] == 0xD1 }) { b.removeSubrange(k..<(k + 2)) }
        }
        try Self.expectFailure(missing, "corrupt", layoutFailure: false, "RST missing")
        var order = restart; order.label = "RST order"
        order.spoil = { i, b in
            if i == 1, let k = (0..<(b.count - 1)).first(where: { b[$0] == 0xFF && b[$0 + 1] == 0xD1 }) { b[k + 1] = 0xD3 }
        }
        try Self.expectFailure(order, "corrupt", layoutFailure: false, "RST order")
        // A sample above 2^P − 1: a 12-bit stream declared 8-bit.
        try Self.expectFailure(sof("precision too small", 2, [8]), "corrupt", layoutFailure: false, "sample overflow")
    }

    /// Byte counts and offsets past the end of the file; the file cut inside the data.
    @Test func hostileLayouts() throws {
        let spec = Spec(width: 64, height: 64, tile: 32, activeArea: nil, opcodeList1: false)
        let path = try Self.write(spec, "layout.dng")
        defer { unlink(path) }
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        let all = PixelRect(x: 0, y: 0, width: 64, height: 64)
        #expect(try LosslessJPEGDecoder.decode(layout, region: all, threads: 2, path: path) == spec.samples)
        func expect(_ l: DNGRawDataLayout, _ kind: String) {
            do {
                _ = try LosslessJPEGDecoder.decode(l, region: all, threads: 2, path: path)
                Issue.record("expected \(kind)")
            } catch {
                switch (kind, error.error) {
                case ("truncated", .truncated), ("corrupt", .corrupt): break
                default: Issue.record("expected \(kind), got \(error.error)")
                }
            }
        }
        var l = layout; l.byteCounts[3] = 1 << 40
        expect(l, "truncated")
        l = layout; l.offsets[1] = Int.max - 4
        expect(l, "truncated")
        l = layout; l.offsets.removeLast()
        expect(l, "corrupt")
        l = layout; l.byteCounts[0] = 40                                  // cut inside the headers
        expect(l, "truncated")
        l = layout; l.width = 1 << 20; l.height = 1 << 20                 // tiles missing for a huge image
        expect(l, "corrupt")
        l = layout; l.blocks = .tiles(width: 64, length: 32)              // frames do not fill these tiles
        l.offsets = Array(l.offsets.prefix(2)); l.byteCounts = Array(l.byteCounts.prefix(2))
        expect(l, "corrupt")

        // The file itself cut in the middle of the last tile's data.
        let bytes = Self.dngBytes(spec)
        let cutPath = DNGTestSupport.tempPath("cut.dng", subdirectory: "lj92")
        defer { unlink(cutPath) }
        try Data(bytes.prefix(bytes.count - 100)).write(to: URL(fileURLWithPath: cutPath))
        do {
            _ = try Self.decode(cutPath, native: true)
            Issue.record("cut file decoded")
        } catch {
            #expect(error.description.hasPrefix(cutPath + ": ") && !error.description.contains("\n"), "\(error)")
        }
    }

    /// A LinearizationTable: value v ↦ 3v/2 + 7.
    static func linearization(_ count: Int) -> [UInt16] { (0..<count).map { UInt16(min(65535, $0 * 3 / 2 + 7)) } }

    /// LinearizationTable applied while decoding, as LibRaw does (values past its end take the
    /// last entry), before OpcodeList1 on both paths.
    @Test func linearizationTable() throws {
        for (bits, count, tile) in [(12, 4096, 32), (14, 5000, nil), (16, 70000, 32)] as [(Int, Int, Int?)] {
            let spec = Spec(bits: bits, tile: tile, linearizationCount: count)
            let path = try Self.write(spec, "linearization-\(UUID().uuidString).dng")
            defer { unlink(path) }
            for opcodes in [true, false] {
                let native = try Self.decode(path, native: true, opcodes: opcodes)
                #expect(native.metadata.warnings.isEmpty, "\(native.metadata.warnings)")
                DNGTestSupport.expectSame(native, try Self.decode(path, native: false, opcodes: opcodes), "\(bits)-bit, \(count) entries, OpcodeList1 \(opcodes)")
                if !opcodes {
                    let table = Self.linearization(min(count, 65536))
                    #expect(native.pixels == Self.activeSamples(spec).map { table[min(Int($0), table.count - 1)] })
                    let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
                    let area = PixelRect(x: 5, y: 3, width: 61, height: 44)
                    #expect(try LosslessJPEGDecoder.decode(layout, region: area, threads: 1, path: path) == native.pixels)
                }
            }
        }
    }

    /// Random byte changes anywhere in small LJ92 DNGs (tags, headers, data): the decoder and
    /// RawDecoder return or throw, never trap; a native data error is never papered over.
    @Test(arguments: [false, true])
    func byteFlipFuzz(restarts: Bool) throws {
        var spec = Spec(width: 64, height: 48, tile: 32, restartLines: restarts ? 4 : 0, activeArea: nil, opcodeList1: false)
        spec.components = 2
        let good = Self.dngBytes(spec)
        let path = DNGTestSupport.tempPath("fuzz-\(restarts).dng", subdirectory: "lj92")
        defer { unlink(path) }
        var state: UInt64 = restarts ? 0xDEAD_BEEF : 0x1234_5678
        func next() -> Int { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return Int(state >> 1) }
        var outcomes = [String: Int]()
        for _ in 0..<300 {
            var bytes = good
            for _ in 0..<(1 + next() % 4) {
                // Mostly the pixel data (the last ~third), sometimes anywhere.
                let at = next() % 3 == 0 ? next() % bytes.count : bytes.count - 1 - next() % (bytes.count / 3)
                bytes[at] = UInt8(truncatingIfNeeded: next())
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            if let layout = try? DNGMetadataReader.readForDecoding(contentsOf: path).layout, layout.width > 0, layout.height > 0,
               layout.width <= 64, layout.height <= 48 {
                let region = PixelRect(x: 0, y: 0, width: layout.width, height: layout.height)
                _ = try? LosslessJPEGDecoder.decode(layout, region: region, threads: 2, path: path)
            }
            do {
                _ = try Self.decode(path, native: true)
                outcomes["decoded", default: 0] += 1
            } catch {
                #expect(error.description.hasPrefix(path + ": ") && !error.description.contains("\n"), "\(error)")
                outcomes["\(error)".components(separatedBy: " (").first ?? "", default: 0] += 1
            }
        }
        print("LJ92 fuzz (restarts \(restarts)): \(outcomes.count) outcomes, \(outcomes["decoded"] ?? 0) decoded of 300")
    }
}
