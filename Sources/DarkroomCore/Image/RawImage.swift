/// Decoded sensor data: an unsigned 16-bit mosaic (one sample per pixel, `metadata.cfa` gives
/// the colour) or interleaved RGB for LinearRaw DNGs (three samples per pixel), starting at
/// the active area's top-left, plus everything known about the file.
public struct RawImage: Sendable {
    public var width: Int
    public var height: Int
    /// 1 (CFA mosaic) or 3 (LinearRaw, interleaved).
    public var samplesPerPixel: Int
    /// Row-major samples, `width * height * samplesPerPixel` of them, as stored (black not subtracted).
    public var pixels: [UInt16]
    public var metadata: RawMetadata

    public init(width: Int, height: Int, samplesPerPixel: Int, pixels: [UInt16], metadata: RawMetadata) {
        precondition(pixels.count == width * height * samplesPerPixel, "RawImage pixel count mismatch")
        self.width = width; self.height = height; self.samplesPerPixel = samplesPerPixel
        self.pixels = pixels; self.metadata = metadata
    }

    public var megapixels: Double { Double(width * height) / 1e6 }
}
