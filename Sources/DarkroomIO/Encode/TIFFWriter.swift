import CTIFF
import DarkroomCore

public struct TIFFOptions: Sendable {
    /// Adobe Deflate (zlib) with horizontal differencing (TIFF predictor 2).
    public var deflate: Bool
    /// EXIF-style DateTime for IFD0; `nil` writes the current local time.
    public var dateTime: String?
    public init(deflate: Bool = true, dateTime: String? = nil) {
        self.deflate = deflate; self.dateTime = dateTime
    }
}

/// Writes a `RenderedImage` as a baseline RGB TIFF (libtiff): 8 or 16 bits per sample as the
/// image holds them, chunky, Orientation 1, 72 dpi, ICC profile in tag 34675, and IFD0
/// Make/Model/Software/DateTime/Artist/Copyright. Strips of about 64 KB.
public enum TIFFWriter {
    public static func encode(_ image: RenderedImage, options: TIFFOptions = .init()) throws(EncodeError) -> [UInt8] {
        let w = image.width, h = image.height, n = w * h * 3
        guard w > 0, h > 0, w <= 1 << 20, h <= 1 << 20 else {
            throw .invalidImage(format: "TIFF", reason: "size \(w)x\(h)")
        }
        let bits = image.bitsPerSample
        switch bits {
        case 8 where image.pixels8.count == n, 16 where image.pixels16.count == n: break
        case 8, 16: throw .invalidImage(format: "TIFF", reason: "pixel buffer does not hold \(w)x\(h) RGB samples")
        default: throw .invalidImage(format: "TIFF", reason: "\(bits) bits per sample (8 or 16 supported)")
        }
        let tiff = try MemoryTIFF()
        let rowBytes = w * 3 * bits / 8
        let rowsPerStrip = max(1, 65536 / rowBytes)
        try tiff.set(TIFFTAG_IMAGEWIDTH, u32: UInt32(w))
        try tiff.set(TIFFTAG_IMAGELENGTH, u32: UInt32(h))
        try tiff.set(TIFFTAG_BITSPERSAMPLE, u16: UInt16(bits))
        try tiff.set(TIFFTAG_SAMPLESPERPIXEL, u16: 3)
        try tiff.set(TIFFTAG_PHOTOMETRIC, u16: UInt16(PHOTOMETRIC_RGB))
        try tiff.set(TIFFTAG_PLANARCONFIG, u16: UInt16(PLANARCONFIG_CONTIG))
        try tiff.set(TIFFTAG_ORIENTATION, u16: UInt16(ORIENTATION_TOPLEFT))
        try tiff.set(TIFFTAG_ROWSPERSTRIP, u32: UInt32(rowsPerStrip))
        try tiff.set(TIFFTAG_XRESOLUTION, double: 72)
        try tiff.set(TIFFTAG_YRESOLUTION, double: 72)
        try tiff.set(TIFFTAG_RESOLUTIONUNIT, u16: UInt16(RESUNIT_INCH))
        if options.deflate {
            try tiff.set(TIFFTAG_COMPRESSION, u16: UInt16(COMPRESSION_ADOBE_DEFLATE))
            try tiff.set(TIFFTAG_PREDICTOR, u16: UInt16(PREDICTOR_HORIZONTAL))
        } else {
            try tiff.set(TIFFTAG_COMPRESSION, u16: UInt16(COMPRESSION_NONE))
        }
        try tiff.set(TIFFTAG_MAKE, string: image.exif.make)
        try tiff.set(TIFFTAG_MODEL, string: image.exif.model)
        try tiff.set(TIFFTAG_SOFTWARE, string: "Darkroom \(DarkroomVersion.string)")
        try tiff.set(TIFFTAG_DATETIME, string: options.dateTime ?? ExifWriter.dateTimeNow())
        try tiff.set(TIFFTAG_ARTIST, string: image.exif.artist)
        try tiff.set(TIFFTAG_COPYRIGHT, string: image.exif.copyright)
        try tiff.set(TIFFTAG_ICCPROFILE, bytes: image.iccProfile)

        func strips(_ b: UnsafeRawBufferPointer) -> Result<[UInt8], EncodeError> {
            Result { () throws(EncodeError) in try tiff.finish(strips: b, rowBytes: rowBytes, height: h, rowsPerStrip: rowsPerStrip) }
        }
        return try (bits == 8 ? image.pixels8.withUnsafeBytes(strips) : image.pixels16.withUnsafeBytes(strips)).get()
    }
}
