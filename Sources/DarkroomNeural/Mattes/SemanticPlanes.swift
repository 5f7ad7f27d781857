import Foundation

/// The semantic planes of one image at a plane size (`width × height`, covering the whole image;
/// Darkroom's mattes are half the output size, long side ≤ 2016), from a `SemanticAnalysis`.
/// Every plane is 8-bit, 0 = none, 255 = full membership; all are deterministic functions of the
/// analysis and the image (the per-pixel passes run in parallel row bands, each row computed the
/// same way whatever the thread count).
///
/// - `portrait` (Apple's portrait-effects matte): the 256 × 256 person probability upsampled
///   bilinearly, then refined by `GuidedFilter.fastFilter` with the plane's luma as guide, radius
///   `guidedRadius` (long side / `guidedRadiusDivisor`, at least 2), ε `guidedEpsilon` and
///   subsampling `guidedSubsample`. `nil`
///   when no face was found: a statue or landscape gets no portrait matte.
/// - `lips` (`urn:org:darkroom:aux:lipsmatte`): coverage of the outer-lip polygon minus the inner one.
/// - `teeth`: inner-lip polygon coverage × `teethColour` of the pixel (bright and nearly neutral).
/// - `skin` (Apple's semantic skin matte): the colorimetric skin likelihood (`skin-color` plane)
///   smoothed by `GuidedFilter.fastFilter` (luma guide, radius `skinRadius`, ε `guidedEpsilon`)
///   × the portrait matte × (1 − eyes) × (1 − outer-lip polygon).
public struct SemanticPlanes: Sendable {
    public let width: Int
    public let height: Int
    public let portrait: [UInt8]?
    public let lips: [UInt8]
    public let teeth: [UInt8]
    /// Both eye polygons' coverage (for `skin`).
    public let eyes: [UInt8]
    /// Outer-lip polygon coverage (mouth and lips, for `skin`).
    public let mouth: [UInt8]
    /// The plane's luma (the guided filters' guide); empty without a face.
    let guide: [Float]

    /// Guided-filter window radius = plane long side / this (12 MP: 2016 / 128 → 16 px).
    public static let guidedRadiusDivisor = 128
    /// Guided-filter ε in (luma 0…1)²: edges with a luma step well above √ε ≈ 0.03 steer the mask.
    public static let guidedEpsilon: Float = 1e-3
    /// Teeth luma ramp (encoded luma 0…1): 0 at or below `teethLuma.lowerBound`, 1 from its upper bound.
    public static let teethLuma: ClosedRange<Float> = 0.30...0.45
    /// Teeth saturation ramp ((max − min) / max of encoded RGB): 1 up to its lower bound, 0 from its upper.
    public static let teethSaturation: ClosedRange<Float> = 0.25...0.45

    public static func guidedRadius(width: Int, height: Int) -> Int { max(2, max(width, height) / guidedRadiusDivisor) }
    /// The skin likelihood's guided-filter radius: half the portrait's (12 MP: 8 px).
    public static func skinRadius(width: Int, height: Int) -> Int { max(2, max(width, height) / (2 * guidedRadiusDivisor)) }

    /// The fast guided filter's subsampling: the coefficients are computed at about 512 px on the
    /// long side (12 MP: 2016 → subsample 4), never coarser than the radius allows.
    public static func guidedSubsample(width: Int, height: Int) -> Int {
        max(1, min(max(width, height) / 512, guidedRadius(width: width, height: height) / 2))
    }

