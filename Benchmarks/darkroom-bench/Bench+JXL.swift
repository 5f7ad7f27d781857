import CJXL
import DarkroomCore
import DarkroomIO
import Dispatch
import Foundation

/// The 24 MP scene as a JPEG XL DNG (Compression 52546, DNG 1.7): its mosaic encoded by libjxl's
/// encoder as lossless 16-bit greyscale tiles of 256² (effort 3, for a quick bench; the DNG SDK
/// writes effort 7), written as a minimal little-endian DNG; `RawDecoder.decode` timed with all
/// cores, 1 and 2 threads, its pixels checked against the scene's.
extension Bench {
    static let jxlTileSize = 256

    mutating func jxlDecode(scene: BenchScene) throws {
        let file = scene.name + "-jxl"
        let source = scene.makeRawImage()
        let path = URL(fileURLWithPath: dir).appendingPathComponent(file + ".dng").path
        let (t, bytes) = try measure(runs: 1) { try Self.writeJXLDNG(source, to: path) }
        log(String(format: "wrote %@.dng (%.1f MP, JPEG XL lossless, %.1f MB) in %.2f s", file, scene.megapixels, Double(bytes) / 1e6, t.best))
        let mp = scene.megapixels
        let (decode, raw) = try measure(runs: runs) { try RawDecoder.decode(path: path) }
        report.identical["\(file) RawDecoder.decode pixels = scene"] = raw.pixels == source.pixels
        add("stage", file, "RawDecoder.decode (JPEG XL, libjxl)", decode, megapixels: mp,
            note: String(format: "%.1f MB file, lossless, %d² tiles", Double(bytes) / 1e6, Self.jxlTileSize))
        var pixels: [Int: [UInt16]] = [:]
        for threads in [1, 2] {
            let (tm, r) = try measure(runs: runs) { try RawDecoder.decode(path: path, options: DecodeOptions(threads: threads)) }
            pixels[threads] = r.pixels
            add("stage", file, "RawDecoder.decode (JPEG XL, libjxl)", threads: threads, tm, megapixels: mp)
        }
        report.identical["\(file) RawDecoder.decode pixels 1T = 2T"] = pixels[1] == pixels[2]
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `image` (a CFA mosaic with SyntheticChart metadata) as a tiled JPEG XL DNG; returns
    /// the file size.
    static func writeJXLDNG(_ image: RawImage, to path: String) throws -> Int {
        let t = jxlTileSize, w = image.width, h = image.height
        let across = (w + t - 1) / t, down = (h + t - 1) / t
        var tiles = [[UInt8]](repeating: [], count: across * down)
        tiles.withUnsafeMutableBufferPointer { out in
            let slots = TileSlots(p: out.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: across * down) { i in
                let x0 = i % across * t, y0 = i / across * t
                var block = [UInt16](repeating: 0, count: t * t)
                for y in 0..<t { for x in 0..<t {
                    block[y * t + x] = image.pixels[min(y0 + y, h - 1) * w + min(x0 + x, w - 1)]
                } }
                slots.p[i] = encodeLosslessJXL(block, width: t, height: t) ?? []
            }
        }
        if tiles.contains(where: { $0.isEmpty }) { throw BenchFailure("libjxl could not encode a tile") }
        let md = image.metadata
        var ifd = LittleEndianIFD()
        ifd.long(254, [0]); ifd.long(256, [UInt32(w)]); ifd.long(257, [UInt32(h)])
        ifd.short(258, [16]); ifd.short(259, [52546]); ifd.short(262, [32803]); ifd.short(277, [1]); ifd.short(284, [1])
        ifd.short(322, [UInt16(t)]); ifd.short(323, [UInt16(t)])
        ifd.ascii(271, "Darkroom"); ifd.ascii(272, "Synthetic Bench Scene")
        ifd.short(33421, [2, 2])
        let cfa = md.cfa ?? .rggb
        ifd.byte(33422, [cfa.color(x: 0, y: 0), cfa.color(x: 1, y: 0), cfa.color(x: 0, y: 1), cfa.color(x: 1, y: 1)].map { $0.rawValue })
        ifd.byte(50706, [1, 7, 0, 0]); ifd.ascii(50708, "Darkroom Synthetic Bench Scene")
        ifd.short(50713, [UInt16(md.blackLevelRepeatRows), UInt16(md.blackLevelRepeatColumns)])
        ifd.long(50714, md.blackLevel.map { UInt32($0.rounded()) })
        ifd.long(50717, md.whiteLevel.map { UInt32($0.rounded()) })
        let cm = md.profile?.colorMatrix1?.m ?? [1, 0, 0, 0, 1, 0, 0, 0, 1]
        ifd.srational(50721, cm.map { Int32(($0 * 10000).rounded()) })
        ifd.short(50778, [UInt16(md.profile?.calibrationIlluminant1 ?? 21)])
        // Tile data follows the IFD; offsets known once the IFD's size is.
        ifd.long(324, [UInt32](repeating: 0, count: tiles.count)); ifd.long(325, tiles.map { UInt32($0.count) })
        let ifdSize = ifd.serialize(at: 8, tileOffsets: []).count
        var at = 8 + ifdSize
        var offsets: [UInt32] = []
        for tile in tiles { offsets.append(UInt32(at)); at += tile.count }
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        out += ifd.serialize(at: 8, tileOffsets: offsets)
        for tile in tiles { out += tile }
        try Data(out).write(to: URL(fileURLWithPath: path))
        return out.count
    }

    private struct TileSlots: @unchecked Sendable { let p: UnsafeMutablePointer<[UInt8]> }

    /// One lossless 16-bit greyscale JPEG XL codestream (nil if libjxl refuses).
    static func encodeLosslessJXL(_ samples: [UInt16], width: Int, height: Int) -> [UInt8]? {
        guard let enc = JxlEncoderCreate(nil) else { return nil }
        defer { JxlEncoderDestroy(enc) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width); info.ysize = UInt32(height)
        info.bits_per_sample = 16; info.num_color_channels = 1; info.uses_original_profile = 1
        guard JxlEncoderSetBasicInfo(enc, &info) == JXL_ENC_SUCCESS else { return nil }
        var colour = JxlColorEncoding()
        JxlColorEncodingSetToLinearSRGB(&colour, 1)
        guard JxlEncoderSetColorEncoding(enc, &colour) == JXL_ENC_SUCCESS else { return nil }
        let settings = JxlEncoderFrameSettingsCreate(enc, nil)
        guard JxlEncoderSetFrameLossless(settings, 1) == JXL_ENC_SUCCESS,
              JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, 3) == JXL_ENC_SUCCESS else { return nil }
        var format = JxlPixelFormat(num_channels: 1, data_type: JXL_TYPE_UINT16, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added = samples.withUnsafeBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        guard added == JXL_ENC_SUCCESS else { return nil }
        JxlEncoderCloseInput(enc)
        var out = [UInt8](repeating: 0, count: 1 << 17)
        var used = 0
        while true {
            let status: JxlEncoderStatus = out.withUnsafeMutableBufferPointer { buf in
                var next: UnsafeMutablePointer<UInt8>? = buf.baseAddress! + used
                var avail = buf.count - used
                let s = JxlEncoderProcessOutput(enc, &next, &avail)
                used = buf.count - avail
                return s
            }
            if status == JXL_ENC_NEED_MORE_OUTPUT { out += [UInt8](repeating: 0, count: out.count); continue }
            return status == JXL_ENC_SUCCESS ? Array(out[0..<used]) : nil
        }
    }
}

/// A little-endian TIFF IFD for the bench's JPEG XL DNG: entries sorted by tag, values longer
/// than 4 bytes after the entries.
private struct LittleEndianIFD {
    private var entries: [(tag: UInt16, type: UInt16, count: Int, data: [UInt8])] = []

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 255), UInt8(v >> 8)] }
    private static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 255), UInt8((v >> 8) & 255), UInt8((v >> 16) & 255), UInt8(v >> 24)] }

    mutating func short(_ tag: UInt16, _ v: [UInt16]) { entries.append((tag, 3, v.count, v.flatMap(Self.le16))) }
    mutating func long(_ tag: UInt16, _ v: [UInt32]) { entries.append((tag, 4, v.count, v.flatMap(Self.le32))) }
    mutating func byte(_ tag: UInt16, _ v: [UInt8]) { entries.append((tag, 1, v.count, v)) }
    mutating func ascii(_ tag: UInt16, _ s: String) { let b = Array(s.utf8) + [0]; entries.append((tag, 2, b.count, b)) }
    mutating func srational(_ tag: UInt16, _ v: [Int32]) {
        entries.append((tag, 10, v.count, v.flatMap { Self.le32(UInt32(bitPattern: $0)) + Self.le32(10000) }))
    }

    /// The IFD's bytes at file offset `offset`, TileOffsets (324) replaced by `tileOffsets` when given.
    func serialize(at offset: Int, tileOffsets: [UInt32]) -> [UInt8] {
        let sorted = entries.sorted { $0.tag < $1.tag }
        var head = Self.le16(UInt16(sorted.count)), values: [UInt8] = []
        let valuesAt = offset + 2 + 12 * sorted.count + 4
        for e in sorted {
            let data = e.tag == 324 && !tileOffsets.isEmpty ? tileOffsets.flatMap(Self.le32) : e.data
            head += Self.le16(e.tag) + Self.le16(e.type) + Self.le32(UInt32(e.count))
            if data.count <= 4 {
                head += data + [UInt8](repeating: 0, count: 4 - data.count)
            } else {
                head += Self.le32(UInt32(valuesAt + values.count))
                values += data
                if values.count % 2 == 1 { values.append(0) }
            }
        }
        return head + Self.le32(0) + values
    }
}
