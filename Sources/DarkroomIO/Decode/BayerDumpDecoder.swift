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

    /// The metadata a dump decodes to, without reading its pixels (after checking the file's size).
    public static func metadata(path: String, parameters p: BayerDumpParameters) throws(DecodeError) -> RawMetadata {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
            throw .fileNotFound(path: path)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let stride = p.rowStride ?? p.width * 2
        let needed = stride * max(p.height - 1, 0) + p.width * 2
        if size < needed {
            throw .truncated(path: path, detail: "\(size) bytes, a \(p.width)x\(p.height) dump with stride \(stride) needs \(needed)")
        }
        return makeMetadata(p, white: p.whiteLevel ?? Double((1 << p.bitsPerSample) - 1))
    }

    static func makeMetadata(_ p: BayerDumpParameters, white: Double) -> RawMetadata {
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
        let maxValue = Double((1 << p.bitsPerSample) - 1)
        let white = p.whiteLevel ?? maxValue
        guard p.blackLevel >= 0, white > p.blackLevel, white <= 65535 else {
            throw .invalidParameters(path: path, reason: "black level \(p.blackLevel) must be below white level \(white)")
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else {
            throw .fileNotFound(path: path)
        }
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        let needed = stride * (p.height - 1) + p.width * 2
        if data.count < needed {
            throw .truncated(path: path, detail: "\(data.count) bytes, a \(p.width)x\(p.height) dump with stride \(stride) needs \(needed)")
        }
        if p.rowStride == nil && data.count != needed {
            throw .invalidParameters(path: path, reason: "file has \(data.count) bytes, \(p.width)x\(p.height) 16-bit samples are \(needed); check --size (or give --stride)")
        }
        var pixels = [UInt16](repeating: 0, count: p.width * p.height)
        var overRange = 0
        let limit = UInt16(maxValue)
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
        var md = makeMetadata(p, white: white)
        if overRange > 0 {
            md.warnings.append("\(overRange) samples exceed \(p.bitsPerSample)-bit range (wrong --bits or big-endian data?)")
        }
        return RawImage(width: p.width, height: p.height, samplesPerPixel: 1, pixels: pixels, metadata: md)
    }
}
