import CJXL
import DarkroomCore
import DarkroomTestSupport
import Foundation
import Testing
@testable import DarkroomIO

/// JPEG XL DNGs (Compression 52546): the DNG SDK 1.7.1's files in `../shared/samples/dng-jxl`
/// against its stage-1 dumps (`../shared/reference/dngsdk/NAME.stage1.tif`, read by libtiff) and
/// against the DNGs they were made from; our own tiles made with libjxl's encoder (odd sizes,
/// clipped and full edge tiles, strips, 8/16-bit, CFA and LinearRaw, field interleave, every
/// thread count); hostile codestreams and layouts throw one error naming the file.
@Suite struct JXLDecodeTests {
    /// The package (Samples/ lives in it) and the folder beside it that holds shared/.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let root: URL = packageRoot.deletingLastPathComponent()
    static let jxlDirectory = root.appendingPathComponent("shared/samples/dng-jxl").path
    static let referenceDirectory = root.appendingPathComponent("shared/reference/dngsdk").path
    static var sharedPresent: Bool {
        FileManager.default.fileExists(atPath: jxlDirectory) && FileManager.default.fileExists(atPath: referenceDirectory)
    }

    static let sdkFiles = ["chart-grbg-14bit-A_jxl_lossless", "chart-grbg-14bit-A_jxl_lossymosaic", "linearraw_rpi20_jxl_lossless",
                           "rpi_imx296_pidng_image_20_jxl_lossless", "rpi_imx296_pidng_image_20_jxl_lossymosaic"]

    /// The stored image as JXLDNGDecoder decodes it.
    static func stored(_ path: String, threads: Int) throws -> (samples: [UInt16], layout: DNGRawDataLayout) {
        let parsed = try DNGMetadataReader.readForDecoding(contentsOf: path)
        let layout = try #require(parsed.layout)
        guard case .integer(let samples) = try JXLDNGDecoder.decode(layout, threads: threads, path: path) else {
            Issue.record("\(path): expected integer samples"); return ([], layout)
        }
        return (samples, layout)
    }

    // MARK: - The DNG SDK's files

