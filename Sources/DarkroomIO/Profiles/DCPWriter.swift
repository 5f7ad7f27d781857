import DarkroomCore
import DarkroomFormats
import Foundation

/// Writes a DNG camera profile file (`.dcp`): Adobe's TIFF-structured profile format (DNG
/// Specification 1.7, "Camera Profiles"; the DNG SDK's `dng_camera_profile::ParseExtended`),
/// little-endian as Adobe writes them: "II", the profile magic 0x4352 ("IIRC"), the offset of one
/// IFD holding the profile tags and no image.
///
/// Tags written (when the profile has them): UniqueCameraModel, ProfileName,
/// CalibrationIlluminant1/2 (SHORT), IlluminantData1/2 (DNG 1.6, x-y kind, for illuminant 255),
/// ColorMatrix1/2 and ForwardMatrix1/2 (SRATIONAL, denominator 10000, so values are rounded to
/// 1e-4), ProfileHueSatMapDims (LONG) and ProfileHueSatMapData1/2 (FLOAT), ProfileEmbedPolicy,
/// ProfileCopyright, BaselineExposureOffset. LookTable and ProfileToneCurve are not written yet: a
/// profile holding them is refused rather than written without them.
public enum DCPWriter {
    /// Why a profile cannot be written.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unsupported(reason: String)
        case write(path: String, reason: String)

