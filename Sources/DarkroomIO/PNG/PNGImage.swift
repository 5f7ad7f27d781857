/// A decoded PNG: interleaved samples, `channels` per pixel (1 = grey, 2 = grey + alpha,
/// 3 = RGB, 4 = RGBA), row-major. `pixels` always holds 8-bit samples; 16-bit files also keep
/// their exact samples in `samples16`.
public struct PNGImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1, 2, 3 or 4.
    public var channels: Int
    /// `width * height * channels` 8-bit samples (16-bit files rounded: `(v · 255 + 32767) / 65535`).
    public var pixels: [UInt8]
    /// The exact samples of a 16-bit file (`width * height * channels`), else empty.
    public var samples16: [UInt16]

    public var bitsPerSample: Int { samples16.isEmpty ? 8 : 16 }

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8], samples16: [UInt16] = []) {
        precondition(pixels.count == width * height * channels, "PNGImage sample count mismatch")
        precondition(samples16.isEmpty || samples16.count == pixels.count, "PNGImage 16-bit sample count mismatch")
        self.width = width; self.height = height; self.channels = channels
        self.pixels = pixels; self.samples16 = samples16
    }
}