    /// Lossless: exactly the SDK's stage 1; lossy: within 1 code. Every thread count gives the
    /// same samples.
    @Test(.enabled(if: sharedPresent), arguments: sdkFiles)
    func matchesSDKStage1(_ name: String) throws {
        let path = "\(Self.jxlDirectory)/\(name).dng"
        let reference = try #require(DNGTestSupport.libtiffRead("\(Self.referenceDirectory)/\(name).stage1.tif", subIFD: false))
        let (samples, layout) = try Self.stored(path, threads: 2)
        #expect(layout.compression == 52546)
        #expect(reference.width == layout.width && reference.height == layout.height && reference.spp == layout.samplesPerPixel)
        #expect(samples.count == reference.pixels.count)
        let maxDifference = zip(samples, reference.pixels).map { abs(Int($0) - Int($1)) }.max() ?? -1
        if name.contains("lossless") {
            let first = zip(samples, reference.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(first == nil, "\(name): first difference at sample \(first ?? -1)")
        } else {
            #expect(maxDifference <= 1, "\(name): max difference \(maxDifference)")
        }
        for threads in [1, 3] {
            #expect(try Self.stored(path, threads: threads).samples == samples, "\(name): threads \(threads)")
        }
    }

    /// The lossless files decode to the stored values of the DNGs they were made from (active area).
    @Test(.enabled(if: sharedPresent), arguments: [
        ("chart-grbg-14bit-A_jxl_lossless", packageRoot.appendingPathComponent("Samples/chart-grbg-14bit-A.dng").path),
        ("rpi_imx296_pidng_image_20_jxl_lossless", root.appendingPathComponent("shared/samples/dng/rpi_imx296_pidng_image_20.dng").path),
    ])
    func losslessEqualsSource(_ name: String, _ source: String) throws {
        let options = DecodeOptions(applyOpcodeList1: false)
        let jxl = try RawDecoder.decode(path: "\(Self.jxlDirectory)/\(name).dng", options: options)
        let original = try RawDecoder.decode(path: source, options: options)
        #expect(jxl.width == original.width && jxl.height == original.height && jxl.samplesPerPixel == original.samplesPerPixel)
        let first = zip(jxl.pixels, original.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(jxl.pixels.count == original.pixels.count && first == nil, "\(name): first difference at \(first ?? -1)")
        #expect(jxl.metadata.cfa == original.metadata.cfa)
    }


    /// `darkroom`'s whole decode of every SDK file works (metadata, OpcodeList1, crop).
    @Test(.enabled(if: sharedPresent), arguments: sdkFiles)
    func rawDecoderDecodes(_ name: String) throws {
        let path = "\(Self.jxlDirectory)/\(name).dng"
        let image = try RawDecoder.decode(path: path)
        #expect(image.width > 0 && image.pixels.count == image.width * image.height * image.samplesPerPixel)
        #expect(image.metadata.compression == 52546)
        let md = try RawDecoder.metadata(path: path)
        #expect(!md.warnings.contains { $0.contains("cannot be developed") }, "\(md.warnings)")
    }

    // MARK: - Our own JPEG XL tiles (libjxl's encoder)

    /// One JPEG XL codestream of `channels` interleaved samples (`bits` 8 or 16), lossless or at
    /// `distance`.
    static func encode(_ samples: [UInt16], width: Int, height: Int, channels: Int, bits: Int = 16,
                       distance: Float? = nil) throws -> [UInt8] {
        let enc = try #require(JxlEncoderCreate(nil))
        defer { JxlEncoderDestroy(enc) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width); info.ysize = UInt32(height)
        info.bits_per_sample = UInt32(bits); info.exponent_bits_per_sample = 0
        info.num_color_channels = UInt32(channels)
        info.uses_original_profile = distance == nil ? 1 : 0
        #expect(JxlEncoderSetBasicInfo(enc, &info) == JXL_ENC_SUCCESS)
        var colour = JxlColorEncoding()
        JxlColorEncodingSetToLinearSRGB(&colour, channels == 1 ? 1 : 0)
        #expect(JxlEncoderSetColorEncoding(enc, &colour) == JXL_ENC_SUCCESS)
        let settings = JxlEncoderFrameSettingsCreate(enc, nil)
        if let distance {
            #expect(JxlEncoderSetFrameDistance(settings, distance) == JXL_ENC_SUCCESS)
        } else {
            #expect(JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS)
        }
        _ = JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, 1)
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: bits <= 8 ? JXL_TYPE_UINT8 : JXL_TYPE_UINT16,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        let status: JxlEncoderStatus
        if bits <= 8 {
            let bytes = samples.map { UInt8(clamping: $0) }
            status = bytes.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        } else {
            status = samples.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        }
        #expect(status == JXL_ENC_SUCCESS)
        JxlEncoderCloseInput(enc)
        var out = [UInt8](repeating: 0, count: 1 << 16)
        var used = 0
        while true {
            let s: JxlEncoderStatus = out.withUnsafeMutableBufferPointer { buf in
                var next: UnsafeMutablePointer<UInt8>? = buf.baseAddress! + used
                var avail = buf.count - used
                let s = JxlEncoderProcessOutput(enc, &next, &avail)
                used = buf.count - avail
                return s
            }
            if s == JXL_ENC_NEED_MORE_OUTPUT { out += [UInt8](repeating: 0, count: out.count); continue }
            #expect(s == JXL_ENC_SUCCESS)
            break
        }
        return Array(out[0..<used])
    }

    /// A JPEG XL DNG built byte by byte around `tiles`.
    struct Spec: Sendable, CustomTestStringConvertible {
        var width = 150, height = 101, samplesPerPixel = 1, bits = 16
        /// Tile side (nil: strips of `rowsPerStrip`).
        var tile: Int? = 64
        var rowsPerStrip = 40
        /// Edge codestreams clipped to the image (else full tile size, as the DNG SDK writes).
        var clippedEdges = false
        var rowInterleave = 1, columnInterleave = 1
        var testDescription: String {
            "\(width)x\(height) spp \(samplesPerPixel) \(bits)-bit \(tile.map { "tiles \($0)" } ?? "strips \(rowsPerStrip)")\(clippedEdges ? " clipped" : "") interleave \(rowInterleave)x\(columnInterleave)"
        }
    }

    /// Deterministic samples within `bits`.
    static func samples(_ s: Spec) -> [UInt16] {
        let mask = (1 << s.bits) - 1
        return (0..<(s.width * s.height * s.samplesPerPixel)).map { i in UInt16((i &* 2654435761 >> 9 ^ (i / 7)) & mask) }
    }

    /// The image as stored with RowInterleaveFactor/ColumnInterleaveFactor (fields one after another).
    static func interleaved(_ image: [UInt16], _ s: Spec) -> [UInt16] {
        let rows = DNGFieldInterleave.storedIndex(size: s.height, factor: s.rowInterleave)
        let cols = DNGFieldInterleave.storedIndex(size: s.width, factor: s.columnInterleave)
        var out = image
        for y in 0..<s.height { for x in 0..<s.width { for c in 0..<s.samplesPerPixel {
            out[(rows[y] * s.width + cols[x]) * s.samplesPerPixel + c] = image[(y * s.width + x) * s.samplesPerPixel + c]
        } } }
        return out
    }

    /// Codestreams of every block of the stored image; edge blocks padded by repeating the last
    /// pixel (or clipped).
    static func blocks(_ stored: [UInt16], _ s: Spec) throws -> [[UInt8]] {
        let bw = s.tile ?? s.width, bl = s.tile ?? s.rowsPerStrip, spp = s.samplesPerPixel
        var out: [[UInt8]] = []
        for by in stride(from: 0, to: s.height, by: bl) {
            for bx in stride(from: 0, to: s.width, by: bw) {
                let clip = s.clippedEdges || s.tile == nil
                let w = clip ? min(bw, s.width - bx) : bw, h = s.tile == nil || s.clippedEdges ? min(bl, s.height - by) : bl
                var block = [UInt16](repeating: 0, count: w * h * spp)
                for y in 0..<h { for x in 0..<w { for c in 0..<spp {
                    let sy = min(by + y, s.height - 1), sx = min(bx + x, s.width - 1)
                    block[(y * w + x) * spp + c] = stored[(sy * s.width + sx) * spp + c]
                } } }
                out.append(try encode(block, width: w, height: h, channels: spp, bits: s.bits))
            }
        }
        return out
    }

    static func dngBytes(_ s: Spec, blocks data: [[UInt8]], declaredTile: Int? = nil) -> [UInt8] {
        let spp = s.samplesPerPixel
        let counts = data.map { UInt32($0.count) }
        return TIFFTestBuilder.dngWithBlocks(data) { b, offsets in
            var e = b.testCameraEntries(model: "JXL Test", dngVersion: [1, 7, 0, 0], width: UInt32(s.width), height: UInt32(s.height),
                                        bits: s.bits, samplesPerPixel: spp, compression: 52546)
            e.append(b.long(TIFFTag.whiteLevel, Array(repeating: UInt32((1 << s.bits) - 1), count: spp)))
            if s.bits == 32 { e.append(b.short(TIFFTag.sampleFormat, Array(repeating: 3, count: spp))) }
            if s.rowInterleave != 1 { e.append(b.short(50975, [UInt16(s.rowInterleave)])) }
            if s.columnInterleave != 1 { e.append(b.short(52547, [UInt16(s.columnInterleave)])) }
            let tile = (declaredTile ?? s.tile).map { (width: $0, length: $0) }
            return e + b.blockEntries(tile: tile, rowsPerStrip: UInt32(s.rowsPerStrip), offsets: offsets, counts: counts)
        }
    }

    static func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = DNGTestSupport.tempPath(name, subdirectory: "jxl")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static let ownCases: [Spec] = [
        Spec(),
        Spec(clippedEdges: true),
        Spec(width: 64, height: 64, tile: 64),
        Spec(tile: nil),
        Spec(tile: nil, rowsPerStrip: 200),
        Spec(bits: 8),
        Spec(width: 75, height: 49, samplesPerPixel: 3, tile: 32),
        Spec(width: 151, height: 103, rowInterleave: 2, columnInterleave: 2),
        Spec(width: 150, height: 101, tile: 48, rowInterleave: 3, columnInterleave: 1),
    ]

    /// Lossless tiles decode to exactly the image they were made from, for every thread count,
    /// through JXLDNGDecoder and through RawDecoder.
    @Test(arguments: ownCases)
    func ownLosslessTiles(_ s: Spec) throws {
        let image = Self.samples(s)
        let stored = Self.interleaved(image, s)
        let path = try Self.write(Self.dngBytes(s, blocks: Self.blocks(stored, s)), "own-\(s.testDescription.hashValue).dng")
        defer { unlink(path) }
        for threads in [1, 2, 5] {
            let (decoded, _) = try Self.stored(path, threads: threads)
            let first = zip(decoded, image).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            #expect(decoded.count == image.count && first == nil, "\(s.testDescription) threads \(threads): first difference at \(first ?? -1)")
        }
        let raw = try RawDecoder.decode(path: path)
        #expect(raw.pixels == image && raw.width == s.width && raw.height == s.height)
    }

    /// One lossless float32 JPEG XL codestream.
    static func encodeFloat(_ samples: [Float], width: Int, height: Int, channels: Int) throws -> [UInt8] {
        let enc = try #require(JxlEncoderCreate(nil))
        defer { JxlEncoderDestroy(enc) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width); info.ysize = UInt32(height)
        info.bits_per_sample = 32; info.exponent_bits_per_sample = 8
        info.num_color_channels = UInt32(channels); info.uses_original_profile = 1
        #expect(JxlEncoderSetBasicInfo(enc, &info) == JXL_ENC_SUCCESS)
        var colour = JxlColorEncoding()
        JxlColorEncodingSetToLinearSRGB(&colour, channels == 1 ? 1 : 0)
        #expect(JxlEncoderSetColorEncoding(enc, &colour) == JXL_ENC_SUCCESS)
        let settings = JxlEncoderFrameSettingsCreate(enc, nil)
        #expect(JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS)
        var format = JxlPixelFormat(num_channels: UInt32(channels), data_type: JXL_TYPE_FLOAT, endianness: JXL_NATIVE_ENDIAN, align: 0)
        #expect(samples.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) } == JXL_ENC_SUCCESS)
        JxlEncoderCloseInput(enc)
        var out = [UInt8](repeating: 0, count: 1 << 20)
        var next: UnsafeMutablePointer<UInt8>? = nil, avail = out.count
        let status = out.withUnsafeMutableBufferPointer { buf in
            next = buf.baseAddress; return JxlEncoderProcessOutput(enc, &next, &avail)
        }
        #expect(status == JXL_ENC_SUCCESS)
        return Array(out[0..<(out.count - avail)])
    }

    /// Float JPEG XL tiles (SampleFormat 3) decode to the floats encoded, and RawDecoder maps
    /// them to 16 bits as for any float DNG (v · 65535 / max(WhiteLevel, largest value)).
    @Test func floatTiles() throws {
        let s = Spec(width: 40, height: 30, samplesPerPixel: 3, bits: 32, tile: 32)
        let values = (0..<(s.width * s.height * 3)).map { Float(($0 &* 7919) % 4096) / 2048 }   // 0 ..< 2: HDR above 1
        var blocks: [[UInt8]] = []
        for by in stride(from: 0, to: s.height, by: 32) {
            for bx in stride(from: 0, to: s.width, by: 32) {
                var tile = [Float](repeating: 0, count: 32 * 32 * 3)
                for y in 0..<32 { for x in 0..<32 { for c in 0..<3 {
                    tile[(y * 32 + x) * 3 + c] = values[(min(by + y, s.height - 1) * s.width + min(bx + x, s.width - 1)) * 3 + c]
                } } }
                blocks.append(try Self.encodeFloat(tile, width: 32, height: 32, channels: 3))
            }
        }
        let path = try Self.write(Self.dngBytes(s, blocks: blocks), "float-jxl.dng")
        defer { unlink(path) }
        let layout = try #require(try DNGMetadataReader.readForDecoding(contentsOf: path).layout)
        guard case .float(let decoded) = try JXLDNGDecoder.decode(layout, threads: 2, path: path) else {
            Issue.record("expected float samples"); return
        }
        #expect(decoded == values)
        let image = try RawDecoder.decode(path: path)
        let peak = Double(values.max() ?? 1)
        #expect(image.metadata.whiteLevel.first.map { abs($0 - 65535 / peak) < 1e-6 } == true)
        #expect(zip(image.pixels, values).allSatisfy { abs(Double($0) - Double($1) * 65535 / peak) <= 0.5 + 1e-6 })
    }

    // MARK: - Hostile input

    static func expectError(_ path: String, _ fragment: String, _ label: String) {
        do {
            _ = try RawDecoder.decode(path: path)
            Issue.record("\(label): decoded")
        } catch {
            #expect(error.description.contains((path as NSString).lastPathComponent), "\(label): \(error.description)")
            #expect(error.description.contains(fragment), "\(label): \(error.description)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func hostileCodestreams() throws {
        let s = Spec(width: 64, height: 64, tile: 32)
        let image = Self.samples(s)
        var blocks = try Self.blocks(image, s)
        // A codestream of other dimensions than its tile.
        var wrong = blocks
        wrong[1] = try Self.encode(Array(image[0..<(16 * 32)]), width: 16, height: 32, channels: 1)
        var path = try Self.write(Self.dngBytes(s, blocks: wrong), "hostile-size.dng")
        Self.expectError(path, "tile 1: codestream is 16x32", "size"); unlink(path)
        // Truncated and garbage codestreams.
        var cut = blocks
        cut[2] = Array(cut[2].prefix(cut[2].count / 2))
        path = try Self.write(Self.dngBytes(s, blocks: cut), "hostile-truncated.dng")
        Self.expectError(path, "tile 2: libjxl", "truncated"); unlink(path)
        var garbage = blocks
        garbage[3] = [UInt8](repeating: 0x5A, count: 300)
        path = try Self.write(Self.dngBytes(s, blocks: garbage), "hostile-garbage.dng")
        Self.expectError(path, "tile 3: libjxl", "garbage"); unlink(path)
        // An 8-bit codestream in a 16-bit DNG.
        var eight = blocks
        eight[0] = try Self.encode(Array(image[0..<(32 * 32)]).map { $0 & 255 }, width: 32, height: 32, channels: 1, bits: 8)
        path = try Self.write(Self.dngBytes(s, blocks: eight), "hostile-bits.dng")
        Self.expectError(path, "8-bit integer samples", "bits"); unlink(path)
        // Three colour channels in a CFA DNG.
        var rgb = blocks
        rgb[0] = try Self.encode(Array(image[0..<(32 * 32 * 3 / 4)]) + Array(image[0..<(32 * 32 * 9 / 4)]), width: 32, height: 32, channels: 3)
        path = try Self.write(Self.dngBytes(s, blocks: rgb), "hostile-channels.dng")
        Self.expectError(path, "3 colour channels", "channels"); unlink(path)
        // A tile far larger than the image.
        blocks = [try Self.encode([UInt16](repeating: 7, count: 64 * 64), width: 64, height: 64, channels: 1)]
        path = try Self.write(Self.dngBytes(s, blocks: blocks, declaredTile: 1 << 20), "hostile-tile.dng")
        Self.expectError(path, "larger than", "tile size"); unlink(path)
        // Offsets beyond the file.
        var bytes = Self.dngBytes(s, blocks: try Self.blocks(image, s))
        bytes = Array(bytes.prefix(bytes.count - 100))
        path = try Self.write(bytes, "hostile-short.dng")
        Self.expectError(path, "truncated", "short"); unlink(path)
    }
}
