import Foundation
import Testing
import DarkroomCore
@testable import DarkroomFormats
import DarkroomTestSupport
@testable import DarkroomIO

private let kodak = TestSupport.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/samples/kodak24").path
private let haveKodak = FileManager.default.fileExists(atPath: kodak + "/kodim19.png")

// MARK: - A tiny independent PNG writer (stored deflate blocks, forward filters) for synthetic files.

private func crc32(_ bytes: [UInt8]) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for b in bytes {
        c ^= UInt32(b)
        for _ in 0..<8 { c = (c & 1) != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
    }
    return ~c
}

private func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

private func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
    let td = Array(type.utf8) + data
    return be(UInt32(data.count)) + td + be(crc32(td))
}

/// zlib stream of stored (uncompressed) deflate blocks.
private func zlibStored(_ data: [UInt8]) -> [UInt8] {
    var out: [UInt8] = [0x78, 0x01]
    var pos = 0
    repeat {
        let n = min(65535, data.count - pos)
        let last: UInt8 = pos + n == data.count ? 1 : 0
        out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
        out += data[pos..<(pos + n)]
        pos += n
    } while pos < data.count
    var a: UInt32 = 1, b: UInt32 = 0
    for x in data { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
    return out + be(b << 16 | a)
}

private func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
    return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
}

