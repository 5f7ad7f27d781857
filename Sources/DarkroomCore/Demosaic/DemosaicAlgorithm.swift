/// The demosaicing algorithms Darkroom offers (`--demosaic`).
public enum DemosaicAlgorithm: String, Sendable, Codable, CaseIterable {
    case bilinear
    case malvar      // Malvar, He & Cutler 2004, gradient-corrected bilinear
    case ahd         // Hirakawa & Parks 2005, adaptive homogeneity-directed
    case rcd         // Sanz Rodríguez 2017, ratio-corrected demosaicing
    case mlri        // Kiku et al., minimised-Laplacian residual interpolation

    /// The algorithm used when the recipe does not name one (chosen by measured Kodak-24 CPSNR and speed).
    public static let `default`: DemosaicAlgorithm = .malvar
}

/// A demosaic kernel works on one rectangular region of a Bayer mosaic at a time.
///
/// Input: `width × height` floats, row-major (stride `width`): black-subtracted, white-balanced
/// sensor values normalised so 1.0 is the clipping point (values may slightly exceed 1);
/// `cfa` is the pattern as seen from the region's top-left pixel.
/// Output: three planes of the same size. Every output pixel at distance ≥ `halo` from each
/// region edge must equal what the kernel would compute for that pixel on an unbounded image
/// (so tiles overlapping by `halo` give bit-identical results whatever the tile size); pixels
/// closer to the edge may be anything finite. Kernels must never read or write outside the
/// given buffers, and must work for any region at least `2 * halo + 2` pixels on each side.
public protocol DemosaicKernel: Sendable {
    var halo: Int { get }
    func demosaic(mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                  red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                  blue: UnsafeMutablePointer<Float>)
}
