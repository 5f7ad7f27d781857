import DarkroomCore
import Foundation

/// Serialises `ExifInfo` as a TIFF structure (EXIF 2.32 / CIPA DC-008): big-endian header,
/// IFD0 (Make, Model, Orientation = 1, resolution, Software, DateTime, Artist, Copyright),
/// the Exif IFD, the GPS IFD when GPS is known, and IFD1 carrying a JPEG thumbnail.
///
/// The same bytes go into a JPEG APP1 segment (after `Exif\0\0`) and into a HEIF `Exif` item
/// (where libheif prepends the 4-byte offset to the TIFF header).
public enum ExifWriter {
    /// TIFF tag numbers written here, with their spec names.
    package enum Tag {
        static let Compression: UInt16 = 0x0103, Make: UInt16 = 0x010F, Model: UInt16 = 0x0110
        static let Orientation: UInt16 = 0x0112, XResolution: UInt16 = 0x011A, YResolution: UInt16 = 0x011B
        static let ResolutionUnit: UInt16 = 0x0128, Software: UInt16 = 0x0131, DateTime: UInt16 = 0x0132
        static let YCbCrPositioning: UInt16 = 0x0213, ComponentsConfiguration: UInt16 = 0x9101
        static let FlashpixVersion: UInt16 = 0xA000
        static let Artist: UInt16 = 0x013B, JPEGInterchangeFormat: UInt16 = 0x0201
        static let JPEGInterchangeFormatLength: UInt16 = 0x0202, Copyright: UInt16 = 0x8298
        static let ExifIFDPointer: UInt16 = 0x8769, GPSInfoIFDPointer: UInt16 = 0x8825
        static let ExposureTime: UInt16 = 0x829A, FNumber: UInt16 = 0x829D
        static let PhotographicSensitivity: UInt16 = 0x8827, ExifVersion: UInt16 = 0x9000
        static let DateTimeOriginal: UInt16 = 0x9003, OffsetTimeOriginal: UInt16 = 0x9011
        static let ExposureBiasValue: UInt16 = 0x9204, Flash: UInt16 = 0x9209, FocalLength: UInt16 = 0x920A
        static let SubSecTimeOriginal: UInt16 = 0x9291, ColorSpace: UInt16 = 0xA001
        static let PixelXDimension: UInt16 = 0xA002, PixelYDimension: UInt16 = 0xA003
        static let FocalLengthIn35mmFilm: UInt16 = 0xA405, ImageUniqueID: UInt16 = 0xA420
        static let BodySerialNumber: UInt16 = 0xA431, LensMake: UInt16 = 0xA433, LensModel: UInt16 = 0xA434
        static let GPSVersionID: UInt16 = 0x0000, GPSLatitudeRef: UInt16 = 0x0001, GPSLatitude: UInt16 = 0x0002
        static let GPSLongitudeRef: UInt16 = 0x0003, GPSLongitude: UInt16 = 0x0004
        static let GPSAltitudeRef: UInt16 = 0x0005, GPSAltitude: UInt16 = 0x0006
        static let GPSTimeStamp: UInt16 = 0x0007, GPSDateStamp: UInt16 = 0x001D
    }