        public var description: String {
            switch self {
            case .unsupported(let reason): return "cannot write the camera profile: \(reason)"
            case .write(let path, let reason): return "\(path): cannot write the camera profile (\(reason))"
            }
        }
    }

    /// The profile file's bytes.
    public static func bytes(_ p: CameraProfile, uniqueCameraModel: String?) throws(Failure) -> [UInt8] {
        guard p.lookTableDims == nil, p.toneCurve == nil else {
            throw .unsupported(reason: "LookTable and ProfileToneCurve are not written by this writer")
        }
        if let d = p.hueSatMapDims {
            let n = d.count == 3 && d.allSatisfy({ (1...256).contains($0) }) ? d[0] * d[1] * d[2] * 3 : -1
            guard n > 0, p.hueSatMapData1.map({ $0.count == n && $0.allSatisfy(\.isFinite) }) ?? false,
                  p.hueSatMapData2.map({ $0.count == n && $0.allSatisfy(\.isFinite) }) ?? true else {
                throw .unsupported(reason: "ProfileHueSatMapDims \(d) do not fit the HueSatMap data")
            }
        }
        guard p.colorMatrix1 != nil else { throw .unsupported(reason: "no ColorMatrix1") }
        let matrices = [p.colorMatrix1, p.colorMatrix2, p.forwardMatrix1, p.forwardMatrix2].compactMap { $0 }
        guard matrices.allSatisfy({ $0.m.allSatisfy { $0.isFinite && abs($0) < 100_000 } }) else {
            throw .unsupported(reason: "a matrix element is not finite or beyond ±100000")
        }
        var ifd = DCPDirectory()
        ifd.ascii(TIFFTag.uniqueCameraModel, uniqueCameraModel)
        ifd.ascii(TIFFTag.profileName, p.name)
        ifd.ascii(TIFFTag.profileCopyright, p.copyright)
        if let c = p.calibrationIlluminant1 { ifd.add(TIFFTag.calibrationIlluminant1, type: 3, count: 1, le16(UInt16(clamping: c))) }
        if let c = p.calibrationIlluminant2 { ifd.add(TIFFTag.calibrationIlluminant2, type: 3, count: 1, le16(UInt16(clamping: c))) }
        if let xy = p.illuminantData1 { let b = illuminantDataXY(xy); ifd.add(TIFFTag.illuminantData1, type: 7, count: b.count, b) }
        if let xy = p.illuminantData2 { let b = illuminantDataXY(xy); ifd.add(TIFFTag.illuminantData2, type: 7, count: b.count, b) }
        for (tag, m) in [(TIFFTag.colorMatrix1, p.colorMatrix1), (TIFFTag.colorMatrix2, p.colorMatrix2),
                         (TIFFTag.forwardMatrix1, p.forwardMatrix1), (TIFFTag.forwardMatrix2, p.forwardMatrix2)] {
            if let m { ifd.add(tag, type: 10, count: 9, m.m.flatMap(srational)) }
        }
        if let d = p.hueSatMapDims {
            ifd.add(TIFFTag.profileHueSatMapDims, type: 4, count: 3, d.flatMap { le32(UInt32(clamping: $0)) })
            for (tag, data) in [(TIFFTag.profileHueSatMapData1, p.hueSatMapData1), (TIFFTag.profileHueSatMapData2, p.hueSatMapData2)] {
                if let data { ifd.add(tag, type: 11, count: data.count, data.flatMap { le32($0.bitPattern) }) }
            }
            if p.hueSatMapEncoding != 0 { ifd.add(TIFFTag.profileHueSatMapEncoding, type: 4, count: 1, le32(UInt32(clamping: p.hueSatMapEncoding))) }
        }
        if let v = p.baselineExposureOffset { ifd.add(TIFFTag.baselineExposureOffset, type: 10, count: 1, srational(v)) }
        ifd.add(TIFFTag.profileEmbedPolicy, type: 4, count: 1, le32(UInt32(clamping: p.embedPolicy ?? 0)))
        return ifd.file()
    }

    /// One little-endian IFD at offset 8 after the "IIRC" header; entries sorted by tag, values
    /// longer than four bytes in a data area after the directory, each at an even offset.
    struct DCPDirectory {
        var entries: [(tag: UInt16, type: UInt16, count: Int, value: [UInt8])] = []

        mutating func add(_ tag: UInt16, type: UInt16, count: Int, _ value: [UInt8]) {
            entries.removeAll { $0.tag == tag }
            entries.append((tag, type, count, value))
        }

        mutating func ascii(_ tag: UInt16, _ s: String?) {
            guard let s, !s.isEmpty else { return }
            let bytes = Array(s.utf8.filter { $0 != 0 }) + [0]
            add(tag, type: 2, count: bytes.count, bytes)
        }

        func file() -> [UInt8] {
            let sorted = entries.sorted { $0.tag < $1.tag }
            var out: [UInt8] = [0x49, 0x49, 0x52, 0x43] + le32(8) + le16(UInt16(sorted.count))
            var dataOffset = 8 + 2 + 12 * sorted.count + 4
            var data: [UInt8] = []
            for e in sorted {
                out += le16(e.tag) + le16(e.type) + le32(UInt32(e.count))
                if e.value.count <= 4 {
                    out += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
                } else {
                    out += le32(UInt32(dataOffset))
                    data += e.value
                    if e.value.count & 1 == 1 { data.append(0) }
                    dataOffset += (e.value.count + 1) & ~1
                }
            }
            return out + le32(0) + data
        }
    }

    /// Writes the profile atomically (`AtomicWriter`).
    public static func write(_ p: CameraProfile, uniqueCameraModel: String?, to path: String, overwrite: Bool) throws(Failure) {
        let data = try bytes(p, uniqueCameraModel: uniqueCameraModel)
        do { try AtomicWriter.write(data, to: path, overwrite: overwrite) } catch { throw .write(path: path, reason: error.description) }
    }

    /// A value as SRATIONAL n/10000 (little-endian), rounded to the nearest 1e-4.
    static func srational(_ v: Double) -> [UInt8] {
        let n = Int32(clamping: Int64((v * 10000).rounded()))
        return le32(UInt32(bitPattern: n)) + le32(10000)
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }

    /// `IlluminantData` of the x-y kind (DNG 1.6): SHORT 0, then x and y as RATIONALs with
    /// denominator 1,000,000, little-endian.
    static func illuminantDataXY(_ xy: Chromaticity) -> [UInt8] {
        func micro(_ v: Double) -> UInt32 { UInt32(clamping: Int64((min(max(v, 0), 1) * 1_000_000).rounded())) }
        return le16(0) + le32(micro(xy.x)) + le32(1_000_000) + le32(micro(xy.y)) + le32(1_000_000)
    }
}
