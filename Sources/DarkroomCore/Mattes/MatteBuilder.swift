import Dispatch
import Foundation

/// Computes Darkroom's own auxiliary planes from a developed image (and, for clipping, the raw
/// mosaic it came from). Every plane is 8-bit, half the output's width and height rounded up
/// (as Apple's mattes are), in the output's cropped and oriented geometry: plane pixel
/// (x, y) covers output pixels 2x…2x+1 × 2y…2y+1 (one or two at odd right/bottom edges).
///
/// - `.gamut` — how far the colour lies outside sRGB when the output space is wider. The block's
///   output pixels are decoded (`plan.recipe.colorSpace.transfer.decode`), averaged in linear
///   light, converted output linear → XYZ D50 → linear sRGB (`linearRGBToXYZD50`,
///   `OutputColorSpace.srgb.xyzD50ToLinearRGB`), and the distance outside the unit cube is
///   `d = max(−min(r, g, b), max(r, g, b) − 1, 0)` (linear sRGB, white = 1). The plane is
///   `255 · clamp((d − gamutTolerance) / gamutRamp, 0, 1)`: 0 up to 0.002 outside (quantisation
///   and dither of in-gamut colours stay 0), 255 from 0.102 outside. All zero when the output
///   primaries are sRGB's (sRGB, linear sRGB).
/// - `.clipping` — 255 where the sensor saturated or the output clipped, else 0; see
///   `MatteBuilder.clipping`.
/// - `.skin` — `SkinModel.standard` membership × 255 of the block's mean colour in CIE Lab (D50).
///
/// Other kinds (Apple's semantic mattes, `.confidence`) cannot be computed from colour and are
/// skipped: they come from supplied files (`SuppliedMatte` in DarkroomIO).
/// Deterministic: each plane pixel is a pure function of its block; rows run in parallel.
public enum MatteBuilder {
    /// Linear-sRGB distance outside the cube below which the gamut matte stays 0.
    public static let gamutTolerance: Float = 0.002
    /// Linear-sRGB distance over which the gamut matte ramps from 0 to 255.
    public static let gamutRamp: Float = 0.1

    /// The kinds this builder can compute.
    public static let computableKinds: Set<MatteKind> = [.gamut, .clipping, .skin]

