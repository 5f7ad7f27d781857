import CLensfun
import DarkroomCore

/// `LensModifier` through lensfun's `lfModifier` (correcting, not simulating: lensfun's
/// `reverse = false`), for one image size, focal length, aperture and distance.
///
/// lensfun's kernels step along a row by repeated addition, so the coordinates of a pixel depend
/// on where the call starts; `LensResampler` always starts calls at the same fixed column blocks.
/// The modifier is only read after `init`, so concurrent calls are safe.
final class LensfunModifier: LensModifier, @unchecked Sendable {
    private let modifier: UnsafeMutablePointer<lfModifier>
    /// The corrections lensfun set up (`LF_MODIFY_*` bits).
    let appliedFlags: Int32

    /// lensfun's component roles for interleaved R, G, B (`LF_CR_3(RED, GREEN, BLUE)`).
    private static let rgbRole = Int32(LF_CR_RED.rawValue) | Int32(LF_CR_GREEN.rawValue) << 4 | Int32(LF_CR_BLUE.rawValue) << 8

    /// A modifier for `lens` on a sensor of `cropFactor`, an image `width × height`, with the
    /// corrections in `flags` (`LF_MODIFY_*`) at `scale`; nil when lensfun cannot build one.
    init?(lens: UnsafePointer<lfLens>, cropFactor: Float, width: Int, height: Int, focal: Float, aperture: Float,
          distance: Float, scale: Float, flags: Int32) {
        guard width > 0, height > 0, width <= Int(Int32.max), height <= Int(Int32.max),
              let m = lf_modifier_new(lens, cropFactor, Int32(width), Int32(height)) else { return nil }
        modifier = m
        var wanted = flags
        if scale != 1 { wanted |= Int32(LF_MODIFY_SCALE) }
        appliedFlags = lf_modifier_initialize(m, lens, LF_PF_F32, focal, aperture, distance, scale, lens.pointee.`Type`,
                                              wanted, 0)
    }

    deinit { lf_modifier_destroy(modifier) }

    /// lensfun's scale that makes the corrected image fill the frame (1 when nothing moves).
    var autoScale: Float { lf_modifier_get_auto_scale(modifier, 0) }

    func sourcePositions(x0: Int, y: Int, count: Int, into positions: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        if lf_modifier_apply_subpixel_geometry_distortion(modifier, Float(x0), Float(y), Int32(count), 1, positions) == 0 {
            // Nothing moves: every channel reads its own pixel.
            for i in 0..<count {
                for c in 0..<3 { positions[i * 6 + 2 * c] = Float(x0 + i); positions[i * 6 + 2 * c + 1] = Float(y) }
            }
        }
    }

    /// lensfun's gain on a row of ones (one intensity component per pixel: a third of the work of
    /// correcting interleaved RGB, where every component gets the same gain).
    func vignettingGains(x0: Int, y: Int, count: Int, into gains: UnsafeMutablePointer<Float>) {
        guard count > 0 else { return }
        gains.update(repeating: 1, count: count)
        _ = lf_modifier_apply_color_modification(modifier, gains, Float(x0), Float(y), Int32(count), 1,
                                                 Int32(LF_CR_INTENSITY.rawValue), Int32(count * MemoryLayout<Float>.size))
    }

    func correctVignetting(_ rgb: UnsafeMutablePointer<Float>, x0: Int, y: Int, count: Int) {
        guard count > 0 else { return }
        _ = lf_modifier_apply_color_modification(modifier, rgb, Float(x0), Float(y), Int32(count), 1, Self.rgbRole,
                                                 Int32(count * 3 * MemoryLayout<Float>.size))
    }
}