    /// The TIFF structure (starting with `MM\0*`).
    /// - Parameters:
    ///   - exif: the metadata to carry; `nil` fields are omitted.
    ///   - pixelWidth/pixelHeight: the encoded image size (PixelXDimension / PixelYDimension).
    ///   - colorSpaceName: `"srgb"` writes ColorSpace = 1, anything else 0xFFFF (Uncalibrated).
    ///   - thumbnailJPEG: a complete JPEG stream for IFD1, or `nil` for no IFD1.
    ///   - dateTime: the DateTime (file change) value, `"YYYY:MM:DD HH:MM:SS"`.
    public static func tiff(exif: ExifInfo, pixelWidth: Int, pixelHeight: Int, colorSpaceName: String,
                            thumbnailJPEG: [UInt8]? = nil, dateTime: String) -> [UInt8] {
        var ifd0 = TIFFIFDBuilder()
        ifd0.ascii(Tag.Make, exif.make)
        ifd0.ascii(Tag.Model, exif.model)
        ifd0.short(Tag.Orientation, 1)
        ifd0.rationals(Tag.XResolution, [(72, 1)])
        ifd0.rationals(Tag.YResolution, [(72, 1)])
        ifd0.short(Tag.ResolutionUnit, 2)
        ifd0.ascii(Tag.Software, "Darkroom \(DarkroomVersion.string)")
        ifd0.ascii(Tag.DateTime, dateTime)
        ifd0.ascii(Tag.Artist, exif.artist)
        ifd0.ascii(Tag.Copyright, exif.copyright)
        ifd0.short(Tag.YCbCrPositioning, 1)   // centred, as libjpeg samples chroma
        ifd0.long(Tag.ExifIFDPointer, 0)   // patched below

        var exifIFD = TIFFIFDBuilder()
        if let t = exif.exposureTime, t > 0 { exifIFD.rationals(Tag.ExposureTime, [exposureRational(t)]) }
        if let f = exif.fNumber, f > 0 { exifIFD.rationals(Tag.FNumber, [rational(f, denominator: 100)]) }
        if let iso = exif.isoSpeed, iso > 0 { exifIFD.short(Tag.PhotographicSensitivity, UInt16(min(iso, 65535))) }
        exifIFD.undefined(Tag.ExifVersion, Array("0232".utf8))
        exifIFD.undefined(Tag.ComponentsConfiguration, [1, 2, 3, 0])   // Y Cb Cr
        exifIFD.undefined(Tag.FlashpixVersion, Array("0100".utf8))
        exifIFD.ascii(Tag.DateTimeOriginal, exif.dateTimeOriginal)
        exifIFD.ascii(Tag.OffsetTimeOriginal, exif.offsetTimeOriginal)
        exifIFD.ascii(Tag.SubSecTimeOriginal, exif.subSecTimeOriginal)
        if let b = exif.exposureBias {
            let n = Int32(clamping: Int((b * 100).rounded()))
            let g = Int32(gcd(Int(abs(n)), 100))
            exifIFD.srational(Tag.ExposureBiasValue, (n / g, 100 / g))
        }
        if let fl = exif.flash { exifIFD.short(Tag.Flash, UInt16(clamping: fl)) }
        if let f = exif.focalLength, f > 0 { exifIFD.rationals(Tag.FocalLength, [rational(f, denominator: 100)]) }
        exifIFD.short(Tag.ColorSpace, colorSpaceName.lowercased() == "srgb" ? 1 : 0xFFFF)
        exifIFD.long(Tag.PixelXDimension, UInt32(clamping: pixelWidth))
        exifIFD.long(Tag.PixelYDimension, UInt32(clamping: pixelHeight))
        if let f35 = exif.focalLengthIn35mm, f35 > 0 { exifIFD.short(Tag.FocalLengthIn35mmFilm, UInt16(clamping: f35)) }
        exifIFD.ascii(Tag.ImageUniqueID, exif.imageUniqueID)
        exifIFD.ascii(Tag.BodySerialNumber, exif.bodySerialNumber)
        exifIFD.ascii(Tag.LensMake, exif.lensMake)
        exifIFD.ascii(Tag.LensModel, exif.lensModel)

        var gpsIFD = TIFFIFDBuilder()
        if let gps = exif.gps { fillGPS(&gpsIFD, gps) }
        if !gpsIFD.isEmpty { ifd0.long(Tag.GPSInfoIFDPointer, 0) }

        var ifd1 = TIFFIFDBuilder()
        if let thumb = thumbnailJPEG {
            ifd1.short(Tag.Compression, 6)
            ifd1.rationals(Tag.XResolution, [(72, 1)])
            ifd1.rationals(Tag.YResolution, [(72, 1)])
            ifd1.short(Tag.ResolutionUnit, 2)
            ifd1.long(Tag.JPEGInterchangeFormat, 0)
            ifd1.long(Tag.JPEGInterchangeFormatLength, UInt32(thumb.count))
        }

        // Layout: header, IFD0, Exif IFD, GPS IFD, IFD1, thumbnail. Sizes do not depend on the
        // pointer values, so offsets are fixed before the pointers are filled in.
        let ifd0Offset = 8
        let exifOffset = ifd0Offset + ifd0.byteSize
        let gpsOffset = exifOffset + exifIFD.byteSize
        let ifd1Offset = gpsOffset + (gpsIFD.isEmpty ? 0 : gpsIFD.byteSize)
        let thumbOffset = ifd1Offset + (ifd1.isEmpty ? 0 : ifd1.byteSize)
        ifd0.long(Tag.ExifIFDPointer, UInt32(exifOffset))
        if !gpsIFD.isEmpty { ifd0.long(Tag.GPSInfoIFDPointer, UInt32(gpsOffset)) }
        if !ifd1.isEmpty { ifd1.long(Tag.JPEGInterchangeFormat, UInt32(thumbOffset)) }

        var out: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A] + BigEndian.u32(UInt32(ifd0Offset))
        ifd0.serialize(at: ifd0Offset, nextIFD: ifd1.isEmpty ? 0 : UInt32(ifd1Offset), into: &out)
        exifIFD.serialize(at: exifOffset, nextIFD: 0, into: &out)
        if !gpsIFD.isEmpty { gpsIFD.serialize(at: gpsOffset, nextIFD: 0, into: &out) }
        if let thumb = thumbnailJPEG {
            ifd1.serialize(at: ifd1Offset, nextIFD: 0, into: &out)
            out += thumb
        }
        return out
    }

    /// The current local time as EXIF writes it.
    public static func dateTimeNow() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyy:MM:dd HH:mm:ss"
        return f.string(from: Date())
    }

    private static func fillGPS(_ ifd: inout TIFFIFDBuilder, _ gps: GPSInfo) {
        var any = false
        if let lat = gps.latitude, lat.isFinite {
            ifd.ascii(Tag.GPSLatitudeRef, lat >= 0 ? "N" : "S")
            ifd.rationals(Tag.GPSLatitude, dms(abs(lat))); any = true
        }
        if let lon = gps.longitude, lon.isFinite {
            ifd.ascii(Tag.GPSLongitudeRef, lon >= 0 ? "E" : "W")
            ifd.rationals(Tag.GPSLongitude, dms(abs(lon))); any = true
        }
        if let alt = gps.altitude, alt.isFinite {
            ifd.byte(Tag.GPSAltitudeRef, [alt >= 0 ? 0 : 1])
            ifd.rationals(Tag.GPSAltitude, [rational(abs(alt), denominator: 100)]); any = true
        }
        if let ts = gps.timeStamp {
            let parts = ts.split(separator: ":").compactMap { Double($0) }
            if parts.count == 3 {
                ifd.rationals(Tag.GPSTimeStamp, [(UInt32(parts[0]), 1), (UInt32(parts[1]), 1),
                                                 rational(parts[2], denominator: 100)])
                any = true
            }
        }
        if let ds = gps.dateStamp { ifd.ascii(Tag.GPSDateStamp, ds); any = true }
        if any { ifd.byte(Tag.GPSVersionID, [2, 3, 0, 0]) }
    }

    /// Degrees → (degrees, minutes, seconds × 1000 / 1000).
    package static func dms(_ deg: Double) -> [(UInt32, UInt32)] {
        let d = deg.rounded(.down)
        let mFull = (deg - d) * 60
        let m = mFull.rounded(.down)
        let s = (mFull - m) * 60
        return [(UInt32(d), 1), (UInt32(m), 1), (UInt32((s * 1000).rounded()), 1000)]
    }

    /// Exposure times below one second as 1/N when that is exact to 0.5 %, else N/10000.
    package static func exposureRational(_ t: Double) -> (UInt32, UInt32) {
        if t < 1 {
            let n = (1 / t).rounded()
            if n > 0, abs(1 / n - t) / t < 0.005 { return (1, UInt32(min(n, 4_000_000_000))) }
        }
        return rational(t, denominator: 10000)
    }

    package static func rational(_ v: Double, denominator: Int) -> (UInt32, UInt32) {
        let n = Int(min((v * Double(denominator)).rounded(), 4_000_000_000))
        let g = max(gcd(n, denominator), 1)
        return (UInt32(n / g), UInt32(denominator / g))
    }

    package static func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
}
