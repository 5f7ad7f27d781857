import Foundation

/// What `OutputInspector` found in an encoded file, read back with independent readers
/// (libjpeg-turbo, libheif, libtiff) and our own marker/IFD walk.
public struct OutputSummary: Codable, Sendable, Equatable {
    public enum Format: String, Codable, Sendable { case jpeg, heif, tiff }

    public struct Size: Codable, Sendable, Equatable {
        public var width: Int
        public var height: Int
        public init(width: Int, height: Int) { self.width = width; self.height = height }
    }

    /// An auxiliary image: HEIF `auxl` item with its `auxC` URN, or a JPEG MPF secondary image
    /// whose XMP names `apdi:AuxiliaryImageType`.
    public struct AuxiliaryPlane: Codable, Sendable, Equatable {
        public var urn: String
        public var width: Int
        public var height: Int
        public init(urn: String, width: Int, height: Int) { self.urn = urn; self.width = width; self.height = height }
    }

    public var format: Format
    public var width: Int
    public var height: Int
    /// Bits per sample of the primary image (HEIF: luma bit depth).
    public var bitsPerSample: Int
    /// The embedded ICC profile, reassembled (JPEG APP2 chunks) or as stored.
    public var iccProfile: [UInt8]?
    /// The profile's `desc` text (via lcms2), when it parses.
    public var iccDescription: String?
    /// HEIF only: whether an `nclx` colour box is present besides / instead of `prof`.
    public var hasNCLX: Bool
    /// EXIF (or TIFF IFD0) Orientation.
    public var orientation: Int?
    /// EXIF/TIFF fields present, by spec tag name (e.g. "Make", "DateTimeOriginal", "FNumber").
    public var exif: [String: String]
    /// Size of the XMP packet, if any.
    public var xmpBytes: Int?
    /// JPEG IFD1 thumbnail or HEIF `thmb` item.
    public var thumbnail: Size?
    public var auxiliaryPlanes: [AuxiliaryPlane]

    public init(format: Format, width: Int, height: Int, bitsPerSample: Int) {
        self.format = format; self.width = width; self.height = height; self.bitsPerSample = bitsPerSample
        iccProfile = nil; iccDescription = nil; hasNCLX = false; orientation = nil; exif = [:]
        xmpBytes = nil; thumbnail = nil; auxiliaryPlanes = []
    }

    // JSON: the ICC profile as base64 (`Data`'s encoding) plus its size, not a 600-line number array.
    private enum CodingKeys: String, CodingKey {
        case format, width, height, bitsPerSample, iccProfile, iccProfileBytes, iccDescription, hasNCLX
        case orientation, exif, xmpBytes, thumbnail, auxiliaryPlanes
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(Format.self, forKey: .format)
        width = try c.decode(Int.self, forKey: .width)
        height = try c.decode(Int.self, forKey: .height)
        bitsPerSample = try c.decode(Int.self, forKey: .bitsPerSample)
        iccProfile = try c.decodeIfPresent(Data.self, forKey: .iccProfile).map { [UInt8]($0) }
        iccDescription = try c.decodeIfPresent(String.self, forKey: .iccDescription)
        hasNCLX = try c.decode(Bool.self, forKey: .hasNCLX)
        orientation = try c.decodeIfPresent(Int.self, forKey: .orientation)
        exif = try c.decode([String: String].self, forKey: .exif)
        xmpBytes = try c.decodeIfPresent(Int.self, forKey: .xmpBytes)
        thumbnail = try c.decodeIfPresent(Size.self, forKey: .thumbnail)
        auxiliaryPlanes = try c.decode([AuxiliaryPlane].self, forKey: .auxiliaryPlanes)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(bitsPerSample, forKey: .bitsPerSample)
        try c.encodeIfPresent(iccProfile.map { Data($0) }, forKey: .iccProfile)
        try c.encodeIfPresent(iccProfile?.count, forKey: .iccProfileBytes)
        try c.encodeIfPresent(iccDescription, forKey: .iccDescription)
        try c.encode(hasNCLX, forKey: .hasNCLX)
        try c.encodeIfPresent(orientation, forKey: .orientation)
        try c.encode(exif, forKey: .exif)
        try c.encodeIfPresent(xmpBytes, forKey: .xmpBytes)
        try c.encodeIfPresent(thumbnail, forKey: .thumbnail)
        try c.encode(auxiliaryPlanes, forKey: .auxiliaryPlanes)
    }
}
