import CZlib

/// Split-patch swatch images of a compare run, as 8-bit RGB PNG: one square per patch in chart
/// layout (6 × 4), its left half the reference colour and its right half the measured colour
/// (both the report's 8-bit sRGB, clipped), on a dark grey ground.
///
/// The PNG (ISO/IEC 15948) is written here: IHDR (8-bit RGB, no interlace), one IDAT holding
/// zlib's `compress2` of the rows (each with filter type 0), IEND; chunk CRCs by zlib's `crc32`.
/// Darkroom's libpng glue only reads (`PNGReader`), which the tests use to read these back.
public enum SwatchPNG {
    /// Patch square side and gap, pixels.
    public static let patchSize = 64
    public static let gap = 8

    /// The swatch image of one stage's patches (6 columns × 4 rows).
    public static func image(_ patches: [CompareReport.Patch], columns: Int = 6) -> (width: Int, height: Int, rgb: [UInt8]) {
        let rows = (patches.count + columns - 1) / columns
        let pitch = patchSize + gap
        let w = columns * pitch + gap, h = rows * pitch + gap
        var rgb = [UInt8](repeating: 0x30, count: w * h * 3)
        for (i, p) in patches.enumerated() {
            let x0 = gap + (i % columns) * pitch, y0 = gap + (i / columns) * pitch
            let left = bytes(hex: p.referenceSRGB), right = bytes(hex: p.measuredSRGB)
            for y in y0..<(y0 + patchSize) {
                for x in x0..<(x0 + patchSize) {
                    let c = x - x0 < patchSize / 2 ? left : right
                    let o = (y * w + x) * 3
                    rgb[o] = c.0; rgb[o + 1] = c.1; rgb[o + 2] = c.2
                }
            }
        }
        return (w, h, rgb)
    }

    /// "rrggbb" → bytes (black for anything else).
    static func bytes(hex: String) -> (UInt8, UInt8, UInt8) {
        guard hex.count == 6, let v = UInt32(hex, radix: 16) else { return (0, 0, 0) }
        return (UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
    }

    /// The PNG bytes of an 8-bit RGB image (`rgb` holds width × height × 3 samples).
    public static func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8]? {
        guard width > 0, height > 0, width < 1 << 24, height < 1 << 24, rgb.count == width * height * 3 else { return nil }
        var raw = [UInt8]()
        raw.reserveCapacity((width * 3 + 1) * height)
        for y in 0..<height {
            raw.append(0)   // filter type None
            raw += rgb[(y * width * 3)..<((y + 1) * width * 3)]
        }
        var length = compressBound(uLong(raw.count))
        var compressed = [UInt8](repeating: 0, count: Int(length))
        let status = compressed.withUnsafeMutableBufferPointer { dst in
            raw.withUnsafeBufferPointer { src in compress2(dst.baseAddress, &length, src.baseAddress, uLong(src.count), 9) }
        }
        guard status == Z_OK else { return nil }
        compressed.removeSubrange(Int(length)...)
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) {
            let body = Array(type.utf8) + data
            let crc = body.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
            out += be32(data.count) + body + be32(Int(crc))
        }
        chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        chunk("IDAT", compressed)
        chunk("IEND", [])
        return out
    }
}
