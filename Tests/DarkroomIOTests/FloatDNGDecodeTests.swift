import CTIFF
import CZlib
import DarkroomCore
import DarkroomTestSupport
import Foundation
import Testing
@testable import DarkroomIO

/// Floating-point DNGs (SampleFormat 3): adobesdk_14 against the DNG SDK's float stage 2
/// (`../shared/reference/dngsdk`, read by libtiff); our own files in every storage — 16/24/32-bit,
/// uncompressed or Deflate, no predictor / floating point (strips written by libtiff, the
/// independent encoder) / FloatingPointX2 / X4, either byte order, strips and tiles, every thread
/// count — decode to the values written; the mapping to 16 bits keeps stage 2; hostile layouts
/// throw one error naming the file.
@Suite struct FloatDNGDecodeTests {
    static let root = JXLDecodeTests.root
    static let sample = root.appendingPathComponent("shared/samples/dng/adobesdk_14_hdr_sdr_profiles.dng").path
    static let reference = root.appendingPathComponent("shared/reference/dngsdk/adobesdk_14_hdr_sdr_profiles.stage2.tif").path
    static var sharedPresent: Bool {
        FileManager.default.fileExists(atPath: sample) && FileManager.default.fileExists(atPath: reference)
    }

    /// A float TIFF's samples, read by libtiff.
    static func libtiffFloats(_ path: String) -> (width: Int, height: Int, spp: Int, samples: [Float])? {
        guard let tif = TIFFOpen(path, "r") else { return nil }
        defer { TIFFClose(tif) }
        var w: UInt32 = 0, h: UInt32 = 0, bits: UInt16 = 0, spp: UInt16 = 0, format: UInt16 = 0
        _ = DNGTestSupport.get(tif, TIFFTAG_IMAGEWIDTH, &w); _ = DNGTestSupport.get(tif, TIFFTAG_IMAGELENGTH, &h)
        _ = DNGTestSupport.get(tif, TIFFTAG_BITSPERSAMPLE, &bits); _ = DNGTestSupport.get(tif, TIFFTAG_SAMPLESPERPIXEL, &spp)
        _ = DNGTestSupport.get(tif, TIFFTAG_SAMPLEFORMAT, &format)
        guard bits == 32, format == 3, TIFFIsTiled(tif) == 0 else { return nil }
        var out = [Float](repeating: 0, count: Int(w) * Int(h) * Int(spp))
        var offset = 0
        for s in 0..<Int(TIFFNumberOfStrips(tif)) {
            let got = out.withUnsafeMutableBytes { buf in
                TIFFReadEncodedStrip(tif, UInt32(s), buf.baseAddress! + offset, tmsize_t(buf.count - offset))
            }
            guard got > 0 else { return nil }
            offset += Int(got)
        }
        return (Int(w), Int(h), Int(spp), out)
    }

    // MARK: - The DNG SDK's stage 2

    /// Our stage 2, (p − black) / (white − black) · 65535 from the 16-bit mapping, is the SDK's
    /// float stage 2 · 65535 within 1 code; every thread count decodes the same floats.
    @Test(.enabled(if: sharedPresent))
    func adobeSDK14MatchesStage2() throws {
        let ref = try #require(Self.libtiffFloats(Self.reference))
        let image = try RawDecoder.decode(path: Self.sample)
        #expect(image.width == ref.width && image.height == ref.height && image.samplesPerPixel == ref.spp)
        let white = image.metadata.whiteLevel, black = image.metadata.blackLevel.first ?? 0
        var maxDifference = 0.0
        for (i, p) in image.pixels.enumerated() {
            let w = white[white.count == 1 ? 0 : i % white.count]
            let ours = (Double(p) - black) / (w - black) * 65535
            maxDifference = max(maxDifference, abs(ours - Double(ref.samples[i]) * 65535))
        }
        #expect(image.pixels.count == ref.samples.count && maxDifference <= 1, "max difference \(maxDifference) codes")
        let parsed = try DNGMetadataReader.readForDecoding(contentsOf: Self.sample)
        let layout = try #require(parsed.layout)
        let one = try FloatDNGDecoder.decode(layout, threads: 1, path: Self.sample)
        #expect(try FloatDNGDecoder.decode(layout, threads: 3, path: Self.sample) == one)
        let md = try RawDecoder.metadata(path: Self.sample)
        #expect(!md.warnings.contains { $0.contains("cannot be developed") }, "\(md.warnings)")
    }

    // MARK: - Our own float DNGs

