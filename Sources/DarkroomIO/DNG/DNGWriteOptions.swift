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

    public init(rowsPerStrip: Int = 64, tileSize: Int? = nil, preview: DNGPreview? = nil,
                software: String? = nil, dateTime: String? = nil) {
        self.rowsPerStrip = rowsPerStrip; self.tileSize = tileSize; self.preview = preview
        self.software = software; self.dateTime = dateTime
    }
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
