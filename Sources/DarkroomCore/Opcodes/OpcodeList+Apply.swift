// Whole-image application of opcode lists: OpcodeList2/3 on Float images (`applyWhole`) and
// OpcodeList1 on the stored UInt16 image (`applyRaw`).

extension OpcodeList {
    /// The code range of an integer DNG's stage images (the DNG SDK's 16-bit stage 1/2/3 images):
    /// Float samples are codes / 65535 and Delta opcodes' values are codes of this range.
    public static let integerPixelRange: Float = 65535

    /// Applies any list (pointwise or not: FixBadPixelsConstant/List, WarpRectilinear, TrimBounds…)
    /// to a whole Float image, 0 = black, 1 = white, `planes` samples interleaved per pixel.
    /// `cfa` non-nil with `planes == 1` marks a Bayer mosaic: warps then resample each Bayer phase on
    /// its own lattice, and bad-pixel opcodes take green/non-green from it (see `BadPixelRepair`).
    /// Bad-pixel opcodes work on 16-bit codes, as in the DNG SDK: the image is read as round(v·65535)
    /// and only the repaired pixels are written back (as code / 65535).
    /// Optional opcodes that are unknown or do not fit the image are skipped (see `skippedOpcodes`);
    /// anything else that does not fit throws before that opcode changes a pixel.
    /// Updates `width`/`height` to the new size (TrimBounds may shrink it). Results are not clamped.
    /// `pixelRange`: see `applyPointwise`.
    public func applyWhole(to pixels: inout [Float], width: inout Int, height: inout Int, planes: Int,
                           cfa: CFAPattern?, pixelRange: Float = OpcodeList.integerPixelRange) throws(OpcodeError) {
        if width < 1 || height < 1 || planes < 1 || pixels.count != width * height * planes {
            throw .bufferMismatch(reason: "\(pixels.count) samples for \(width)x\(height)x\(planes)")
        }
        for op in opcodes {
            do throws(OpcodeError) {
                try op.check(width: width, height: height, planes: planes)
            } catch {
                if op.isOptional { continue }
                throw error
            }
            let (w, h) = (width, height)
            switch op {
            case .fixBadPixelsConstant, .fixBadPixelsList:
                var codes = pixels.map(quantized16)
                let changed = Self.repairBadPixels(op, &codes, width: w, height: h, cfa: cfa)
                for i in changed { pixels[i] = Float(codes[i]) / 65535 }
            case .trimBounds(let t):
                pixels = crop(pixels, width: w, planes: planes, top: Int(t.top), left: Int(t.left),
                              bottom: Int(t.bottom), right: Int(t.right))
                width = Int(t.right - t.left); height = Int(t.bottom - t.top)
            case .warpRectilinear, .warpFisheye, .warpRectilinear2:
                if let (warps, cx, cy) = PlaneWarp.planes(of: op) {
                    pixels = warpImage(pixels, width: w, height: h, planes: planes, warps: warps, cx: cx, cy: cy,
                                       mosaic: planes == 1 && cfa != nil)
                }
            case .unknown:
                continue
            default:
                pixels.withUnsafeMutableBufferPointer { b in
                    guard let base = b.baseAddress else { return }
                    PixelTile(buffer: base, rowStride: w * planes, region: PixelRect(x: 0, y: 0, width: w, height: h),
                              planes: planes, imageWidth: w, imageHeight: h, pixelRange: pixelRange).apply(op)
                }
            }
        }
    }

    /// FixBadPixelsConstant/List on a one-plane image of codes; returns the indices changed.
    static func repairBadPixels(_ op: DNGOpcode, _ codes: inout [UInt16], width: Int, height: Int,
                                cfa: CFAPattern?) -> [Int] {
        switch op {
        case .fixBadPixelsConstant(let p):
            return BadPixelRepair.fixConstant(&codes, width: width, height: height, constant: p.constant,
                                              greens: .init(bayerPhase: p.bayerPhase, cfa: cfa))
        case .fixBadPixelsList(let p):
            return BadPixelRepair.fixList(&codes, width: width, height: height, p,
                                          greens: .init(bayerPhase: p.bayerPhase, cfa: cfa))
        default:
            return []
        }
    }

    /// OpcodeList1: applied to the stored raw UInt16 values before linearisation and black
    /// subtraction, on the whole stored image (`applyStage` with stage 1; TrimBounds refused,
    /// since it would change the stored image size).
    ///
    /// Coordinates: the stored image's own pixel grid — (0, 0) is the first stored pixel, *not* the
    /// ActiveArea origin — because the specification applies OpcodeList1 "to the raw image, as read
    /// directly from the file", before ActiveArea and linearisation exist. GainMap relative
    /// coordinates are therefore fractions of the stored image too. A caller that only holds the
    /// active area must not run OpcodeList1 on it unless ActiveArea is the whole image.
    /// `whiteLevel` must be 1…65535; it is checked, not used for scaling, since the stage-1 data
    /// are not yet linearised and white is defined only after linearisation.
    public func applyRaw(to pixels: inout [UInt16], width: Int, height: Int, planes: Int, cfa: CFAPattern?,
                         whiteLevel: Int) throws(OpcodeError) {
        if whiteLevel < 1 || whiteLevel > 65535 { throw .bufferMismatch(reason: "white level \(whiteLevel) outside 1…65535") }
        var (w, h) = (width, height)
        try applyStage(to: &pixels, width: &w, height: &h, planes: planes, cfa: cfa, allowTrim: false)
    }

