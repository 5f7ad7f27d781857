/// A rectangle in pixel coordinates: origin (x, y) and size.
public struct PixelRect: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var x: Int, y: Int, width: Int, height: Int
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    public func contains(_ other: PixelRect) -> Bool {
        other.x >= x && other.y >= y && other.maxX <= maxX && other.maxY <= maxY
    }
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// A camera colour profile, as the DNG specification (chapter 6) defines it, whether it came
/// from tags in the DNG itself or from an external `.dcp` file. Matrices are 3×3 because
/// Darkroom supports three-colour cameras; a missing optional tag is nil.
public struct CameraProfile: Sendable, Equatable, Codable {
    public var name: String?
    /// `CalibrationIlluminant1/2/3` (EXIF LightSource codes; 255 = "Other", see `illuminantData`).
    public var calibrationIlluminant1: Int?
    public var calibrationIlluminant2: Int?
    public var calibrationIlluminant3: Int?
    /// `IlluminantData1/2/3` (DNG 1.6) resolved to a white chromaticity, for illuminant 255.
    public var illuminantData1: Chromaticity?
    public var illuminantData2: Chromaticity?
    public var illuminantData3: Chromaticity?
    /// XYZ → reference camera space (`ColorMatrix1/2/3`).
    public var colorMatrix1: Matrix3?
    public var colorMatrix2: Matrix3?
    public var colorMatrix3: Matrix3?
    /// White-balanced camera → XYZ D50 (`ForwardMatrix1/2/3`).
    public var forwardMatrix1: Matrix3?
    public var forwardMatrix2: Matrix3?
    public var forwardMatrix3: Matrix3?
    /// `ReductionMatrix` is for cameras with more than three colours; not supported.
    /// `ProfileHueSatMapDims` (hue, sat, value divisions) and the tables (`ProfileHueSatMapData1/2/3`),
    /// each entry (hueShiftDegrees, saturationScale, valueScale).
    public var hueSatMapDims: [Int]?
    public var hueSatMapData1: [Float]?
    public var hueSatMapData2: [Float]?
    public var hueSatMapData3: [Float]?
    /// `ProfileHueSatMapEncoding`: 0 linear, 1 sRGB.
    public var hueSatMapEncoding: Int = 0
    public var lookTableDims: [Int]?
    public var lookTableData: [Float]?
    /// `ProfileLookTableEncoding`: 0 linear, 1 sRGB.
    public var lookTableEncoding: Int = 0
    /// `ProfileToneCurve` as (input, output) pairs in 0...1.
    public var toneCurve: [Float]?
    /// `BaselineExposureOffset` (DNG 1.4), stops, added to the file's BaselineExposure.
    public var baselineExposureOffset: Double?
    /// `DefaultBlackRender`: 0 auto, 1 none.
    public var defaultBlackRender: Int?
    public var embedPolicy: Int?
    public var copyright: String?
    /// `ProfileGainTableMap2` of this profile (DNG 1.7): when this profile renders, it replaces the
    /// file's map (`RawMetadata.profileGainTableMap`).
    public var profileGainTableMap: ProfileGainTableMap?

    public init() {}
}

/// A CIE 1931 xy chromaticity.
public struct Chromaticity: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    public var x: Double, y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
    public var description: String { "(\(format6(x)), \(format6(y)))" }
}

/// EXIF facts carried from the RAW into outputs.
public struct ExifInfo: Sendable, Equatable, Codable {
    public var make: String?
    public var model: String?
    public var lensMake: String?
    public var lensModel: String?
    public var software: String?
    public var artist: String?
    public var copyright: String?
    public var imageUniqueID: String?
    public var bodySerialNumber: String?
    /// "YYYY:MM:DD HH:MM:SS" as EXIF writes it.
    public var dateTimeOriginal: String?
    public var offsetTimeOriginal: String?
    public var subSecTimeOriginal: String?
    public var exposureTime: Double?
    public var fNumber: Double?
    public var isoSpeed: Int?
    public var focalLength: Double?
    public var focalLengthIn35mm: Int?
    public var exposureBias: Double?
    public var flash: Int?
    public var gps: GPSInfo?
    /// The raw XMP packet, when the file has one.
    public var xmp: String?
    public init() {}
}