/// Encodes `pixels` with row `y` using filter `filters[y % filters.count]`.
private func makePNG(width: Int, height: Int, channels: Int, pixels: [UInt8], filters: [UInt8]) -> [UInt8] {
    let rb = width * channels
    var raw: [UInt8] = []
    for y in 0..<height {
        let f = filters[y % filters.count]
        raw.append(f)
        for i in 0..<rb {
            let x = Int(pixels[y * rb + i])
            let a = i >= channels ? Int(pixels[y * rb + i - channels]) : 0
            let b = y > 0 ? Int(pixels[(y - 1) * rb + i]) : 0
            let c = (y > 0 && i >= channels) ? Int(pixels[(y - 1) * rb + i - channels]) : 0
            let pred = [0, a, b, (a + b) / 2, paeth(a, b, c)][Int(f)]
            raw.append(UInt8((x - pred) & 0xFF))
        }
    }
    let ihdr = be(UInt32(width)) + be(UInt32(height)) + [8, channels == 4 ? 6 : 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
        + chunk("tEXt", Array("Comment\0synthetic".utf8)) + chunk("IDAT", zlibStored(raw)) + chunk("IEND", [])
}

@Suite struct PNGReaderTests {
    @Test(arguments: [3, 4], [[0], [1], [2], [3], [4], [0, 1, 2, 3, 4]] as [[UInt8]])
    func decodesEveryFilterType(channels: Int, filters: [UInt8]) throws {
        let w = 13, h = 7
        let pixels = (0..<(w * h * channels)).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ ($0 / 5) &* 11) }
        let img = try PNGReader.read(makePNG(width: w, height: h, channels: channels, pixels: pixels, filters: filters))
        #expect(img.width == w && img.height == h && img.channels == channels)
        #expect(img.pixels == pixels)
    }

    /// Hostile and broken files fail with a clear PNGError (libpng's reason), never a trap.
    @Test func rejectsHostileBytes() {
        let good = makePNG(width: 4, height: 3, channels: 3, pixels: [UInt8](repeating: 9, count: 36), filters: [1])
        #expect(throws: PNGError.notPNG(file: nil)) { try PNGReader.read(Array("GIF89a.....".utf8)) }
        // Cut inside the tEXt chunk's header (IHDR ends at byte 33): 7 of its 8 bytes are there.
        #expect(throws: PNGError.truncated(file: nil, at: 33, needed: 1)) { try PNGReader.read(Array(good.prefix(40))) }
        // Cut anywhere: always an error, never a trap.
        for n in stride(from: 8, to: good.count, by: 3) {
            #expect(throws: PNGError.self, "prefix \(n)") { try PNGReader.read(Array(good.prefix(n))) }
        }
        var badCRC = good
        badCRC[20] ^= 0xFF   // inside IHDR data
        #expect(throws: PNGError.badCRC(file: nil, chunk: "IHDR")) { try PNGReader.read(badCRC) }
        var badAncillaryCRC = good
        badAncillaryCRC[33 + 8] ^= 0xFF   // inside tEXt data: ancillary chunks are checked too
        #expect(throws: PNGError.badCRC(file: nil, chunk: "tEXt")) { try PNGReader.read(badAncillaryCRC) }
        let noData = Array(good.prefix(33)) + chunk("IEND", [])
        #expect(throws: PNGError.invalid(file: nil, reason: "IEND: out of place")) { try PNGReader.read(noData) }
        // Valid chunk framing but image data that does not inflate.
        let ihdr = be(4) + be(3) + [8, 2, 0, 0, 0]
        let garbage = Array(good.prefix(8)) + chunk("IHDR", ihdr) + chunk("IDAT", [1, 2, 3, 4, 5]) + chunk("IEND", [])
        #expect(throws: PNGError.invalid(file: nil, reason: "IDAT: incorrect header check")) { try PNGReader.read(garbage) }
        let badDepth = Array(good.prefix(8)) + chunk("IHDR", be(4) + be(3) + [4, 2, 0, 0, 0])
        #expect(throws: PNGError.invalid(file: nil, reason: "Invalid IHDR data (Invalid color type/bit depth combination in IHDR)")) {
            try PNGReader.read(badDepth)
        }
        let zeroWidth = Array(good.prefix(8)) + chunk("IHDR", be(0) + be(3) + [8, 2, 0, 0, 0])
        #expect(throws: PNGError.self) { try PNGReader.read(zeroWidth) }
    }

    /// 400 mutants of a valid file with their chunk CRCs recomputed (so the damage reaches IHDR
    /// fields, the zlib stream and the row filters, not just the CRC check): each decodes or
    /// throws a PNGError; none traps. Deterministic (fixed-seed generator).
    @Test func mutantsWithValidCRCsNeverTrap() {
        let pixels = (0..<(23 * 17 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ $0 >> 3) }
        let good = makePNG(width: 23, height: 17, channels: 4, pixels: pixels, filters: [0, 1, 2, 3, 4])
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return Int(state >> 33) }
        var decoded = 0, refused = 0
        for _ in 0..<400 {
            var m = good
            for _ in 0..<(1 + next() % 4) { m[8 + next() % (m.count - 8)] = UInt8(truncatingIfNeeded: next()) }
            // Recompute every chunk's CRC so the mutation is not caught by the CRC alone.
            var pos = 8
            while pos + 12 <= m.count {
                let length = Int(m[pos]) << 24 | Int(m[pos + 1]) << 16 | Int(m[pos + 2]) << 8 | Int(m[pos + 3])
                guard length <= m.count - pos - 12 else { break }
                let crc = be(crc32(Array(m[(pos + 4)..<(pos + 8 + length)])))
                m.replaceSubrange((pos + 8 + length)..<(pos + 12 + length), with: crc)
                pos += 12 + length
            }
            do { _ = try PNGReader.read(m); decoded += 1 } catch { refused += 1 }
        }
        #expect(decoded + refused == 400 && refused > 0)
    }

    /// Huge declared sizes are refused from IHDR alone, before any pixel memory is allocated
    /// (the file is tiny; an allocation of width × height would be terabytes).
    @Test(arguments: [(100_000, 100_000), (0x7FFF_FFFF, 0x7FFF_FFFF), (0x7FFF_FFFF, 1), (16_384, 8_193)])
    func refusesHugeDimensions(width: Int, height: Int) {
        let ihdr = be(UInt32(width)) + be(UInt32(height)) + [8, 6, 0, 0, 0]
        let file = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", zlibStored([0, 1, 2, 3])) + chunk("IEND", [])
        #expect(throws: PNGError.unsupported(file: nil, reason: "image \(width)x\(height) too large")) { try PNGReader.read(file) }
    }

    /// An Adam7-interlaced file (written by ImageMagick, when installed) decodes to the same
    /// pixels as the non-interlaced original.
    @Test(.enabled(if: haveKodak)) func decodesInterlaced() throws {
        guard let convert = TestSupport.tool("/usr/bin/convert", "/usr/local/bin/convert") else { return }
        let path = NSTemporaryDirectory() + "darkroom-adam7-\(UUID().uuidString).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let r = try TestSupport.runTool(convert, [kodak + "/kodim03.png", "-interlace", "PNG", "PNG24:" + path])
        guard r.status == 0 else { return }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes[28] == 1, "ImageMagick wrote no Adam7 file")   // IHDR interlace method
        let interlaced = try PNGReader.read(bytes)
        let plain = try PNGReader.read(contentsOf: kodak + "/kodim03.png")
        #expect(interlaced == plain)
    }

    @Test func errorMessagesNameTheFile() {
        do {
            _ = try PNGReader.read(contentsOf: "/nonexistent/x.png")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.hasPrefix("/nonexistent/x.png: "))
            #expect(!error.description.contains("\n"))
        }
        #expect(PNGError.notPNG(file: nil).naming("a.png").description == "a.png: not a PNG (bad signature)")
    }

    /// Reference values from an independent decoder (Python zlib + its own unfilter).
    @Test(.enabled(if: haveKodak))
    func decodesKodakImages() throws {
        let k03 = try PNGReader.read(contentsOf: kodak + "/kodim03.png")   // filter Sub only
        #expect(k03.width == 768 && k03.height == 512 && k03.channels == 3)
        #expect(k03.pixels.reduce(0) { $0 + Int($1) } == 113_910_652)
        #expect(Array(k03.pixels[(100 * 768 + 200) * 3..<(100 * 768 + 200) * 3 + 3]) == [251, 255, 79])
        let k19 = try PNGReader.read(contentsOf: kodak + "/kodim19.png")   // Sub, Up, Average, Paeth
        #expect(k19.width == 512 && k19.height == 768 && k19.channels == 3)
        #expect(k19.pixels.reduce(0) { $0 + Int($1) } == 132_187_260)
        #expect(Array(k19.pixels.prefix(6)) == [75, 93, 94, 78, 95, 104])
        #expect(Array(k19.pixels[(100 * 512 + 200) * 3..<(100 * 512 + 200) * 3 + 3]) == [110, 113, 114])
    }
}