    struct Spec: Sendable, CustomTestStringConvertible {
        var bits = 32, compression = 1, predictor = 1, bigEndian = false
        var width = 52, height = 37, samplesPerPixel = 3
        var tile: Int? = nil
        var rowsPerStrip = 16
        var testDescription: String {
            "\(bits)-bit c\(compression) p\(predictor) \(bigEndian ? "MM" : "II") spp \(samplesPerPixel) \(tile.map { "tiles \($0)" } ?? "strips \(rowsPerStrip)")"
        }
    }

    /// Values exact in half, fp24 and float: k/256 for k < 2048, some above 1 (HDR), one negative.
    static func values(_ s: Spec) -> [Float] {
        (0..<(s.width * s.height * s.samplesPerPixel)).map { (i: Int) -> Float in
            if i == 5 { return -0.5 }
            let k = Float((i &* 40503 >> 3) % 2048)
            let divisor: Float = i % 3 == 0 ? 2048 : 256
            return k / divisor
        }
    }

    /// One sample's bytes, most significant first.
    static func bigEndianBytes(_ v: Float, bits: Int) -> [UInt8] {
        switch bits {
        case 16:
            let b = Float16(v).bitPattern
            return [UInt8(b >> 8), UInt8(b & 255)]
        case 24:
            let b = v.bitPattern
            let sign = UInt8(b >> 31) << 7, exponent = Int((b >> 23) & 0xFF), mantissa = (b & 0x7FFFFF) >> 7
            if exponent == 0 { return [sign, 0, 0] }
            return [sign | UInt8(exponent - 64), UInt8(mantissa >> 8), UInt8(mantissa & 255)]
        default:
            let b = v.bitPattern
            return [UInt8(b >> 24), UInt8((b >> 16) & 255), UInt8((b >> 8) & 255), UInt8(b & 255)]
        }
    }

