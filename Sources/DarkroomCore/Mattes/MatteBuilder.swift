import Dispatch
import Foundation

/// Computes Darkroom's own auxiliary planes from a developed image (and, for clipping, the raw
/// mosaic it came from). Every plane is 8-bit, half the output's width and height rounded up
/// (as Apple's mattes are), in the output's cropped and oriented geometry: plane pixel
/// (x, y) covers output pixels 2x…2x+1 × 2y…2y+1 (one or two at odd right/bottom edges).
/// As on iPhones, a plane's long side is at most `maximumLongSide` (2016, half of a 12 MP
/// 4032 × 3024 frame): larger half-size planes are area-averaged down to it (`fitted`), so for
/// outputs above 4032 px a plane pixel is the mean over the output pixels it covers.
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
/// - `.skinColor` — `SkinModel.standard` membership × 255 of the block's mean colour in CIE Lab
///   (D50), written under `urn:org:darkroom:aux:skincolormatte` (`--mattes skin-color`). Colour
///   alone cannot give Apple's segmentation matte: `--mattes skin` is the neural plane
///   (`SemanticMatteBuilder` in DarkroomIO), which uses this likelihood inside the person matte.
///
/// Other kinds are skipped here: the semantic ones (`MatteKind.semanticKinds`) are computed by
/// `SemanticMatteBuilder`, the rest come from supplied files (`SuppliedMatte` in DarkroomIO).
/// Deterministic: each plane pixel is a pure function of its block; rows run in parallel.
public enum MatteBuilder {
    /// Linear-sRGB distance outside the cube below which the gamut matte stays 0.
    public static let gamutTolerance: Float = 0.002
    /// Linear-sRGB distance over which the gamut matte ramps from 0 to 255.
    public static let gamutRamp: Float = 0.1

    /// The kinds this builder can compute.
    public static let computableKinds: Set<MatteKind> = [.gamut, .clipping, .skinColor]


    /// Longest side of any plane, in pixels (iPhones' mattes: 2016 × 1512 for a 12 MP frame).
    public static let maximumLongSide = 2016

    /// Plane size for an output of `width × height`: half, rounded up, then scaled to a long side
    /// of `maximumLongSide` when longer (the short side rounded to nearest, at least 1).
    public static func planeSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let (w, h) = blockPlaneSize(width: width, height: height)
        let long = max(w, h)
        guard long > maximumLongSide else { return (w, h) }
        let short = max(1, Int((Double(min(w, h)) * Double(maximumLongSide) / Double(long)).rounded()))
        return w >= h ? (maximumLongSide, short) : (short, maximumLongSide)
    }

    /// One plane pixel per 2 × 2 output block: half the output's size, rounded up.
    static func blockPlaneSize(width: Int, height: Int) -> (width: Int, height: Int) {
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
            case .skinColor: out.append(skin(image: image, space: plan.recipe.colorSpace))
            case .clipping: out.append(clipping(image: image, raw: raw, plan: plan))
            default: break
            }
        }
        return out
    }

    /// The gamut plane of `image`, whose pixels are encoded in `space` (see the type's doc).
    public static func gamut(image: RenderedImage, space: OutputColorSpace) -> AuxiliaryPlane {
        if space.linearVariant == .srgbLinear {
            let (w, h) = planeSize(width: image.width, height: image.height)
            return AuxiliaryPlane(kind: .gamut, width: w, height: h, pixels: [UInt8](repeating: 0, count: w * h))
        }
        let (w, h) = blockPlaneSize(width: image.width, height: image.height)
        let kernel = GamutKernel(outputToSRGB: OutputColorSpace.srgb.xyzD50ToLinearRGB * space.linearRGBToXYZD50)
        return fitted(AuxiliaryPlane(kind: .gamut, width: w, height: h, pixels: mapBlocks(image, space: space, kernel: kernel)),
                      toOutput: image.width, image.height)
    }

    /// The skin-likelihood plane (`.skinColor`) of `image` (encoded in `space`), using `model`.
    public static func skin(image: RenderedImage, space: OutputColorSpace, model: SkinModel = .standard) -> AuxiliaryPlane {
        let (w, h) = blockPlaneSize(width: image.width, height: image.height)
        let kernel = SkinKernel(outputToXYZD50: space.linearRGBToXYZD50, model: model)
        return fitted(AuxiliaryPlane(kind: .skinColor, width: w, height: h, pixels: mapBlocks(image, space: space, kernel: kernel)),
                      toOutput: image.width, image.height)
    }

    // MARK: - Shared machinery

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

    /// Runs `kernel` on the mean linear RGB of each 2×2 output block, rows of the plane in parallel.
    static func mapBlocks<K: BlockKernel>(_ image: RenderedImage, space: OutputColorSpace, kernel: K) -> [UInt8] {
        let (pw, ph) = blockPlaneSize(width: image.width, height: image.height)
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
                let y0 = band * ph / bands, y1 = (band + 1) * ph / bands
                if sixteen {
                    blockRows(v.p16, table: v.table, width: width, height: height, rows: y0..<y1, out: v.out, kernel: kernel)
                } else {
                    blockRows(v.p8, table: v.table, width: width, height: height, rows: y0..<y1, out: v.out, kernel: kernel)
                }
            }
        }
        }
        }
        }
        return out
    }

    /// One band of plane rows: full 2×2 blocks on the fast path, partial blocks at odd edges.
    @inline(__always)
    static func blockRows<T: FixedWidthInteger & UnsignedInteger, K: BlockKernel>(
        _ px: UnsafeBufferPointer<T>, table: UnsafeBufferPointer<Float>, width: Int, height: Int,
        rows: Range<Int>, out: UnsafeMutablePointer<UInt8>, kernel: K
    ) {
        let pw = (width + 1) / 2
        @inline(__always) func lin(_ i: Int) -> (Float, Float, Float) {
            (table[Int(px[i])], table[Int(px[i + 1])], table[Int(px[i + 2])])
        }
        for py in rows {
            let ry0 = 2 * py, ry1 = min(2 * py + 2, height)
            let o = out + py * pw
            var pxStart = 0
            if ry1 - ry0 == 2 {
                let r0 = ry0 * width * 3, r1 = r0 + width * 3
                for bx in 0..<(width / 2) {
                    let a = lin(r0 + 6 * bx), b = lin(r0 + 6 * bx + 3), c = lin(r1 + 6 * bx), d = lin(r1 + 6 * bx + 3)
                    o[bx] = kernel.value(0.25 * (a.0 + b.0 + c.0 + d.0), 0.25 * (a.1 + b.1 + c.1 + d.1),
                                         0.25 * (a.2 + b.2 + c.2 + d.2))
                }
                pxStart = width / 2
            }
            for bx in pxStart..<pw {
                let rx0 = 2 * bx, rx1 = min(2 * bx + 2, width)
                var r: Float = 0, g: Float = 0, b: Float = 0
                for y in ry0..<ry1 {
                    for x in rx0..<rx1 {
                        let l = lin((y * width + x) * 3)
                        r += l.0; g += l.1; b += l.2
                    }
                }
                let n = 1 / Float((ry1 - ry0) * (rx1 - rx0))
                o[bx] = kernel.value(r * n, g * n, b * n)
            }
        }
    }
}
