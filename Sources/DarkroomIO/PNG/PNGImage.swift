/// A decoded 8-bit PNG: interleaved samples, `channels` per pixel (3 = RGB, 4 = RGBA), row-major.
public struct PNGImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 3 (RGB) or 4 (RGBA).
    public var channels: Int
    /// `width * height * channels` samples.
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * channels, "PNGImage sample count mismatch")
        self.width = width; self.height = height; self.channels = channels; self.pixels = pixels
    }
}
