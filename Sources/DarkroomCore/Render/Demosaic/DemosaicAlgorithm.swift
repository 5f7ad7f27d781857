/// The demosaicing algorithms Darkroom offers (`--demosaic`); raw values are the CLI names.
public enum DemosaicAlgorithm: String, Sendable, Codable, CaseIterable {
    case bilinear    // reference: mean of nearest samples
    case malvar      // Malvar, He & Cutler 2004, gradient-corrected bilinear
    case rcd         // Sanz Rodríguez 2017, ratio-corrected demosaicing
    case gbtf        // Pekkucuksen & Altunbasak 2010, gradient-based threshold-free
    case ahd         // Hirakawa & Parks 2005, adaptive homogeneity-directed
    case mlri        // Kiku et al. 2014, minimized-Laplacian residual interpolation
    case hybrid      // MSG and MLRI blended by the local inter-channel correlation
    case msg         // Pekkucuksen & Altunbasak 2013, multiscale gradients, with colour-difference refinement
    case adaptive    // MSG where the channels correlate, blended toward MLRI (evaluated only there) where not
    case msgd        // MSG with sharper weights, diagonal green-gradient weights and a green-guided refinement
    case adaptiveRI = "adaptive-ri"   // msgd where the channels correlate, blended toward a quad-level residual interpolation where not

    /// The algorithm used when the recipe does not name one, chosen on three demosaic benchmarks
    /// (`make bench-demosaic`, README "Demosaic"): adaptive-ri (msgd where the channels correlate,
    /// a quad-level residual interpolation blended in where they do not) is the only method here
    /// within 0.3 dB of the best on all three — Kodak 24 41.03 dB (msgd 41.03, mlri 40.12),
    /// saturated set 38.18 (mlri 38.26, msgd 36.08), McMaster 36.46 (mlri 36.20, msgd 35.18) — at
    /// ≈ 0.55–0.65× msg's speed (short of issue 14's 100 MP/s on 2 workers on the 2026-11-27 host;
    /// `--demosaic msg` is the fast choice).
    public static let `default`: DemosaicAlgorithm = .adaptiveRI
}

extension DemosaicAlgorithm {
    /// Pixels each side of a region a kernel needs to compute its interior exactly.
    public var halo: Int { makeKernel().halo }

    /// The colour-difference member a blend renders with on a mosaic smaller than its own
    /// `2 · halo + 2` pixels (`DevelopPlan`): adaptive-ri → msgd, adaptive and hybrid → msg; nil
    /// for the others (a mosaic too small for them is an error).
    public var smallImageMember: DemosaicAlgorithm? {
        switch self {
        case .adaptiveRI: return .msgd
        case .adaptive, .hybrid: return .msg
        default: return nil
        }
    }

    /// A kernel for this algorithm (stateless and `Sendable`: one value may serve every thread).
    public func makeKernel() -> any DemosaicKernel {
        switch self {
        case .bilinear: return BilinearDemosaic()
        case .malvar: return MalvarDemosaic()
        case .rcd: return RCDDemosaic()
        case .gbtf: return GBTFDemosaic()
        case .ahd: return AHDDemosaic()
        case .mlri: return MLRIDemosaic()
        case .hybrid: return HybridDemosaic()
        case .msg: return MSGDemosaic()
        case .adaptive: return AdaptiveDemosaic()
        case .msgd: return MSGDiagonalDemosaic()
        case .adaptiveRI: return AdaptiveRIDemosaic()
        }
    }
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
    /// The kernel whose noise transfer the noise-reduction calibrations measure
    /// (`NoiseReduction.demosaicNoise`: a flat mosaic with white noise in one CFA colour at a
    /// time). Itself, except for a correlation-adaptive kernel, to which that mosaic is maximally
    /// decorrelated content: it returns the member that renders correlated (real) content.
    var noiseCalibration: any DemosaicKernel { get }
    func demosaic(mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                  red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                  blue: UnsafeMutablePointer<Float>)
}

extension DemosaicKernel {
    public var noiseCalibration: any DemosaicKernel { self }
}
