/// A lens model resolved for one image (size, focal length, aperture, distance): the per-pixel
/// functions of a lens correction. DarkroomIO implements it with lensfun's `lfModifier`; Core
/// only calls it.
///
/// Coordinates are pixel indices of the decoded (active-area) image, x to the right, y down,
/// pixel centres at integers. Implementations must be safe to call from several threads at once
/// and must give each pixel a value that depends only on (x0, y, count) of the call — the
/// caller (`LensResampler`) always asks for the same fixed column blocks, so a kernel that
/// accumulates along a row still gives the same bits for any tile size or thread count.
public protocol LensModifier: Sendable {
    /// Source positions for the corrected pixels (x0 + i, y), i in 0..<count: 6 floats per pixel,
    /// (x, y) in the uncorrected image for red, green and blue, distortion and TCA together.
    func sourcePositions(x0: Int, y: Int, count: Int, into positions: UnsafeMutablePointer<Float>)

    /// Multiplies `count` interleaved RGB pixels, those at (x0 + i, y) of the uncorrected image,
    /// by the vignetting correction gain (≥ 1 where the lens darkens).
    func correctVignetting(_ rgb: UnsafeMutablePointer<Float>, x0: Int, y: Int, count: Int)

    /// The vignetting correction gain of the `count` pixels at (x0 + i, y) of the uncorrected
    /// image, one float per pixel (the gain `correctVignetting` multiplies every channel by).
    func vignettingGains(x0: Int, y: Int, count: Int, into gains: UnsafeMutablePointer<Float>)

    /// The vignetting gain as a radial model, when the implementation has checked that it gives
    /// its own gains (`vignettingGains`) to within a relative 1e-4; nil: ask `vignettingGains`.
    var radialVignetting: RadialVignetting? { get }

    /// Bounds (in pixels of the uncorrected image) that every source position `sourcePositions`
    /// gives the pixels of `tile` lies within, every channel, when the implementation can bound
    /// them without computing them (`LensResampler` then asks the positions one row at a time
    /// during the resample instead of storing the tile's); nil: it cannot (or a position is NaN).
    func sourceBounds(of tile: PixelRect) -> SourceBounds?
}

/// A rectangle of source positions, in pixels of the uncorrected image (`LensModifier.sourceBounds`).
public struct SourceBounds: Sendable, Equatable {
    public var minX: Float, minY: Float, maxX: Float, maxY: Float
    public init(minX: Float, minY: Float, maxX: Float, maxY: Float) {
        self.minX = minX; self.minY = minY; self.maxX = maxX; self.maxY = maxY
    }
}

extension LensModifier {
    /// None: the gains come from `vignettingGains`.
    public var radialVignetting: RadialVignetting? { nil }

    /// None: the positions are computed and stored for the tile first.
    public func sourceBounds(of tile: PixelRect) -> SourceBounds? { nil }

    /// Through `correctVignetting` on white pixels (the green channel's gain).
    public func vignettingGains(x0: Int, y: Int, count: Int, into gains: UnsafeMutablePointer<Float>) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: max(count, 1) * 3) { buffer in
            let rgb = buffer.baseAddress!
            rgb.update(repeating: 1, count: count * 3)
            correctVignetting(rgb, x0: x0, y: y, count: count)
            for i in 0..<count { gains[i] = rgb[i * 3 + 1] }
        }
    }
}
