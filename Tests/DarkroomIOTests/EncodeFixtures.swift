import CLCMS2
import DarkroomCore
import DarkroomTestSupport
import Foundation

/// Synthetic images, ICC profiles and measurements shared by the Encode/Inspect tests.
enum EncodeFixtures {
    static let samplesDir: URL = TestSupport.sharedSamplesPath

    /// Smooth "Kodak-like" content: colour ramps plus a low-frequency sinusoid and one hard
    /// luminance edge, 8-bit sRGB.
    static func gradient8(width: Int = 128, height: Int = 96) -> [UInt8] {
        var p = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(max(width - 1, 1)), fy = Double(y) / Double(max(height - 1, 1))
                // A luminance step (all channels), as natural edges mostly are.
                let edge = x > width * 3 / 4 && y > height / 2 ? 0.6 : 1.0
                let r = (30 + 200 * fx) * edge
                let g = (30 + 200 * fy) * edge
                let b = (128 + 80 * sin(fx * 6.3) * cos(fy * 4.1)) * edge
                let i = (y * width + x) * 3
                p[i] = UInt8(max(0, min(255, r.rounded())))
                p[i + 1] = UInt8(max(0, min(255, g.rounded())))
                p[i + 2] = UInt8(max(0, min(255, b.rounded())))
            }
        }
        return p
    }

    static func gradient16(width: Int, height: Int) -> [UInt16] {
        var p = [UInt16](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                p[i] = UInt16(x * 65535 / max(width - 1, 1))
                p[i + 1] = UInt16(y * 65535 / max(height - 1, 1))
                p[i + 2] = UInt16((x * 7919 + y * 104729) & 0xFFFF)   // every bit exercised
            }
        }
        return p
    }

    static func save(_ profile: cmsHPROFILE) -> [UInt8] {
        var size: cmsUInt32Number = 0
        guard cmsSaveProfileToMem(profile, nil, &size) != 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        _ = bytes.withUnsafeMutableBytes { cmsSaveProfileToMem(profile, $0.baseAddress, &size) }
        return bytes
    }

    static var sRGBProfile: [UInt8] {
        guard let p = cmsCreate_sRGBProfile() else { return [] }
        defer { cmsCloseProfile(p) }
        return save(p)
    }

    /// A valid RGB profile larger than one JPEG APP2 segment (three 24,000-entry tone curves).
    static var largeProfile: [UInt8] {
        var white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1),
                                        Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
                                        Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        let n = 24000
        var curves: [OpaquePointer?] = (0..<3).map { c in
            let table = (0..<n).map { i in UInt16(min(65535, pow(Double(i) / Double(n - 1), 2.2 + Double(c) * 0.01) * 65535)) }
            return table.withUnsafeBufferPointer { cmsBuildTabulatedToneCurve16(nil, cmsUInt32Number(n), $0.baseAddress) }
        }
        defer { for c in curves { cmsFreeToneCurve(c) } }
        guard let p = curves.withUnsafeMutableBufferPointer({ cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) })
        else { return [] }
        defer { cmsCloseProfile(p) }
        return save(p)
    }

    static func exif() -> ExifInfo {
        var e = ExifInfo()
        e.make = "Canon"; e.model = "Canon EOS 6D"; e.lensModel = "EF24-105mm f/4L IS USM"
        e.lensMake = "Canon"; e.artist = "Ada"; e.copyright = "(c) Ada"
        e.dateTimeOriginal = "2021:06:05 14:03:22"; e.offsetTimeOriginal = "+02:00"; e.subSecTimeOriginal = "42"
        e.exposureTime = 1.0 / 250; e.fNumber = 8; e.isoSpeed = 400; e.focalLength = 50
        e.focalLengthIn35mm = 50; e.exposureBias = -0.7; e.flash = 16
        e.bodySerialNumber = "012345"; e.imageUniqueID = "0123456789abcdef0123456789abcdef"
        var g = GPSInfo(); g.latitude = 48.8584; g.longitude = -2.2945; g.altitude = 35.5
        g.timeStamp = "12:03:22"; g.dateStamp = "2021:06:05"
        e.gps = g
        e.xmp = #"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4"/></rdf:RDF></x:xmpmeta>"#
        return e
    }

    static func image(width: Int = 128, height: Int = 96, thumbnail: Bool = true, mattes: [MatteKind] = [],
                      icc: [UInt8]? = nil) -> RenderedImage {
        let thumb = thumbnail ? Thumbnail(width: 64, height: 48, pixels: gradient8(width: 64, height: 48)) : nil
        let planes = mattes.enumerated().map { (k, kind) in
            let w = width / 2, h = height / 2
            return AuxiliaryPlane(kind: kind, width: w, height: h,
                                  pixels: (0..<(w * h)).map { UInt8(($0 % w) * 255 / max(w - 1, 1)) ^ UInt8(k * 40) })
        }
        return RenderedImage(width: width, height: height, bitsPerSample: 8, pixels8: gradient8(width: width, height: height),
                             colorSpaceName: "srgb", iccProfile: icc ?? sRGBProfile, exif: exif(),
                             thumbnail: thumb, mattes: planes)
    }

    /// PSNR in dB over 8-bit samples.
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var se = 0.0
        for i in 0..<a.count { let d = Double(a[i]) - Double(b[i]); se += d * d }
        let mse = se / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// `exiftool -j -n` on bytes, when exiftool is installed.
    static func exiftool(_ bytes: [UInt8], args: [String] = ["-j", "-n"]) -> [String: Any]? {
        guard let tool = TestSupport.tool("/usr/bin/exiftool", "/usr/local/bin/exiftool"),
              let path = try? TestSupport.temporaryFile(bytes, suffix: "bin") else { return nil }
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard let run = try? TestSupport.runTool(tool, args + [path]),
              let arr = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]] else { return nil }
        return arr.first
    }
}
