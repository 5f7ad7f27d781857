/// An 8-bit interleaved RGB image as the MediaPipe models take it (display-encoded, sRGB-like
/// values 0…255; row-major, `width * height * 3` bytes). The semantic-matte pipeline reads the
/// developed output through this type, so DarkroomNeural needs nothing from DarkroomCore.
public struct MatteInputImage: Sendable {
    public let width: Int
    public let height: Int
    public let pixels: [UInt8]

    /// `nil` unless `pixels.count == width * height * 3` with both sides positive.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0 else { return nil }
        let (wh, o1) = width.multipliedReportingOverflow(by: height)
        let (n, o2) = wh.multipliedReportingOverflow(by: 3)
        guard !o1, !o2, pixels.count == n else { return nil }
        self.width = width; self.height = height; self.pixels = pixels
    }
}
