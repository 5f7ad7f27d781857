import CZlib
import Foundation

/// Reads 8-bit, non-interlaced RGB and RGBA PNGs (ISO/IEC 15948 / W3C PNG 2nd edition):
/// chunk walk with CRC checks, IDAT concatenation, zlib inflate, and the five row filters
/// (None, Sub, Up, Average, Paeth). Enough for the Kodak-24 benchmark images; anything else
/// (palette, grey, 16-bit, Adam7) throws `PNGError.unsupported`.
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
        var header: (width: Int, height: Int, channels: Int)?
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
                guard depth == 8 else { throw .unsupported(file: nil, reason: "bit depth \(depth) (only 8)") }
                let channels: Int
                switch colorType {
                case 2: channels = 3
                case 6: channels = 4
                default: throw .unsupported(file: nil, reason: "colour type \(colorType) (only RGB, RGBA)")
                }
                guard compression == 0, filter == 0 else {
                    throw .invalid(file: nil, reason: "compression \(compression) / filter method \(filter)")
                }
                guard interlace == 0 else { throw .unsupported(file: nil, reason: "Adam7 interlacing") }
                guard w <= maximumDecodedBytes / channels, h <= maximumDecodedBytes / (w * channels) else {
                    throw .unsupported(file: nil, reason: "image \(w)x\(h) too large")
                }
                header = (w, h, channels)
            case "IDAT":
                guard header != nil else { throw .invalid(file: nil, reason: "IDAT before IHDR") }
                compressed.append(contentsOf: bytes[dataStart..<(dataStart + length)])
            case "IEND":
                sawEnd = true
            default:
                // Critical chunks we do not know (e.g. PLTE for colour type 3 never gets here) are errors.
                if typeBytes[0] & 0x20 == 0 && type != "PLTE" {
                    throw .unsupported(file: nil, reason: "critical chunk \(type)")
                }
            }
            pos = dataStart + length + 4
        }
        guard let (width, height, channels) = header else { throw .missingChunk(file: nil, chunk: "IHDR") }
        guard !compressed.isEmpty else { throw .missingChunk(file: nil, chunk: "IDAT") }
        let rowBytes = width * channels
        let filteredCount = height * (rowBytes + 1)
        let filtered = try inflate(compressed, expected: filteredCount)
        return PNGImage(width: width, height: height, channels: channels,
                        pixels: try unfilter(filtered, width: width, height: height, channels: channels))
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
    private static func unfilter(_ data: [UInt8], width: Int, height: Int, channels: Int) throws(PNGError) -> [UInt8] {
        let rowBytes = width * channels, bpp = channels
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