    /// The planes for `analysis` at `width × height`; `image` (the analysed image or any resampling
    /// of it, e.g. to the plane size) gives the colours and the guide.
    public init(analysis: SemanticAnalysis, image: MatteInputImage, width: Int, height: Int) {
        self.width = width; self.height = height
        let block = BlockMeans(image, width: width, height: height)
        // Landmarks are in the analysed image's pixels; `image` may be that image or a resampling of it.
        let sx = Double(width) / Double(analysis.imageWidth), sy = Double(height) / Double(analysis.imageHeight)
        func union(_ polygons: [[Int]]) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: width * height)
            for f in analysis.faces {
                for indices in polygons {
                    let poly = f.polygon(indices).map { (x: $0.x * sx, y: $0.y * sy) }
                    PolygonRaster.fillMax(poly, into: &out, width: width, height: height)
                }
            }
            return out
        }
        let outer = union([FaceMeshTopology.lipsOuter]), inner = union([FaceMeshTopology.lipsInner])
        let eyes = union([FaceMeshTopology.rightEye, FaceMeshTopology.leftEye])
        var lips = [UInt8](repeating: 0, count: width * height), teeth = lips
        if !analysis.faces.isEmpty {
            let w = width
            lips.withUnsafeMutableBufferPointer { lp in
                teeth.withUnsafeMutableBufferPointer { tp in
                    image.pixels.withUnsafeBufferPointer { px in
                        RowBands.run(height) { rows in
                            for y in rows {
                                for x in 0..<w {
                                    let k = y * w + x
                                    lp[k] = outer[k] > inner[k] ? outer[k] - inner[k] : 0
                                    if inner[k] > 0 {
                                        let c = block.rgb(px, x: x, y: y)
                                        tp[k] = UInt8((Float(inner[k]) * Self.teethColour(r: c.r, g: c.g, b: c.b)).rounded())
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        self.lips = lips; self.teeth = teeth; self.eyes = eyes; self.mouth = outer
        if analysis.faces.isEmpty {
            portrait = nil
            guide = []
        } else {
            let guide = block.luma()
            self.guide = guide
            let p = Self.upsample(analysis.person, size: SemanticMattes.personSize, imageWidth: analysis.imageWidth,
                                  imageHeight: analysis.imageHeight, width: width, height: height)
            let q = GuidedFilter.fastFilter(guide: guide, p: p, width: width, height: height,
                                            radius: Self.guidedRadius(width: width, height: height), epsilon: Self.guidedEpsilon,
                                            subsample: Self.guidedSubsample(width: width, height: height))
            portrait = RowBands.fill(rows: height, width: width, repeating: 0) { rows, o in
                for k in (rows.lowerBound * width)..<(rows.upperBound * width) {
                    o[k] = UInt8((min(max(q[k], 0), 1) * 255).rounded())
                }
            }
        }
    }

    /// The skin plane from the colour likelihood `skinColor` (same size); all zero without a portrait.
    public func skin(skinColor: [UInt8]) -> [UInt8] {
        guard let portrait, skinColor.count == width * height, guide.count == width * height else {
            return [UInt8](repeating: 0, count: width * height)
        }
        let w = width, eyes = eyes, mouth = mouth
        // The colour likelihood varies pixel to pixel with the image's chroma noise and texture; a
        // guided filter on the luma smooths it within regions and keeps it sharp at edges.
        let likelihood = RowBands.fill(rows: height, width: width, repeating: Float(0)) { rows, o in
            for k in (rows.lowerBound * w)..<(rows.upperBound * w) { o[k] = Float(skinColor[k]) / 255 }
        }
        let smooth = GuidedFilter.fastFilter(guide: guide, p: likelihood, width: width, height: height,
                                             radius: Self.skinRadius(width: width, height: height), epsilon: Self.guidedEpsilon,
                                             subsample: Self.guidedSubsample(width: width, height: height))
        return RowBands.fill(rows: height, width: width, repeating: 0) { rows, o in
            for k in (rows.lowerBound * w)..<(rows.upperBound * w) {
                let v = min(max(smooth[k], 0), 1) * Float(portrait[k]) * Float(255 - eyes[k]) / 255 * Float(255 - mouth[k]) / 255
                o[k] = UInt8(v.rounded())
            }
        }
    }

    /// How tooth-like an encoded colour (0…1 per channel) is: luma ramp × low-saturation ramp.
    @inline(__always)
    public static func teethColour(r: Float, g: Float, b: Float) -> Float {
        let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let mx = max(r, g, b), mn = min(r, g, b)
        let sat = mx > 0 ? (mx - mn) / mx : 0
        let bright = min(max((luma - teethLuma.lowerBound) / (teethLuma.upperBound - teethLuma.lowerBound), 0), 1)
        let neutral = min(max((teethSaturation.upperBound - sat) / (teethSaturation.upperBound - teethSaturation.lowerBound), 0), 1)
        return bright * neutral
    }

    /// The `size × size` probability (squeezed over the image as the person model saw it: tensor
    /// pixel j sampled image x = j · imageWidth / size in OpenCV coordinates) resampled bilinearly
    /// at the centres of a `width × height` plane.
    public static func upsample(_ p: [Float], size: Int, imageWidth: Int, imageHeight: Int, width: Int, height: Int) -> [Float] {
        guard p.count == size * size, size > 0, width > 0, height > 0 else { return [Float](repeating: 0, count: max(0, width * height)) }
        let kx = Double(size) / Double(imageWidth), ky = Double(size) / Double(imageHeight)
        // Column taps are the same for every row.
        var x0s = [Int](repeating: 0, count: width), x1s = x0s, fxs = [Float](repeating: 0, count: width)
        for x in 0..<width {
            let ix = ((Double(x) + 0.5) * Double(imageWidth) / Double(width) - 0.5) * kx
            let x0 = min(max(Int(ix.rounded(.down)), 0), size - 1)
            x0s[x] = x0; x1s[x] = min(x0 + 1, size - 1)
            fxs[x] = Float(min(max(ix - Double(x0), 0), 1))
        }
        return RowBands.fill(rows: height, width: width, repeating: 0) { rows, out in
            for y in rows {
                let iy = ((Double(y) + 0.5) * Double(imageHeight) / Double(height) - 0.5) * ky
                let y0 = min(max(Int(iy.rounded(.down)), 0), size - 1), y1 = min(y0 + 1, size - 1)
                let fy = Float(min(max(iy - Double(y0), 0), 1))
                for x in 0..<width {
                    let x0 = x0s[x], x1 = x1s[x], fx = fxs[x]
                    let top = p[y0 * size + x0] * (1 - fx) + p[y0 * size + x1] * fx
                    let bottom = p[y1 * size + x0] * (1 - fx) + p[y1 * size + x1] * fx
                    out[y * width + x] = top * (1 - fy) + bottom * fy
                }
            }
        }
    }
}

/// Mean encoded RGB (0…1) and luma of the image pixels each plane pixel covers: plane column i
/// covers image columns ⌊i·W/w⌋ ..< max(that + 1, ⌊(i+1)·W/w⌋), rows likewise. The colour is
/// computed where it is asked for (teeth need it only inside the inner lips), the luma plane (the
/// guided filter's guide) in parallel row bands.
struct BlockMeans {
    let image: MatteInputImage
    let width: Int, height: Int
    let xs: [Int], ys: [Int]

    init(_ image: MatteInputImage, width: Int, height: Int) {
        self.image = image; self.width = width; self.height = height
        let W = image.width, H = image.height
        xs = (0...width).map { min(W, $0 * W / width) }; ys = (0...height).map { min(H, $0 * H / height) }
    }

    /// The mean encoded colour of plane pixel (x, y), 0…1 per channel.
    @inline(__always)
    func rgb(_ px: UnsafeBufferPointer<UInt8>, x: Int, y: Int) -> (r: Float, g: Float, b: Float) {
        let W = image.width, H = image.height
        let ya = ys[y], yb = max(ys[y + 1], min(H, ya + 1))
        let xa = xs[x], xb = max(xs[x + 1], min(W, xa + 1))
        var sr = 0, sg = 0, sb = 0
        for yy in ya..<yb {
            var o = (yy * W + xa) * 3
            for _ in xa..<xb { sr += Int(px[o]); sg += Int(px[o + 1]); sb += Int(px[o + 2]); o += 3 }
        }
        let inv = 1 / Float(255 * (yb - ya) * (xb - xa))
        return (Float(sr) * inv, Float(sg) * inv, Float(sb) * inv)
    }

    /// Rec. 709 luma of every plane pixel's mean colour (row-major `width × height`).
    func luma() -> [Float] {
        let w = width
        return image.pixels.withUnsafeBufferPointer { px in
            RowBands.fill(rows: height, width: w, repeating: 0) { rows, out in
                for y in rows {
                    for x in 0..<w {
                        let c = rgb(px, x: x, y: y)
                        out[y * w + x] = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b
                    }
                }
            }
        }
    }
}