    /// Plane size for an output of `width × height`: half, rounded up.
    public static func planeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + 1) / 2, (height + 1) / 2)
    }

    /// The requested computable planes, in request order (duplicates and non-computable kinds skipped).
    public static func computed(_ kinds: [MatteKind], image: RenderedImage, raw: RawImage,
                                plan: DevelopPlan) -> [AuxiliaryPlane] {
        var seen = Set<MatteKind>()
        var out: [AuxiliaryPlane] = []
        for kind in kinds where computableKinds.contains(kind) && seen.insert(kind).inserted {
            switch kind {
            case .gamut: out.append(gamut(image: image, space: plan.recipe.colorSpace))
            case .skin: out.append(skin(image: image, space: plan.recipe.colorSpace))
            case .clipping: out.append(clipping(image: image, raw: raw, plan: plan))
            default: break
            }
        }
        return out
    }

    /// The gamut plane of `image`, whose pixels are encoded in `space` (see the type's doc).
    public static func gamut(image: RenderedImage, space: OutputColorSpace) -> AuxiliaryPlane {
        let (w, h) = planeSize(width: image.width, height: image.height)
        if space.linearVariant == .srgbLinear {
            return AuxiliaryPlane(kind: .gamut, width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h))
        }
        let m = floatMatrix(OutputColorSpace.srgb.xyzD50ToLinearRGB * space.linearRGBToXYZD50)
        let tolerance = gamutTolerance, ramp = gamutRamp
        let pixels = mapBlocks(image, space: space) { rgb in
            let s = m.0 * rgb.x + m.1 * rgb.y + m.2 * rgb.z
            let d = max(0, max(-s.min(), s.max() - 1))
            let v = (d - tolerance) / ramp
            return v <= 0 ? 0 : (v >= 1 ? 255 : UInt8((v * 255).rounded()))
        }
        return AuxiliaryPlane(kind: .gamut, width: w, height: h, pixels: pixels)
    }

    /// The skin-likelihood plane of `image` (encoded in `space`), using `model`.
    public static func skin(image: RenderedImage, space: OutputColorSpace, model: SkinModel = .standard) -> AuxiliaryPlane {
        let (w, h) = planeSize(width: image.width, height: image.height)
        let toXYZ = floatMatrix(space.linearRGBToXYZD50)
        let white = ColorMath.xyToXYZ(ColorMath.d50)
        let invWhite = SIMD3<Float>(Float(1 / white.x), Float(1 / white.y), Float(1 / white.z))
        let pixels = mapBlocks(image, space: space) { rgb in
            let xyz = (toXYZ.0 * rgb.x + toXYZ.1 * rgb.y + toXYZ.2 * rgb.z) * invWhite
            let fx = labF(xyz.x), fy = labF(xyz.y), fz = labF(xyz.z)
            let m = model.membership(L: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
            return UInt8((m * 255).rounded())
        }
        return AuxiliaryPlane(kind: .skin, width: w, height: h, pixels: pixels)
    }

    // MARK: - Shared machinery

    /// CIE Lab's f(t): cube root above (6/29)³, linear below (CIE 15:2004 §8.2.1).
    @inline(__always)
    static func labF(_ t: Float) -> Float {
        t > 216 / 24389 ? cbrtf(t) : (24389 / 27 * t + 16) / 116
    }

    /// A matrix as its three columns (so `M·v = c0·v.x + c1·v.y + c2·v.z` vectorises).
    static func floatMatrix(_ m: Matrix3) -> (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>) {
        func col(_ c: Int) -> SIMD3<Float> { SIMD3(Float(m[0, c]), Float(m[1, c]), Float(m[2, c])) }
        return (col(0), col(1), col(2))
    }

    /// Decode table from code value to linear light for the image's bit depth.
    static func decodeTable(bits: Int, transfer: TransferFunction) -> [Float] {
        let maxCode = bits == 16 ? 65535 : 255
        return (0...maxCode).map { Float(transfer.decode(Double($0) / Double(maxCode))) }
    }

    /// Read-only views and the output plane, shared by the row bands (each band writes its own rows).
    struct BlockViews: @unchecked Sendable {
        let p8: UnsafeBufferPointer<UInt8>
        let p16: UnsafeBufferPointer<UInt16>
        let table: UnsafeBufferPointer<Float>
        let raw: UnsafeBufferPointer<UInt16>
        let out: UnsafeMutablePointer<UInt8>
    }

    /// Runs `body` on the mean linear RGB of each 2×2 output block, rows of the plane in parallel.
    static func mapBlocks(_ image: RenderedImage, space: OutputColorSpace,
                          _ body: @Sendable (SIMD3<Float>) -> UInt8) -> [UInt8] {
        let (pw, ph) = planeSize(width: image.width, height: image.height)
        var out = [UInt8](repeating: 0, count: pw * ph)
        let sixteen = image.bitsPerSample == 16
        let expected = image.width * image.height * 3
        guard pw > 0, ph > 0, sixteen ? image.pixels16.count == expected : image.pixels8.count == expected else {
            return out
        }
        let lut = decodeTable(bits: sixteen ? 16 : 8, transfer: space.transfer)
        let width = image.width, height = image.height
        let bands = min(ph, 4 * ProcessInfo.processInfo.activeProcessorCount)
        lut.withUnsafeBufferPointer { table in
        image.pixels8.withUnsafeBufferPointer { p8 in
        image.pixels16.withUnsafeBufferPointer { p16 in
        out.withUnsafeMutableBufferPointer { o in
            guard let ob = o.baseAddress else { return }
            let v = BlockViews(p8: p8, p16: p16, table: table, raw: UnsafeBufferPointer(start: nil, count: 0), out: ob)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                let p8 = v.p8, p16 = v.p16, table = v.table
                let y0 = band * ph / bands, y1 = (band + 1) * ph / bands
                for py in y0..<y1 {
                    let ry0 = 2 * py, ry1 = min(2 * py + 2, height)
                    for px in 0..<pw {
                        let rx0 = 2 * px, rx1 = min(2 * px + 2, width)
                        var sum = SIMD3<Float>(repeating: 0)
                        for y in ry0..<ry1 {
                            for x in rx0..<rx1 {
                                let i = (y * width + x) * 3
                                if sixteen {
                                    sum += SIMD3(table[Int(p16[i])], table[Int(p16[i + 1])], table[Int(p16[i + 2])])
                                } else {
                                    sum += SIMD3(table[Int(p8[i])], table[Int(p8[i + 1])], table[Int(p8[i + 2])])
                                }
                            }
                        }
                        let n = Float((ry1 - ry0) * (rx1 - rx0))
                        v.out[py * pw + px] = body(sum / n)
                    }
                }
            }
        }
        }
        }
        }
        return out
    }
}
