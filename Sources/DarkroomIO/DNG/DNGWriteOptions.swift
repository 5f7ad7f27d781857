import DarkroomCore

/// How `DNGWriter` lays out a DNG.
public struct DNGWriteOptions: Sendable {
    /// Rows per strip when `tileSize` is nil.
    public var rowsPerStrip: Int
    /// Square tiles of this size (a multiple of 16, as TIFF requires) instead of strips.
    public var tileSize: Int?
    /// An optional small preview, written as IFD0 with the raw image in its SubIFD.
    public var preview: DNGPreview?
    /// `Software` tag; defaults to the metadata's EXIF software, else "Darkroom".
    public var software: String?
    /// `DateTime` tag ("YYYY:MM:DD HH:MM:SS"); nil writes the current UTC time.
    public var dateTime: String?
    /// How the raw samples are stored. Default uncompressed.
    public var compression: DNGCompression
    /// When set, the image holds every stored sample (the whole sensor, as `metadata.sensorWidth
    /// × sensorHeight`) and this rectangle is written as ActiveArea; CFA pattern, black levels and
    /// DefaultCrop stay relative to its origin, as in `RawMetadata`. Nil: the image is the active
    /// area and no ActiveArea tag is written.
    public var activeArea: PixelRect?
    /// LinearizationTable written in the raw IFD: the image's samples are stored values before it.
    public var linearizationTable: [UInt16]?
    /// Threads that encode lossless-JPEG tiles (0 = one per core). Changes speed, never bytes.
    public var threads: Int = 1
    /// Writes RawImageDigest and NewRawImageDigest (IFD0), computed as the DNG SDK does (`RawDigest`).
    public var rawDigests = false
    /// A JPEG preview written as a second SubIFD after the raw image (NewSubFileType 1,
    /// Compression 7, YCbCr), as Adobe's converter lays it out.
    public var jpegPreview: DNGJPEGPreview?
    /// Writes the EXIF capture facts of `metadata.exif` into IFD0 as TIFF/EP allows (ExposureTime,
    /// FNumber, ISOSpeedRatings, FocalLength, FocalLengthIn35mmFilm, LensMake, LensModel).
    public var captureTags = false
    /// Embedded original file (OriginalRawFileName, OriginalRawFileData, OriginalRawFileDigest).
    public var originalRawFile: DNGOriginalRawFile?

    public init(rowsPerStrip: Int = 64, tileSize: Int? = nil, preview: DNGPreview? = nil,
                software: String? = nil, dateTime: String? = nil, compression: DNGCompression = .uncompressed) {
        self.rowsPerStrip = rowsPerStrip; self.tileSize = tileSize; self.preview = preview
        self.software = software; self.dateTime = dateTime; self.compression = compression
    }
}

/// Storage of the raw IFD's samples.
public enum DNGCompression: Sendable, Equatable {
    /// Compression 1: 16-bit containers.
    case uncompressed
    /// Compression 7: one lossless JPEG stream (`LosslessJPEGEncoder`, predictor 1) per strip or
    /// tile, BitsPerSample = its precision P: the metadata's `bitsPerSample` (clamped to 2…16), or
    /// more if a sample needs it. `components` 2 codes a row of W samples as W/2 columns ×
    /// 2 components (the usual DNG layout; needs an even block width × SamplesPerPixel), 1 as W
    /// columns; LinearRaw always uses one component per sample. LibRaw 0.20 reads only the first
    /// strip's stream of such a file: use tiles, or one strip (`rowsPerStrip` ≥ the height).
    case losslessJPEG(components: Int = 2)
    /// Compression 52546 (DNG 1.7): one lossless JPEG XL codestream per tile (`JXLTileEncoder`,
    /// 16-bit samples, BitsPerSample 16), tiles only. A CFA image is stored as its 2×2 fields
    /// (RowInterleaveFactor = ColumnInterleaveFactor = 2: each colour plane a smooth image, the
    /// layout the DNG SDK's `-losslessJXL` writes); LinearRaw as it is. JXLDistance 0 and
    /// JXLEffort `effort` (1…9) are recorded; DNGVersion and DNGBackwardVersion become 1.7.1
    /// (ColumnInterleaveFactor is a DNG 1.7.1 tag).
    case jpegXL(effort: Int = 7)
}

/// An 8-bit RGB preview, interleaved, row-major.
public struct DNGPreview: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var rgb: [UInt8]
    public init(width: Int, height: Int, rgb: [UInt8]) {
        self.width = width; self.height = height; self.rgb = rgb
    }
}

/// A complete baseline JPEG (SOI…EOI) of `width × height` 8-bit YCbCr pixels, chroma subsampled
/// `subsampling` (horizontal, vertical: [1, 1] or [2, 2]).
public struct DNGJPEGPreview: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var subsampling: [Int]
    public var jpeg: [UInt8]
    public init(width: Int, height: Int, subsampling: [Int], jpeg: [UInt8]) {
        self.width = width; self.height = height; self.subsampling = subsampling; self.jpeg = jpeg
    }
}