/// The GPS block, in the units EXIF uses (degrees as decimal, metres).
public struct GPSInfo: Sendable, Equatable, Codable {
    public var latitude: Double?     // + north
    public var longitude: Double?    // + east
    public var altitude: Double?     // metres, + above sea level
    public var timeStamp: String?    // "HH:MM:SS" UTC
    public var dateStamp: String?    // "YYYY:MM:DD"
    public init() {}
}

/// An embedded preview image (usually a JPEG) inside a RAW file.
public struct EmbeddedPreview: Sendable, Equatable, Codable {
    public var offset: Int
    public var length: Int
    public var width: Int
    public var height: Int
    /// "jpeg" or "uncompressed".
    public var kind: String
    public init(offset: Int, length: Int, width: Int, height: Int, kind: String) {
        self.offset = offset; self.length = length; self.width = width; self.height = height; self.kind = kind
    }
}

/// Everything Darkroom knows about a RAW file besides its pixels.
///
/// Coordinates: `RawImage` pixels start at the top-left of `activeArea`; `defaultCrop` and
/// `cfa` are relative to that origin (the decoder has already applied ActiveArea).
public struct RawMetadata: Sendable, Equatable, Codable {
    public var fileFormat: String = "unknown"          // "DNG", "CR2", "bayer-dump", …
    public var dngVersion: [Int]?
    public var uniqueCameraModel: String?
    public var exif = ExifInfo()

    /// Full sensor size as stored, before ActiveArea.
    public var sensorWidth: Int = 0
    public var sensorHeight: Int = 0
    public var activeArea: PixelRect?
    /// `DefaultCropOrigin`/`DefaultCropSize` relative to the active area.
    public var defaultCrop: PixelRect?
    /// 1 for a CFA mosaic, 3 for LinearRaw.
    public var samplesPerPixel: Int = 1
    public var cfa: CFAPattern?
    public var bitsPerSample: Int = 16
    public var compression: Int?

    /// `BlackLevelRepeatDim` (rows, columns) and `BlackLevel` (rows × columns × samples values).
    public var blackLevelRepeatRows: Int = 1
    public var blackLevelRepeatColumns: Int = 1
    public var blackLevel: [Double] = [0]
    /// `BlackLevelDeltaH` (one per active column) and `BlackLevelDeltaV` (one per active row).
    public var blackLevelDeltaH: [Double]?
    public var blackLevelDeltaV: [Double]?
    /// `WhiteLevel`, one per sample.
    public var whiteLevel: [Double] = [65535]
    /// `LinearizationTable` (LibRaw applies it while unpacking; kept for `info`).
    public var linearizationTableCount: Int?

    /// EXIF/TIFF orientation 1...8.
    public var orientation: Int = 1
    public var asShotNeutral: [Double]?
    public var asShotWhiteXY: Chromaticity?
    public var analogBalance: [Double]?
    public var cameraCalibration1: Matrix3?
    public var cameraCalibration2: Matrix3?
    public var cameraCalibration3: Matrix3?
    public var cameraCalibrationSignature: String?
    public var baselineExposure: Double?
    public var baselineNoise: Double?
    public var baselineSharpness: Double?
    public var linearResponseLimit: Double?
    public var noiseProfile: [Double]?
    /// The profile stored in the DNG's own tags (IFD0), if any.
    public var profile: CameraProfile?
    /// Further profiles from `ExtraCameraProfiles`.
    public var extraProfiles: [CameraProfile] = []
    /// The file's gain table map: IFD 0's `ProfileGainTableMap2` (or `ProfileGainTableMap`), else
    /// the raw IFD's. Used unless the rendering profile has its own.
    public var profileGainTableMap: ProfileGainTableMap?

    /// `OpcodeList1/2/3` exactly as stored (big-endian byte streams).
    public var opcodeList1: [UInt8]?
    public var opcodeList2: [UInt8]?
    public var opcodeList3: [UInt8]?

    public var previews: [EmbeddedPreview] = []
    /// Non-fatal observations made while reading (unknown opcodes, odd tag values, …).
    public var warnings: [String] = []

    public init() {}
}