    /// Block `i`'s stored bytes (tiles padded with zeros), predictor applied, then deflated.
    static func block(_ values: [Float], _ s: Spec, x0: Int, y0: Int, w: Int, rows: Int) -> [UInt8] {
        let spp = s.samplesPerPixel, bytes = s.bits / 8
        var out: [UInt8] = []
        for y in 0..<rows {
            let samples = (0..<(w * spp)).map { k -> [UInt8] in
                let x = x0 + k / spp, yy = y0 + y
                guard x < s.width, yy < s.height else { return [UInt8](repeating: 0, count: bytes) }
                return bigEndianBytes(values[(yy * s.width + x) * spp + k % spp], bits: s.bits)
            }
            let factor = [3: 1, 34894: 2, 34895: 4][s.predictor]
            if let factor {
                // Byte planes, most significant first, then byte differences (TIFF TN3 / DNG 1.4).
                var row = [UInt8](repeating: 0, count: samples.count * bytes)
                for (k, sample) in samples.enumerated() { for b in 0..<bytes { row[b * samples.count + k] = sample[b] } }
                let stride = spp * factor
                for k in Swift.stride(from: row.count - 1, through: stride, by: -1) { row[k] = row[k] &- row[k - stride] }
                out += row
            } else {
                out += samples.flatMap { s.bigEndian ? $0 : $0.reversed() }
            }
        }
        guard s.compression == 8 else { return out }
        var length = compressBound(uLong(out.count))
        var packed = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&packed, &length, out, uLong(out.count), 6)
        precondition(status == Z_OK)
        return Array(packed[0..<Int(length)])
    }

    static func blocks(_ values: [Float], _ s: Spec) -> [[UInt8]] {
        let bw = s.tile ?? s.width, bl = s.tile ?? s.rowsPerStrip
        var out: [[UInt8]] = []
        for by in stride(from: 0, to: s.height, by: bl) {
            for bx in stride(from: 0, to: s.width, by: bw) {
                out.append(block(values, s, x0: bx, y0: by, w: bw, rows: s.tile == nil ? min(bl, s.height - by) : bl))
            }
        }
        return out
    }

    static func dngBytes(_ s: Spec, blocks data: [[UInt8]], whiteLevel: Float? = 1, declaredTile: Int? = nil) -> [UInt8] {
        let spp = s.samplesPerPixel
        let counts = data.map { UInt32($0.count) }
        return TIFFTestBuilder.dngWithBlocks(data, bigEndian: s.bigEndian) { b, offsets in
            var e = b.testCameraEntries(model: "Float Test", dngVersion: [1, 4, 0, 0], width: UInt32(s.width), height: UInt32(s.height),
                                        bits: s.bits, samplesPerPixel: spp, compression: UInt16(s.compression))
            e.append(b.short(TIFFTag.sampleFormat, Array(repeating: 3, count: spp)))
            if let whiteLevel { e.append(b.float(TIFFTag.whiteLevel, Array(repeating: whiteLevel, count: spp))) }
            if s.predictor != 1 { e.append(b.short(317, [UInt16(s.predictor)])) }
            let tile = (declaredTile ?? s.tile).map { (width: $0, length: $0) }
            return e + b.blockEntries(tile: tile, rowsPerStrip: UInt32(s.rowsPerStrip), offsets: offsets, counts: counts)
        }
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = DNGTestSupport.tempPath(name, subdirectory: "float")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let ownCases: [Spec] = [16, 24, 32].flatMap { bits in [
        Spec(bits: bits),
        Spec(bits: bits, bigEndian: true, tile: 16),
        Spec(bits: bits, compression: 8),
        Spec(bits: bits, compression: 8, predictor: 3, tile: 32),
        Spec(bits: bits, compression: 8, predictor: 34894, bigEndian: true, width: 52, samplesPerPixel: 1),
        Spec(bits: bits, compression: 8, predictor: 34895, tile: 16),
    ] }

    /// Every storage decodes to exactly the values written, for every thread count; RawDecoder's
    /// 16-bit mapping keeps v / WhiteLevel within half a code where v ≤ the largest value.
    @Test(arguments: ownCases)
    func ownFiles(_ s: Spec) throws {
        let values = Self.values(s)
        let path = try Self.write(Self.dngBytes(s, blocks: Self.blocks(values, s)), "own-\(abs(s.testDescription.hashValue)).dng")
        defer { unlink(path) }
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        for threads in [1, 2, 4] {
            let decoded = try FloatDNGDecoder.decode(layout, threads: threads, path: path)
            let first = zip(decoded, values).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(decoded.count == values.count && first == nil, "\(s.testDescription): first difference at \(first ?? -1)")
        }
        let image = try RawDecoder.decode(path: path)
        let peak = Double(values.max() ?? 1)
        let white = try #require(image.metadata.whiteLevel.first)
        #expect(abs(white - 65535 / peak) < 1e-6, "white \(white) for peak \(peak)")
        var worst = 0.0
        for (p, v) in zip(image.pixels, values) { worst = max(worst, abs(Double(p) / white - Double(max(v, 0))) * white) }
        #expect(worst <= 0.5 + 1e-3, "\(s.testDescription): worst \(worst) codes")
    }

    /// Floating-point-predictor strips written by libtiff (an independent encoder of TIFF TN3),
    /// wrapped in a DNG, decode to libtiff's input.
    @Test(arguments: [16, 32])
    func libtiffPredictorStrips(_ bits: Int) throws {
        let s = Spec(bits: bits, compression: 8, predictor: 3, width: 61, height: 23, rowsPerStrip: 8)
        let values = Self.values(s)
        let tiffPath = DNGTestSupport.tempPath("libtiff-\(bits).tif", subdirectory: "float")
        defer { unlink(tiffPath) }
        do {
            let tif = try #require(TIFFOpen(tiffPath, "w"))
            func set(_ tag: Int32, _ v: Int) { _ = withVaList([Int32(v)]) { TIFFVSetField(tif, UInt32(tag), $0) } }
            set(TIFFTAG_IMAGEWIDTH, s.width); set(TIFFTAG_IMAGELENGTH, s.height)
            set(TIFFTAG_BITSPERSAMPLE, bits); set(TIFFTAG_SAMPLESPERPIXEL, 3); set(TIFFTAG_SAMPLEFORMAT, 3)
            set(TIFFTAG_PHOTOMETRIC, 2); set(TIFFTAG_PLANARCONFIG, 1); set(TIFFTAG_COMPRESSION, 8)
            set(TIFFTAG_PREDICTOR, 3); set(TIFFTAG_ROWSPERSTRIP, s.rowsPerStrip)
            let rowSamples = s.width * 3
            for y in 0..<s.height {
                let row = Array(values[(y * rowSamples)..<((y + 1) * rowSamples)])
                let ok: Int32
                if bits == 16 {
                    var halves = row.map { Float16($0).bitPattern }
                    ok = halves.withUnsafeMutableBytes { TIFFWriteScanline(tif, $0.baseAddress, UInt32(y), 0) }
                } else {
                    var floats = row
                    ok = floats.withUnsafeMutableBytes { TIFFWriteScanline(tif, $0.baseAddress, UInt32(y), 0) }
                }
                #expect(ok == 1)
            }
            TIFFClose(tif)
        }
        // The compressed strips as libtiff stored them.
        let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: tiffPath)))
        let tif = try #require(TIFFOpen(tiffPath, "r"))
        var strips: [[UInt8]] = []
        for i in 0..<Int(TIFFNumberOfStrips(tif)) {
            var offsets: UnsafeMutablePointer<UInt64>? = nil, counts: UnsafeMutablePointer<UInt64>? = nil
            _ = DNGTestSupport.get(tif, TIFFTAG_STRIPOFFSETS, &offsets); _ = DNGTestSupport.get(tif, TIFFTAG_STRIPBYTECOUNTS, &counts)
            let o = Int(try #require(offsets)[i]), c = Int(try #require(counts)[i])
            strips.append(Array(file[o..<(o + c)]))
        }
        TIFFClose(tif)
        let path = try Self.write(Self.dngBytes(s, blocks: strips), "libtiff-\(bits).dng")
        defer { unlink(path) }
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        let decoded = try FloatDNGDecoder.decode(layout, threads: 2, path: path)
        let first = zip(decoded, values).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(decoded.count == values.count && first == nil, "\(bits)-bit: first difference at \(first ?? -1)")
    }

    /// DNG fp24 against hand-worked values: 1.0, −2.5, the smallest denormal, infinity → the
    /// largest fp24, NaN → 0.
    @Test func fp24Conversion() {
        #expect(FloatDNGDecoder.fp24ToFloat(0x3F, 0x00, 0x00) == 1.0)
        #expect(FloatDNGDecoder.fp24ToFloat(0xC0, 0x40, 0x00) == -2.5)
        #expect(FloatDNGDecoder.fp24ToFloat(0x00, 0x00, 0x01) == Float(sign: .plus, exponent: -62 - 16, significand: 1))
        #expect(FloatDNGDecoder.fp24ToFloat(0x7F, 0x00, 0x00) == Float(sign: .plus, exponent: 63, significand: 1 + Float(0xFFFF) / 65536))
        #expect(FloatDNGDecoder.fp24ToFloat(0x7F, 0x00, 0x01) == 0)
    }

    /// WhiteLevel absent: 1.0 (DNG 1.4), not 2^32 − 1.
    @Test func defaultWhiteLevelIsOne() throws {
        let s = Spec()
        var values = Self.values(s)
        values = values.map { min(max($0, 0), 1) }
        let path = try Self.write(Self.dngBytes(s, blocks: Self.blocks(values, s), whiteLevel: nil), "nowhite.dng")
        defer { unlink(path) }
        let image = try RawDecoder.decode(path: path)
        #expect(image.metadata.whiteLevel.first == 65535)
        #expect(image.pixels[1] == UInt16((values[1] * 65535).rounded()))
    }

    // MARK: - Hostile input

    @Test func hostileFiles() throws {
        let s = Spec(compression: 8, tile: 16)
        let values = Self.values(s)
        var blocks = Self.blocks(values, s)
        // Damaged Deflate data.
        var damaged = blocks
        damaged[2] = Array(damaged[2].prefix(damaged[2].count / 2))
        var path = try Self.write(Self.dngBytes(s, blocks: damaged), "hostile-deflate.dng")
        JXLDecodeTests.expectError(path, "tile 2: Deflate data", "deflate"); unlink(path)
        // Deflate data of the wrong size.
        var short = blocks
        short[1] = Self.block(values, Spec(compression: 8, width: 16, height: 8, tile: nil, rowsPerStrip: 8), x0: 0, y0: 0, w: 16, rows: 8)
        path = try Self.write(Self.dngBytes(s, blocks: short), "hostile-size.dng")
        JXLDecodeTests.expectError(path, "tile 1: Deflate data holds", "inflated size"); unlink(path)
        // A huge declared tile.
        path = try Self.write(Self.dngBytes(s, blocks: [blocks[0]], declaredTile: 1 << 20), "hostile-tile.dng")
        JXLDecodeTests.expectError(path, "larger than", "tile size"); unlink(path)
        // Uncompressed strips running past the end of the file.
        let u = Spec()
        blocks = Self.blocks(Self.values(u), u)
        var bytes = Self.dngBytes(u, blocks: blocks)
        bytes = Array(bytes.prefix(bytes.count - 64))
        path = try Self.write(bytes, "hostile-short.dng")
        JXLDecodeTests.expectError(path, "truncated", "short"); unlink(path)
        // FloatingPointX4 with a width not divisible by 4.
        let x4 = Spec(compression: 8, predictor: 34895, width: 50)
        path = try Self.write(Self.dngBytes(x4, blocks: Self.blocks(Self.values(x4), Spec(compression: 8, width: 50))), "hostile-x4.dng")
        JXLDecodeTests.expectError(path, "divisible by 4", "x4"); unlink(path)
    }
}
