import CZlib
import Foundation

/// Reads non-interlaced PNGs (ISO/IEC 15948 / W3C PNG 2nd edition): chunk walk with CRC checks,
/// IDAT concatenation, zlib inflate, and the five row filters (None, Sub, Up, Average, Paeth).
///
/// Colour types: greyscale (1, 2, 4, 8, 16 bits), RGB (8, 16), palette (1, 2, 4, 8 bits; expanded
/// to RGB, or RGBA when `tRNS` gives palette alpha), grey + alpha (8, 16) and RGBA (8, 16).
/// Sub-byte grey is scaled to 8 bits (`v · 255 / (2^depth − 1)`); 16-bit samples are kept in
/// `PNGImage.samples16` and rounded to 8 bits in `pixels`. Grey/RGB `tRNS` colour keys and gamma
/// or colour chunks are ignored. Adam7 interlacing throws `PNGError.unsupported`.
public enum PNGReader {
    private static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// Refuse images whose decoded size would exceed this (guards against hostile IHDRs).
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
        var pos = 8
        var header: (width: Int, height: Int, channels: Int, depth: Int, colorType: UInt8)?
        var palette: [UInt8] = []
        var paletteAlpha: [UInt8] = []
        var compressed: [UInt8] = []
        var sawEnd = false
        while pos < bytes.count && !sawEnd {
            guard bytes.count - pos >= 12 else { throw .truncated(file: nil, at: pos, needed: 12 - (bytes.count - pos)) }
            let length = Int(be32(bytes, pos))
            let typeBytes = Array(bytes[(pos + 4)..<(pos + 8)])
            let type = String(decoding: typeBytes, as: UTF8.self)
            guard length <= Int(Int32.max), bytes.count - pos - 12 >= length else {
                throw .truncated(file: nil, at: pos, needed: length + 12 - (bytes.count - pos))
            }
            let dataStart = pos + 8
            let storedCRC = be32(bytes, dataStart + length)
            let actualCRC = bytes.withUnsafeBufferPointer { buf -> UInt32 in
                guard let base = buf.baseAddress else { return 0 }
                return UInt32(truncatingIfNeeded: crc32(0, base + pos + 4, UInt32(length + 4)))
            }
            guard storedCRC == actualCRC else { throw .badCRC(file: nil, chunk: type, at: pos) }
            switch type {
            case "IHDR":
                guard length == 13 else { throw .invalid(file: nil, reason: "IHDR length \(length), expected 13") }
                let w = Int(be32(bytes, dataStart)), h = Int(be32(bytes, dataStart + 4))
                let depth = bytes[dataStart + 8], colorType = bytes[dataStart + 9]
                let compression = bytes[dataStart + 10], filter = bytes[dataStart + 11], interlace = bytes[dataStart + 12]
                guard w > 0, h > 0, w <= Int(Int32.max), h <= Int(Int32.max) else {
                    throw .invalid(file: nil, reason: "image size \(w)x\(h)")
                }
                let channels: Int
                let allowed: [UInt8]
                switch colorType {
                case 0: channels = 1; allowed = [1, 2, 4, 8, 16]
                case 2: channels = 3; allowed = [8, 16]
                case 3: channels = 1; allowed = [1, 2, 4, 8]
                case 4: channels = 2; allowed = [8, 16]
                case 6: channels = 4; allowed = [8, 16]
                default: throw .invalid(file: nil, reason: "colour type \(colorType)")
                }
                guard allowed.contains(depth) else {
                    throw .invalid(file: nil, reason: "bit depth \(depth) with colour type \(colorType)")
                }
                guard compression == 0, filter == 0 else {
                    throw .invalid(file: nil, reason: "compression \(compression) / filter method \(filter)")
                }
                guard interlace == 0 else { throw .unsupported(file: nil, reason: "Adam7 interlacing") }
                // Decoded size: up to 4 channels of 16 bits (palette expands to RGBA).
                guard w <= maximumDecodedBytes / 8, h <= maximumDecodedBytes / (w * 8) else {
                    throw .unsupported(file: nil, reason: "image \(w)x\(h) too large")
                }
                header = (w, h, channels, Int(depth), colorType)
            case "PLTE":
                guard length % 3 == 0, length >= 3, length <= 768 else {
                    throw .invalid(file: nil, reason: "PLTE length \(length)")
                }
                palette = Array(bytes[dataStart..<(dataStart + length)])
            case "tRNS":
                if header?.colorType == 3 { paletteAlpha = Array(bytes[dataStart..<(dataStart + length)]) }
            case "IDAT":
                guard header != nil else { throw .invalid(file: nil, reason: "IDAT before IHDR") }
                compressed.append(contentsOf: bytes[dataStart..<(dataStart + length)])
            case "IEND":
                sawEnd = true
            default:
                // Critical chunks we do not know (e.g. PLTE for colour type 3 never gets here) are errors.
                if typeBytes[0] & 0x20 == 0 {
                    throw .unsupported(file: nil, reason: "critical chunk \(type)")
                }
            }
            pos = dataStart + length + 4
        }
        guard let (width, height, channels, depth, colorType) = header else { throw .missingChunk(file: nil, chunk: "IHDR") }
        guard !compressed.isEmpty else { throw .missingChunk(file: nil, chunk: "IDAT") }
        if colorType == 3 && palette.isEmpty { throw .missingChunk(file: nil, chunk: "PLTE") }
        let rowBytes = (width * channels * depth + 7) / 8
        let bpp = max(1, channels * depth / 8)
        let filtered = try inflate(compressed, expected: height * (rowBytes + 1))
        let rows = try unfilter(filtered, rowBytes: rowBytes, height: height, bpp: bpp)
        return try expand(rows, width: width, height: height, channels: channels, depth: depth,
                          colorType: colorType, rowBytes: rowBytes, palette: palette, paletteAlpha: paletteAlpha)
    }

    /// Unpacked rows → 8-bit (and 16-bit) samples; palette indices → RGB(A).
    private static func expand(_ rows: [UInt8], width: Int, height: Int, channels: Int, depth: Int, colorType: UInt8,
                               rowBytes: Int, palette: [UInt8], paletteAlpha: [UInt8]) throws(PNGError) -> PNGImage {
        switch depth {
        case 8 where colorType != 3:
            return PNGImage(width: width, height: height, channels: channels, pixels: rows)
        case 16:
            let n = width * height * channels
            var s16 = [UInt16](repeating: 0, count: n)
            var s8 = [UInt8](repeating: 0, count: n)
            for i in 0..<n {
                let v = UInt16(rows[2 * i]) << 8 | UInt16(rows[2 * i + 1])
                s16[i] = v
                s8[i] = UInt8((UInt32(v) * 255 + 32767) / 65535)
            }
            return PNGImage(width: width, height: height, channels: channels, pixels: s8, samples16: s16)
        default:
            // 1/2/4/8-bit single-sample pixels: grey or palette indices, packed MSB first.
            let maxValue = (1 << depth) - 1
            var values = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    let bit = x * depth
                    let byte = rows[y * rowBytes + bit / 8]
                    values[y * width + x] = UInt8((Int(byte) >> (8 - depth - bit % 8)) & maxValue)
                }
            }
            if colorType == 0 {
                return PNGImage(width: width, height: height, channels: 1,
                                pixels: values.map { UInt8(Int($0) * 255 / maxValue) })
            }
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

    @inline(__always)
    private static func be32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    /// zlib `uncompress` into a buffer of exactly the size IHDR implies.
    private static func inflate(_ data: [UInt8], expected: Int) throws(PNGError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: expected)
        var outLength = uLongf(expected)
        let code = out.withUnsafeMutableBufferPointer { o in
            data.withUnsafeBufferPointer { i in
                uncompress(o.baseAddress, &outLength, i.baseAddress, uLong(data.count))
            }
        }
        guard code == Z_OK else { throw .inflateFailed(file: nil, zlibCode: code) }
        guard Int(outLength) == expected else {
            throw .invalid(file: nil, reason: "image data inflates to \(outLength) bytes, expected \(expected)")
        }
        return out
    }

    /// Undoes the per-row filters (PNG spec §9): each row starts with its filter type byte.
    /// `bpp` is the filter unit: bytes per complete pixel, at least 1.
    private static func unfilter(_ data: [UInt8], rowBytes: Int, height: Int, bpp: Int) throws(PNGError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rowBytes * height)
        var badFilter: (row: Int, type: UInt8)?
        out.withUnsafeMutableBufferPointer { o in
            data.withUnsafeBufferPointer { d in
                guard let op = o.baseAddress, let dp = d.baseAddress else { return }
                for y in 0..<height {
                    let type = dp[y * (rowBytes + 1)]
                    let src = dp + y * (rowBytes + 1) + 1
                    let dst = op + y * rowBytes
                    let up: UnsafeMutablePointer<UInt8>? = y > 0 ? op + (y - 1) * rowBytes : nil
                    switch type {
                    case 0:
                        for i in 0..<rowBytes { dst[i] = src[i] }
                    case 1:
                        for i in 0..<rowBytes { dst[i] = src[i] &+ (i >= bpp ? dst[i - bpp] : 0) }
                    case 2:
                        for i in 0..<rowBytes { dst[i] = src[i] &+ (up?[i] ?? 0) }
                    case 3:
                        for i in 0..<rowBytes {
                            let a = i >= bpp ? Int(dst[i - bpp]) : 0, b = Int(up?[i] ?? 0)
                            dst[i] = src[i] &+ UInt8((a + b) >> 1)
                        }
                    case 4:
                        for i in 0..<rowBytes {
                            let a = i >= bpp ? Int(dst[i - bpp]) : 0
                            let b = Int(up?[i] ?? 0)
                            let c = (i >= bpp ? Int(up?[i - bpp] ?? 0) : 0)
                            let p = a + b - c
                            let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                            let pred = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
                            dst[i] = src[i] &+ UInt8(pred)
                        }
                    default:
                        badFilter = (y, type)
                        return
                    }
                }
            }
        }
        if let bad = badFilter { throw .invalid(file: nil, reason: "row \(bad.row) has filter type \(bad.type)") }
        return out
    }
}