/// CPSNR floors on two Kodak images (mosaiced RGGB, 10-px border excluded), just under the
/// values `bench-demosaic` measures, and the same samples seen through GBRG give identical pixels.
@Suite struct PNGKodakDemosaicTests {
    static let floors: [(String, DemosaicAlgorithm, Double)] = [
        ("kodim03", .bilinear, 34.55), ("kodim03", .malvar, 39.60), ("kodim03", .rcd, 40.88), ("kodim03", .gbtf, 43.11),
        ("kodim19", .bilinear, 28.05), ("kodim19", .malvar, 33.64), ("kodim19", .rcd, 37.20), ("kodim19", .gbtf, 41.69),
        ("kodim03", .ahd, 40.98), ("kodim03", .mlri, 43.25), ("kodim19", .ahd, 37.27), ("kodim19", .mlri, 40.52),
    ]

    @Test(.enabled(if: haveKodak), arguments: Array(0..<12))
    func cpsnrAboveFloor(index: Int) throws {
        let (name, algorithm, floor) = Self.floors[index]
        let img = try PNGReader.read(contentsOf: kodak + "/\(name).png")
        let floats = img.pixels.map { Float($0) / 255 }
        let m = DemosaicEvaluation.mosaic(interleaved: floats, width: img.width, height: img.height, cfa: .rggb)
        let out = DemosaicTiler(kernel: algorithm.makeKernel()).run(mosaic: m, width: img.width, height: img.height, cfa: .rggb)
        let db = DemosaicEvaluation.cpsnr(reference: img.pixels, width: img.width, height: img.height,
                                          red: out.red, green: out.green, blue: out.blue)
        #expect(db >= floor && db < floor + 0.1, "\(name) \(algorithm.rawValue): \(db) dB")
    }

    /// The same physical samples seen from an origin moved by (dx, dy) (so another CFA order)
    /// demosaic to bit-identical pixels away from the edges.
    @Test(.enabled(if: haveKodak), arguments: [(1, 0), (0, 1), (1, 1)])
    func otherCFAOrdersGiveIdenticalPixels(dx: Int, dy: Int) throws {
        let img = try PNGReader.read(contentsOf: kodak + "/kodim19.png")
        let w = img.width, h = img.height
        let floats = img.pixels.map { Float($0) / 255 }
        let m = DemosaicEvaluation.mosaic(interleaved: floats, width: w, height: h, cfa: .rggb)
        let cw = w - dx, ch = h - dy
        var cropped = [Float](repeating: 0, count: cw * ch)
        for y in 0..<ch { for x in 0..<cw { cropped[y * cw + x] = m[(y + dy) * w + x + dx] } }
        let cfa = CFAPattern.rggb.shifted(dx: dx, dy: dy)
        #expect(cfa != .rggb)
        let kernel = DemosaicAlgorithm.default.makeKernel()
        let a = DemosaicTiler(kernel: kernel).run(mosaic: m, width: w, height: h, cfa: .rggb)
        let b = DemosaicTiler(kernel: kernel, tileSize: 200, workers: 2).run(mosaic: cropped, width: cw, height: ch, cfa: cfa)
        let e = kernel.halo + 1
        var mismatches = 0
        for y in e..<(ch - e) { for x in e..<(cw - e) {
            let i = (y + dy) * w + x + dx, j = y * cw + x
            if a.red[i] != b.red[j] || a.green[i] != b.green[j] || a.blue[i] != b.blue[j] { mismatches += 1 }
        } }
        #expect(mismatches == 0)
    }
}
