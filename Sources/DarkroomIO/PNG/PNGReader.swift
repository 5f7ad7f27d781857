import CPNG
import Foundation

/// Reads PNGs (ISO/IEC 15948 / W3C PNG 2nd edition) with libpng 1.6: libpng walks the chunks,
/// checks every CRC (a bad one is fatal, ancillary chunks included), inflates, unfilters and
/// de-interlaces (Adam7); this type only lays the samples out.
///
/// Colour types: greyscale (1, 2, 4, 8, 16 bits), RGB (8, 16), palette (1, 2, 4, 8 bits; expanded
/// to RGB, or RGBA when `tRNS` gives palette alpha), grey + alpha (8, 16) and RGBA (8, 16).
/// Sub-byte grey is scaled to 8 bits (`v · 255 / (2^depth − 1)`); 16-bit samples are kept in
/// `PNGImage.samples16` and rounded to 8 bits in `pixels`. Grey/RGB `tRNS` colour keys and gamma
/// or colour chunks are ignored (no libpng transformation is asked for).
public enum PNGReader {
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Refuse images whose decoded size (width × height × 8 bytes: up to four 16-bit samples)
    /// would exceed this, before any pixel memory is allocated (guards against hostile IHDRs).
    public static let maximumDecodedBytes = 1 << 30

    /// Reads the PNG file at `path`; errors name the file.
    public static func read(contentsOf path: String) throws(PNGError) -> PNGImage {
        let bytes: [UInt8]
        do { bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            throw .unreadable(file: path, reason: "\(error.localizedDescription)")
        }
        do { return try read(bytes) } catch { throw error.naming(path) }
    }

    /// Decodes PNG bytes.
    public static func read(_ bytes: [UInt8]) throws(PNGError) -> PNGImage {
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { throw .notPNG(file: nil) }
        var r = dr_png_result()
        let status = bytes.withUnsafeBufferPointer { buf in
            dr_png_decode(buf.baseAddress, buf.count, maximumDecodedBytes, &r)
        }
        defer { dr_png_free(&r) }
        switch Int(status) {
        case Int(DR_PNG_OK):
            break
        case Int(DR_PNG_TRUNCATED):
            throw .truncated(file: nil, at: r.at, needed: r.needed)
        case Int(DR_PNG_TOO_LARGE):
            throw .unsupported(file: nil, reason: "image \(r.width)x\(r.height) too large")
        case Int(DR_PNG_NO_MEMORY):
            throw .unsupported(file: nil, reason: "out of memory")
        default:
            throw libpngError(text(&r.message), warning: text(&r.warning))
        }
        guard let pixels = r.pixels else { throw .invalid(file: nil, reason: "libpng returned no pixels") }
        let width = Int(r.width), height = Int(r.height), channels = Int(r.channels), depth = Int(r.bit_depth)
        let rows = [UInt8](UnsafeBufferPointer(start: pixels, count: r.row_bytes * height))
        let palette = withUnsafeBytes(of: r.palette) { Array($0.prefix(3 * Int(r.palette_entries))) }
        let paletteAlpha = withUnsafeBytes(of: r.palette_alpha) { Array($0.prefix(Int(r.palette_alpha_entries))) }
        return try expand(rows, width: width, height: height, channels: channels, depth: depth,
                          colorType: UInt8(truncatingIfNeeded: r.color_type), rowBytes: r.row_bytes,
                          palette: palette, paletteAlpha: paletteAlpha)
    }

    /// A NUL-terminated C char array as a String.
    private static func text<T>(_ chars: inout T) -> String {
        withUnsafeBytes(of: &chars) { raw in String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }

    /// libpng's message as our error: "XXXX: CRC error" names the chunk; for "Invalid IHDR data"
    /// the reason libpng warned just before is added in brackets.
    static func libpngError(_ message: String, warning: String) -> PNGError {
        if message.hasSuffix(": CRC error"), let colon = message.firstIndex(of: ":") {
            return .badCRC(file: nil, chunk: String(message[..<colon]))
        }
        return .invalid(file: nil, reason: message != "Invalid IHDR data" || warning.isEmpty ? message : "\(message) (\(warning))")
    }

    /// Unpacked rows (one byte per sample below 8 bits, big-endian 16-bit samples) → 8-bit (and
    /// 16-bit) samples; palette indices → RGB(A).
    private static func expand(_ rows: [UInt8], width: Int, height: Int, channels: Int, depth: Int, colorType: UInt8,
                               rowBytes: Int, palette: [UInt8], paletteAlpha: [UInt8]) throws(PNGError) -> PNGImage {
        let n = width * height * channels
        switch depth {
        case 16:
            var s16 = [UInt16](repeating: 0, count: n)
            var s8 = [UInt8](repeating: 0, count: n)
            let perRow = width * channels
            for y in 0..<height {
                for i in 0..<perRow {
                    let b = y * rowBytes + 2 * i
                    let v = UInt16(rows[b]) << 8 | UInt16(rows[b + 1])
                    s16[y * perRow + i] = v
                    s8[y * perRow + i] = UInt8((UInt32(v) * 255 + 32767) / 65535)
                }
            }
            return PNGImage(width: width, height: height, channels: channels, pixels: s8, samples16: s16)
        default:
            // One byte per sample (libpng unpacked 1/2/4-bit samples without scaling them).
            var values = [UInt8](repeating: 0, count: n)
            let perRow = width * channels
            for y in 0..<height {
                for i in 0..<perRow { values[y * perRow + i] = rows[y * rowBytes + i] }
            }
            if colorType != 3 {
                guard depth < 8 else { return PNGImage(width: width, height: height, channels: channels, pixels: values) }
                let maxValue = (1 << depth) - 1
                return PNGImage(width: width, height: height, channels: 1,
                                pixels: values.map { UInt8(Int($0) * 255 / maxValue) })
            }
            guard !palette.isEmpty else { throw .missingChunk(file: nil, chunk: "PLTE") }
            let entries = palette.count / 3
            let outChannels = paletteAlpha.isEmpty ? 3 : 4
            var out = [UInt8](repeating: 0, count: width * height * outChannels)
            for (i, index) in values.enumerated() {
                let e = Int(index)
                guard e < entries else {
                    throw .invalid(file: nil, reason: "palette index \(e) outside the \(entries)-entry PLTE")
                }
                out[i * outChannels] = palette[3 * e]
                out[i * outChannels + 1] = palette[3 * e + 1]
                out[i * outChannels + 2] = palette[3 * e + 2]
                if outChannels == 4 { out[i * outChannels + 3] = e < paletteAlpha.count ? paletteAlpha[e] : 255 }
            }
            return PNGImage(width: width, height: height, channels: outChannels, pixels: out)
        }
    }
}
