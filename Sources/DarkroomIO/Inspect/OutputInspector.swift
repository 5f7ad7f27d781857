import CLCMS2
import DarkroomCore

/// Reads back what the encoders wrote, with independent readers (libjpeg-turbo, libheif,
/// libtiff) plus our own JPEG marker / EXIF IFD / MPF walk, for tests and `darkroom info`.
public enum OutputInspector {
    public static func format(of bytes: [UInt8]) -> OutputSummary.Format? {
        if bytes.count >= 3, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[2] == 0xFF { return .jpeg }
        if bytes.count >= 4, bytes[0...3] == [0x49, 0x49, 0x2A, 0x00] || bytes[0...3] == [0x4D, 0x4D, 0x00, 0x2A] { return .tiff }
        if bytes.count >= 12, bytes[4...7] == Array("ftyp".utf8)[...] { return .heif }
        return nil
    }

    public static func inspect(_ bytes: [UInt8]) throws(EncodeError) -> OutputSummary {
        switch format(of: bytes) {
        case .jpeg: return try inspectJPEG(bytes)
        case .heif: return try inspectHEIF(bytes)
        case .tiff: return try inspectTIFF(bytes)
        case nil: throw .unreadable(format: "output", reason: "not a JPEG, HEIF or TIFF file (\(bytes.count) bytes)")
        }
    }

    /// Decoded primary image as interleaved 8-bit RGB (JPEG, HEIF, 8-bit TIFF).
    public static func decodeRGB8(_ bytes: [UInt8]) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt8]) {
        switch format(of: bytes) {
        case .jpeg: return try TurboJPEG(.decompress).decompress(bytes)
        case .heif: return try decodeHEIFRGB8(bytes)
        case .tiff:
            let t = try decodeTIFF(bytes)
            guard t.bits == 8 else { throw .unreadable(format: "TIFF", reason: "\(t.bits)-bit samples; use decodeRGB16") }
            return (t.width, t.height, t.samples.map { UInt8(truncatingIfNeeded: $0) })
        case nil: throw .unreadable(format: "output", reason: "unknown format")
        }
    }

    /// Decoded 16-bit TIFF as interleaved RGB samples.
    public static func decodeRGB16(_ bytes: [UInt8]) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt16]) {
        guard format(of: bytes) == .tiff else { throw .unreadable(format: "output", reason: "decodeRGB16 reads TIFF only") }
        let t = try decodeTIFF(bytes)
        guard t.bits == 16 else { throw .unreadable(format: "TIFF", reason: "\(t.bits)-bit samples; use decodeRGB8") }
        return (t.width, t.height, t.samples)
    }

    /// Decoded auxiliary plane (8-bit greyscale) with the given URN (JPEG MPF or HEIF `auxl`).
    public static func decodeAuxiliary(_ bytes: [UInt8], urn: String) throws(EncodeError) -> (width: Int, height: Int, pixels: [UInt8]) {
        switch format(of: bytes) {
        case .jpeg:
            guard let jpeg = try mpfSecondaries(bytes).first(where: { $0.urn == urn }) else {
                throw .unreadable(format: "JPEG", reason: "no MPF image with auxiliary type \(urn)")
            }
            return try TurboJPEG(.decompress).decompress(Array(jpeg.bytes), channels: 1)
        case .heif: return try decodeHEIFAuxiliary(bytes, urn: urn)
        default: throw .unreadable(format: "output", reason: "auxiliary planes exist in JPEG and HEIF only")
        }
    }

    /// The ICC profile's description (lcms2 `cmsInfoDescription`, en-US).
    static func iccDescription(_ icc: [UInt8]) -> String? {
        guard !icc.isEmpty else { return nil }
        return icc.withUnsafeBytes { raw -> String? in
            guard let p = cmsOpenProfileFromMem(raw.baseAddress, cmsUInt32Number(raw.count)) else { return nil }
            defer { cmsCloseProfile(p) }
            var buf = [CChar](repeating: 0, count: 256)
            let n = cmsGetProfileInfoASCII(p, cmsInfoDescription, "en", "US", &buf, cmsUInt32Number(buf.count))
            guard n > 0 else { return nil }
            return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    static func apply(exif tiff: [UInt8], to s: inout OutputSummary) throws(EncodeError) -> ExifReader {
        let r = try ExifReader(tiff: tiff)
        s.exif = r.fields
        s.orientation = r.fields["Orientation"].flatMap { Int($0) }
        return r
    }
}