    /// Applies the list to a 16-bit stage image exactly as the DNG SDK 1.7.1 applies an opcode list
    /// to its 16-bit stage-1/2/3 images (dng_opcodes.cpp, dng_validate `-1/-2/-3`):
    /// - MapTable and the bad-pixel opcodes work on the codes directly (a MapTable input past the
    ///   table's end takes its last entry);
    /// - every other opcode reads code · (1/65535) as Float (the SDK's RefCopyArea16_R32), runs the
    ///   same Float kernel as `applyPointwise`/`applyWhole`, and is quantised back to
    ///   UInt16(min(max(v, 0), 1) · 65535 + 0.5) before the next opcode (RefCopyAreaR32_16);
    /// - TrimBounds crops (updating `width`/`height`) unless `allowTrim` is false, when it throws.
    /// Values are codes of the stage image, so MapPolynomial on 0…1 and Delta values ÷ 65535 mean
    /// the same at every stage. Optional opcodes that are unknown or do not fit are skipped.
    public func applyStage(to pixels: inout [UInt16], width: inout Int, height: inout Int, planes: Int,
                           cfa: CFAPattern?, allowTrim: Bool = true) throws(OpcodeError) {
        if width < 1 || height < 1 || planes < 1 || pixels.count != width * height * planes {
            throw .bufferMismatch(reason: "\(pixels.count) samples for \(width)x\(height)x\(planes)")
        }
        let toFloat: Float = 1 / 65535
        for op in opcodes {
            do throws(OpcodeError) {
                try op.check(width: width, height: height, planes: planes)
                if case .trimBounds = op, !allowTrim {
                    throw .unsupported(opcode: op.name, reason: "TrimBounds in OpcodeList1 would change the stored image size")
                }
            } catch {
                if op.isOptional { continue }
                throw error
            }
            switch op {
            case .unknown:
                continue
            case .mapTable(let p):
                let last = p.table.count - 1
                let a = ResolvedArea(p.area, width: width, height: height, imagePlanes: planes)
                var y = ResolvedArea.aligned(a.top, origin: a.originY, pitch: a.rowPitch)
                while y < a.bottom {
                    var x = ResolvedArea.aligned(a.left, origin: a.originX, pitch: a.colPitch)
                    while x < a.right {
                        for c in a.firstPlane..<a.endPlane {
                            let i = (y * width + x) * planes + c
                            pixels[i] = p.table[min(Int(pixels[i]), last)]
                        }
                        x += a.colPitch
                    }
                    y += a.rowPitch
                }
            case .fixBadPixelsConstant, .fixBadPixelsList:
                _ = Self.repairBadPixels(op, &pixels, width: width, height: height, cfa: cfa)
            case .trimBounds(let t):
                pixels = crop(pixels, width: width, planes: planes, top: Int(t.top), left: Int(t.left),
                              bottom: Int(t.bottom), right: Int(t.right))
                width = Int(t.right - t.left); height = Int(t.bottom - t.top)
            case .gainMap(let p):
                // The SDK's own tiling and incremental column stepping (see `SDKGainMapStepping`),
                // so stage images agree with dng_validate's to the code.
                SDKGainMapStepping(p, width: width, height: height, planes: planes).apply(to: &pixels)
            case .warpRectilinear, .warpFisheye, .warpRectilinear2:
                var f = pixels.map { Float($0) * toFloat }
                var (w, h) = (width, height)
                try OpcodeList(opcodes: [op]).applyWhole(to: &f, width: &w, height: &h, planes: planes, cfa: cfa)
                for i in 0..<pixels.count { pixels[i] = stageCode(f[i]) }
            default:
                // Pointwise: one row at a time through the Float kernels, quantised after the opcode.
                let n = width * planes
                var row = [Float](repeating: 0, count: n)
                let list = OpcodeList(opcodes: [op])
                for y in 0..<height {
                    let base = y * n
                    for i in 0..<n { row[i] = Float(pixels[base + i]) * toFloat }
                    row.withUnsafeMutableBufferPointer { b in
                        guard let p = b.baseAddress else { return }
                        list.applyPointwise(to: p, rowStride: n, region: PixelRect(x: 0, y: y, width: width, height: 1),
                                            planes: planes, imageWidth: width, imageHeight: height)
                    }
                    for i in 0..<n { pixels[base + i] = stageCode(row[i]) }
                }
            }
        }
    }
}

/// A Float stage sample as the DNG SDK stores it in a 16-bit stage image
/// (RefCopyAreaR32_16): UInt16(clamp(v, 0, 1) · 65535 + 0.5), NaN → 0.
@inline(__always)
func stageCode(_ v: Float) -> UInt16 {
    if !(v > 0) { return 0 }
    if v >= 1 { return 65535 }
    return UInt16(v * 65535 + 0.5)
}

/// Rows top..<bottom and columns left..<right of an interleaved image.
func crop<T>(_ pixels: [T], width: Int, planes: Int, top: Int, left: Int, bottom: Int, right: Int) -> [T] {
    var out: [T] = []
    out.reserveCapacity((bottom - top) * (right - left) * planes)
    for y in top..<bottom {
        let start = (y * width + left) * planes
        out.append(contentsOf: pixels[start..<(start + (right - left) * planes)])
    }
    return out
}
