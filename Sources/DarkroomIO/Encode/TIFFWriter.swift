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
/// Make/Model/Software/DateTime/Artist/Copyright. Strips of about 64 KB. A float image
/// (`bitsPerSample` 32, `pixels32`) is written as 32-bit IEEE floating point (SampleFormat 3,
/// Deflate with the floating-point predictor 3): linear values, not clipped.
public enum TIFFWriter {
    public static func encode(_ image: RenderedImage, options: TIFFOptions = .init()) throws(EncodeError) -> [UInt8] {
        let w = image.width, h = image.height, n = w * h * 3
        guard w > 0, h > 0, w <= 1 << 20, h <= 1 << 20 else {
            throw .invalidImage(format: "TIFF", reason: "size \(w)x\(h)")
        }
        let bits = image.bitsPerSample
        switch bits {
        case 8 where image.pixels8.count == n, 16 where image.pixels16.count == n, 32 where image.pixels32.count == n: break
        case 8, 16, 32: throw .invalidImage(format: "TIFF", reason: "pixel buffer does not hold \(w)x\(h) RGB samples")
        default: throw .invalidImage(format: "TIFF", reason: "\(bits) bits per sample (8, 16 or 32 supported)")
        }
        do throws(TIFFError) { return try write(image, options: options) } catch {
            throw .library(format: "TIFF", call: "libtiff", message: error.description)
        }
    }

    private static func write(_ image: RenderedImage, options: TIFFOptions) throws(TIFFError) -> [UInt8] {
        let w = image.width, h = image.height, bits = image.bitsPerSample
        let tiff = try LibTIFFWriter.inMemory()
        let rowBytes = w * 3 * bits / 8
        let rowsPerStrip = max(1, 65536 / rowBytes)
        try tiff.set(UInt16(TIFFTAG_IMAGEWIDTH), .ints([UInt32(w)]))
        try tiff.set(UInt16(TIFFTAG_IMAGELENGTH), .ints([UInt32(h)]))
        try tiff.set(UInt16(TIFFTAG_BITSPERSAMPLE), .ints([UInt32(bits)]))
        if bits == 32 { try tiff.setScalar(UInt16(TIFFTAG_SAMPLEFORMAT), UInt32(SAMPLEFORMAT_IEEEFP)) }
        try tiff.set(UInt16(TIFFTAG_SAMPLESPERPIXEL), .ints([UInt32(3)]))
        try tiff.set(UInt16(TIFFTAG_PHOTOMETRIC), .ints([UInt32(PHOTOMETRIC_RGB)]))
        try tiff.set(UInt16(TIFFTAG_PLANARCONFIG), .ints([UInt32(PLANARCONFIG_CONTIG)]))
        try tiff.set(UInt16(TIFFTAG_ORIENTATION), .ints([UInt32(ORIENTATION_TOPLEFT)]))
        try tiff.set(UInt16(TIFFTAG_ROWSPERSTRIP), .ints([UInt32(rowsPerStrip)]))
        try tiff.set(UInt16(TIFFTAG_XRESOLUTION), .reals([72]))
        try tiff.set(UInt16(TIFFTAG_YRESOLUTION), .reals([72]))
        try tiff.set(UInt16(TIFFTAG_RESOLUTIONUNIT), .ints([UInt32(RESUNIT_INCH)]))
        if options.deflate {
            try tiff.set(UInt16(TIFFTAG_COMPRESSION), .ints([UInt32(COMPRESSION_ADOBE_DEFLATE)]))
            try tiff.set(UInt16(TIFFTAG_PREDICTOR), .ints([UInt32(bits == 32 ? PREDICTOR_FLOATINGPOINT : PREDICTOR_HORIZONTAL)]))
        } else {
            try tiff.set(UInt16(TIFFTAG_COMPRESSION), .ints([UInt32(COMPRESSION_NONE)]))
        }
        try tiff.set(UInt16(TIFFTAG_MAKE), ascii: image.exif.make)
        try tiff.set(UInt16(TIFFTAG_MODEL), ascii: image.exif.model)
        try tiff.set(UInt16(TIFFTAG_SOFTWARE), ascii: "Darkroom \(DarkroomVersion.string)")
        try tiff.set(UInt16(TIFFTAG_DATETIME), ascii: options.dateTime ?? ExifWriter.dateTimeNow())
        try tiff.set(UInt16(TIFFTAG_ARTIST), ascii: image.exif.artist)
        try tiff.set(UInt16(TIFFTAG_COPYRIGHT), ascii: image.exif.copyright)
        try tiff.set(UInt16(TIFFTAG_ICCPROFILE), .bytes(image.iccProfile))

        func strips(_ b: UnsafeRawBufferPointer) -> Result<[UInt8], TIFFError> {
            Result { () throws(TIFFError) in try tiff.finish(strips: b, rowBytes: rowBytes, height: h, rowsPerStrip: rowsPerStrip) }
        }
        if bits == 32 { return try image.pixels32.withUnsafeBytes(strips).get() }
        return try (bits == 8 ? image.pixels8.withUnsafeBytes(strips) : image.pixels16.withUnsafeBytes(strips)).get()
    }
}
