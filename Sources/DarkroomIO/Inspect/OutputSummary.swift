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
}
