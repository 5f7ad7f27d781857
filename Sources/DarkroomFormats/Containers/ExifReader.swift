import DarkroomCore
/// Reads the TIFF structure inside EXIF blocks (either byte order): IFD0, the Exif and GPS IFDs
/// and IFD1's JPEG thumbnail location. Every offset is bounds-checked and IFD loops are refused.
package struct ExifReader {
    /// Field values by tag name (ASCII as text, numbers in decimal, rationals as `n/d`).
    package private(set) var fields: [String: String] = [:]
    /// IFD1 JPEGInterchangeFormat range, relative to the TIFF header.
    package private(set) var thumbnail: Range<Int>?

    package static let names: [UInt16: String] = [
        0x010F: "Make", 0x0110: "Model", 0x0112: "Orientation", 0x011A: "XResolution", 0x011B: "YResolution",
        0x0128: "ResolutionUnit", 0x0131: "Software", 0x0132: "DateTime", 0x013B: "Artist", 0x8298: "Copyright",
        0x829A: "ExposureTime", 0x829D: "FNumber", 0x8827: "PhotographicSensitivity", 0x9000: "ExifVersion",
        0x9003: "DateTimeOriginal", 0x9011: "OffsetTimeOriginal", 0x9291: "SubSecTimeOriginal",
        0x9204: "ExposureBiasValue", 0x9209: "Flash", 0x920A: "FocalLength", 0xA001: "ColorSpace",
        0xA002: "PixelXDimension", 0xA003: "PixelYDimension", 0xA405: "FocalLengthIn35mmFilm",
        0xA420: "ImageUniqueID", 0xA431: "BodySerialNumber", 0xA433: "LensMake", 0xA434: "LensModel",
    ]
    package static let gpsNames: [UInt16: String] = [
        0x0001: "GPSLatitudeRef", 0x0002: "GPSLatitude", 0x0003: "GPSLongitudeRef", 0x0004: "GPSLongitude",
        0x0005: "GPSAltitudeRef", 0x0006: "GPSAltitude", 0x0007: "GPSTimeStamp", 0x001D: "GPSDateStamp",
    ]

    private let b: [UInt8]
    /// Reads `b` (bounds-checked, in the block's byte order).
    private let reader: ByteReader

    package init(tiff: [UInt8]) throws(EncodeError) {
        b = tiff
        guard tiff.count >= 8 else { throw .unreadable(format: "EXIF", reason: "TIFF header truncated (\(tiff.count) bytes)") }
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): reader = ByteReader(bytes: tiff, bigEndian: false)
        case (0x4D, 0x4D): reader = ByteReader(bytes: tiff, bigEndian: true)
        default: throw .unreadable(format: "EXIF", reason: "no TIFF byte-order mark")
        }
        guard u16(2) == 42 else { throw .unreadable(format: "EXIF", reason: "TIFF magic is not 42") }
        var visited = Set<Int>()
        guard let ifd0 = u32(4).map(Int.init) else { throw .unreadable(format: "EXIF", reason: "truncated") }
        let next = try readIFD(at: ifd0, names: Self.names, visited: &visited, isIFD1: false)
        if next != 0 { _ = try readIFD(at: next, names: [:], visited: &visited, isIFD1: true) }
    }

    private mutating func readIFD(at offset: Int, names: [UInt16: String], visited: inout Set<Int>,
                                  isIFD1: Bool) throws(EncodeError) -> Int {
        guard visited.insert(offset).inserted else { throw .unreadable(format: "EXIF", reason: "IFD loop at \(offset)") }
        guard let n = u16(offset).map(Int.init), offset + 2 + 12 * n + 4 <= b.count else {
            throw .unreadable(format: "EXIF", reason: "IFD at \(offset) runs past the end (\(b.count) bytes)")
        }
        var thumbOffset: Int?, thumbLength: Int?
        for i in 0..<n {
            let e = offset + 2 + 12 * i
            guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4).map(Int.init) else { continue }
            let size = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8][Int(type)] ?? 0
            guard size > 0, count <= 1 << 20 else { continue }
            let total = size * count
            let at = total <= 4 ? e + 8 : Int(u32(e + 8) ?? UInt32.max)
            guard at + total <= b.count else { continue }
            if isIFD1 {
                if tag == 0x0201 { thumbOffset = Int(u32(at) ?? 0) }
                if tag == 0x0202 { thumbLength = Int(u32(at) ?? 0) }
                continue
            }
            if tag == 0x8769 || tag == 0x8825, let sub = u32(at) {
                _ = try readIFD(at: Int(sub), names: tag == 0x8769 ? Self.names : Self.gpsNames, visited: &visited, isIFD1: false)
                if tag == 0x8825 { fields["GPSInfo"] = "present" }
                continue
            }
            guard let name = names[tag] else { continue }
            fields[name] = value(type: type, count: count, at: at)
        }
        if let o = thumbOffset, let l = thumbLength, l > 0, o + l <= b.count { thumbnail = o..<(o + l) }
        return Int(u32(offset + 2 + 12 * n) ?? 0)
    }

    private func value(type: UInt16, count: Int, at: Int) -> String {
        switch type {
        case 2:
            let bytes = b[at..<(at + count)].prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        case 7:
            return count <= 8 && b[at..<(at + count)].allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
                ? String(decoding: b[at..<(at + count)], as: UTF8.self)
                : b[at..<(at + count)].map(String.init).joined(separator: " ")
        case 1: return b[at..<(at + count)].map(String.init).joined(separator: " ")
        case 3: return (0..<count).compactMap { u16(at + 2 * $0).map(String.init) }.joined(separator: " ")
        case 4: return (0..<count).compactMap { u32(at + 4 * $0).map(String.init) }.joined(separator: " ")
        case 9: return (0..<count).compactMap { u32(at + 4 * $0).map { String(Int32(bitPattern: $0)) } }.joined(separator: " ")
        case 5, 10:
            return (0..<count).compactMap { i -> String? in
                guard let n = u32(at + 8 * i), let d = u32(at + 8 * i + 4) else { return nil }
                return type == 5 ? "\(n)/\(d)" : "\(Int32(bitPattern: n))/\(Int32(bitPattern: d))"
            }.joined(separator: " ")
        default: return ""
        }
    }

    /// nil past the end.
    private func u16(_ at: Int) -> UInt16? { try? reader.u16(at) }
    private func u32(_ at: Int) -> UInt32? { try? reader.u32(at) }
}
