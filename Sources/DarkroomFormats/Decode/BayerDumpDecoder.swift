import DarkroomCore
import Foundation

/// How to read a headerless Bayer dump (`--bayer rggb --bits 14 --size 4032x3024`).
public struct BayerDumpParameters: Sendable, Equatable, Codable {
    public var cfa: CFAPattern
    /// Significant bits per sample (8…16); samples are stored in 16-bit little-endian containers, LSB-aligned.
    public var bitsPerSample: Int
    public var width: Int
    public var height: Int
    /// Black level in sensor units (default 0).
    public var blackLevel: Double
    /// White level in sensor units (default 2^bits − 1).
    public var whiteLevel: Double?
    /// Bytes per row (default width × 2); larger values skip row padding.
    public var rowStride: Int?

    public init(cfa: CFAPattern, bitsPerSample: Int, width: Int, height: Int, blackLevel: Double = 0,
                whiteLevel: Double? = nil, rowStride: Int? = nil) {
        self.cfa = cfa; self.bitsPerSample = bitsPerSample; self.width = width; self.height = height
        self.blackLevel = blackLevel; self.whiteLevel = whiteLevel; self.rowStride = rowStride
    }

    /// Parses "4032x3024".
    public static func parseSize(_ s: String) -> (width: Int, height: Int)? {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        return (w, h)
    }
}

/// Decoder for headerless Bayer dumps as phone camera APIs deliver them: `height` rows of
/// `width` unsigned 16-bit little-endian samples holding `bits` significant bits.
///
/// A dump carries no colour information, so its camera RGB is treated as linear sRGB (D65):
/// ColorMatrix1 = XYZ(D65) → linear sRGB, CalibrationIlluminant1 = D65, AsShotNeutral = (1, 1, 1)
/// unless `--wb` says otherwise. This is documented behaviour, not a camera profile.
public enum BayerDumpDecoder {
    /// XYZ (D65) → linear sRGB (IEC 61966-2-1, as tabulated by Lindbloom), used as the ColorMatrix
    /// of sensors without a profile.
    public static let linearSRGBAsCamera = Matrix3([
        3.2404542, -1.5371385, -0.4985314,
        -0.9692660, 1.8760108, 0.0415560,
        0.0556434, -0.2040259, 1.0572252,
    ])

    /// The metadata a dump decodes to, without reading its pixels (after the same parameter and
    /// file-size checks `decode` makes).
    public static func metadata(path: String, parameters p: BayerDumpParameters) throws(DecodeError) -> RawMetadata {
        let v = try validated(p, path: path)
        let size = try InputFile.requireRegularFile(path)
        try checkSize(size, p, stride: v.stride, needed: v.needed, path: path)
        return makeMetadata(p, white: v.white)
    }

    /// The parameter checks shared by `metadata` and `decode`: bits, size, stride, levels.
    private static func validated(_ p: BayerDumpParameters, path: String) throws(DecodeError) -> (stride: Int, needed: Int, white: Double) {
        guard (8...16).contains(p.bitsPerSample) else {
            throw .invalidParameters(path: path, reason: "--bits must be 8…16, not \(p.bitsPerSample)")
        }
        guard p.width >= 16, p.height >= 16, p.width <= 65535, p.height <= 65535 else {
            throw .invalidParameters(path: path, reason: "--size \(p.width)x\(p.height) is outside 16…65535 per side")
        }
        let stride = p.rowStride ?? p.width * 2
        guard stride >= p.width * 2 else {
            throw .invalidParameters(path: path, reason: "row stride \(stride) is smaller than width × 2 = \(p.width * 2)")
        }
        let white = p.whiteLevel ?? Double((1 << p.bitsPerSample) - 1)
        guard p.blackLevel >= 0, white > p.blackLevel, white <= 65535 else {
            throw .invalidParameters(path: path, reason: "black level \(p.blackLevel) must be below white level \(white)")
        }
        // The stride comes from an argument: the byte count is computed overflow-checked.
        let (rows, o1) = stride.multipliedReportingOverflow(by: p.height - 1)
        let (needed, o2) = rows.addingReportingOverflow(p.width * 2)
        guard !o1, !o2 else {
            throw .invalidParameters(path: path, reason: "row stride \(stride) × \(p.height) rows exceeds any file size")
        }
        return (stride, needed, white)
    }

    /// A file of `size` bytes must hold the dump; without an explicit stride, exactly.
    private static func checkSize(_ size: Int, _ p: BayerDumpParameters, stride: Int, needed: Int, path: String) throws(DecodeError) {
        if size < needed {
            throw .truncated(path: path, detail: "\(size) bytes, a \(p.width)x\(p.height) dump with stride \(stride) needs \(needed)")
        }
        if p.rowStride == nil && size != needed {
            throw .invalidParameters(path: path, reason: "file has \(size) bytes, \(p.width)x\(p.height) 16-bit samples are \(needed); check --size (or give --stride)")
        }
    }

    package static func makeMetadata(_ p: BayerDumpParameters, white: Double) -> RawMetadata {
        var md = RawMetadata()
        md.fileFormat = "bayer-dump"
        md.sensorWidth = p.width
        md.sensorHeight = p.height
        md.cfa = p.cfa
        md.bitsPerSample = p.bitsPerSample
        md.blackLevel = [p.blackLevel]
        md.whiteLevel = [white]
        md.asShotNeutral = [1, 1, 1]
        var profile = CameraProfile()
        profile.name = "none (camera treated as linear sRGB)"
        profile.calibrationIlluminant1 = 21
        profile.colorMatrix1 = linearSRGBAsCamera
        md.profile = profile
        return md
    }

    public static func decode(path: String, parameters p: BayerDumpParameters) throws(DecodeError) -> RawImage {
        let checked = try validated(p, path: path)
        let stride = checked.stride
        try InputFile.requireRegularFile(path)
        let data: Data
        // Read, not mapped: a dump truncated while it is read then fails the size check below
        // instead of raising SIGBUS.
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        try checkSize(data.count, p, stride: stride, needed: checked.needed, path: path)
        var pixels = [UInt16](repeating: 0, count: p.width * p.height)
        var overRange = 0
        let limit = UInt16((1 << p.bitsPerSample) - 1)
        data.withUnsafeBytes { raw in
            for y in 0..<p.height {
                let row = y * stride
                for x in 0..<p.width {
                    let v = UInt16(raw[row + 2 * x]) | UInt16(raw[row + 2 * x + 1]) << 8
                    if v > limit { overRange += 1 }
                    pixels[y * p.width + x] = v
                }
            }
        }
        var md = makeMetadata(p, white: checked.white)
        if overRange > 0 {
            md.warnings.append("\(overRange) samples exceed \(p.bitsPerSample)-bit range (wrong --bits or big-endian data?)")
        }
        return RawImage(width: p.width, height: p.height, samplesPerPixel: 1, pixels: pixels, metadata: md)
    }
}
