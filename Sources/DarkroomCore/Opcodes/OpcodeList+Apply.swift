// Whole-image application of opcode lists: OpcodeList2/3 on Float images (`applyWhole`) and
// OpcodeList1 on the stored UInt16 image (`applyRaw`).

extension OpcodeList {
    /// Applies any list (pointwise or not: FixBadPixelsConstant/List, WarpRectilinear, TrimBounds…)
    /// to a whole Float image, 0 = black, 1 = white, `planes` samples interleaved per pixel.
    /// `cfa` non-nil with `planes == 1` marks a Bayer mosaic: warps then resample each Bayer phase on
    /// its own lattice (bad-pixel opcodes take their layout from their own BayerPhase, as the
    /// specification says). FixBadPixelsConstant compares round(v·65535) with its constant.
    /// Optional opcodes that are unknown or do not fit the image are skipped (see `skippedOpcodes`);
    /// anything else that does not fit throws before that opcode changes a pixel.
    /// Updates `width`/`height` to the new size (TrimBounds may shrink it). Results are not clamped.
    public func applyWhole(to pixels: inout [Float], width: inout Int, height: inout Int, planes: Int,
                           cfa: CFAPattern?) throws(OpcodeError) {
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
            case .fixBadPixelsConstant(let p):
                var bad: [Int] = []
                for i in 0..<pixels.count where UInt32(quantized16(pixels[i])) == p.constant { bad.append(i) }
                let constant = p.constant
                let snapshot = pixels
                BadPixelRepair.repair(&pixels, width: w, height: h, bayerPhase: p.bayerPhase, bad: bad,
                                      isBad: { UInt32(quantized16(snapshot[$0])) == constant },
                                      value: { Double($0) }, mean: { Float($0 / Double($1)) })
            case .fixBadPixelsList(let p):
                let (mask, bad) = BadPixelRepair.listed(p, width: w, height: h)
                BadPixelRepair.repair(&pixels, width: w, height: h, bayerPhase: p.bayerPhase, bad: bad,
                                      isBad: { mask[$0] }, value: { Double($0) }, mean: { Float($0 / Double($1)) })
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
                              planes: planes, imageWidth: w, imageHeight: h).apply(op)
                }
            }
        }
    }

    /// OpcodeList1: applied to the stored raw UInt16 values before linearisation and black
    /// subtraction, on the whole stored image.
    ///
    /// Coordinates: the stored image's own pixel grid — (0, 0) is the first stored pixel, *not* the
    /// ActiveArea origin — because the specification applies OpcodeList1 "to the raw image, as read
    /// directly from the file", before ActiveArea and linearisation exist. GainMap relative
    /// coordinates are therefore fractions of the stored image too. A caller that only holds the
    /// active area must not run OpcodeList1 on it unless ActiveArea is the whole image.
    ///
    /// Values: MapTable and the bad-pixel opcodes work on the integer codes directly; the other
    /// opcodes see code/65535 (the range of the UInt16 data type, as the DNG SDK's 16-bit stage-1
    /// image and rawspeed normalise), and their results are rounded and clamped to 0…65535 after
    /// each opcode. `whiteLevel` must be 1…65535; it is checked, not used for scaling, since the
    /// stage-1 data are not yet linearised and white is defined only after linearisation.
    public func applyRaw(to pixels: inout [UInt16], width: Int, height: Int, planes: Int, cfa: CFAPattern?,
                         whiteLevel: Int) throws(OpcodeError) {
        if width < 1 || height < 1 || planes < 1 || pixels.count != width * height * planes {
            throw .bufferMismatch(reason: "\(pixels.count) samples for \(width)x\(height)x\(planes)")
        }
        if whiteLevel < 1 || whiteLevel > 65535 { throw .bufferMismatch(reason: "white level \(whiteLevel) outside 1…65535") }
        for op in opcodes {
            do throws(OpcodeError) {
                try op.check(width: width, height: height, planes: planes)
                if case .trimBounds = op {
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
            case .fixBadPixelsConstant(let p):
                var bad: [Int] = []
                for i in 0..<pixels.count where UInt32(pixels[i]) == p.constant { bad.append(i) }
                let constant = p.constant
                let snapshot = pixels
                BadPixelRepair.repair(&pixels, width: width, height: height, bayerPhase: p.bayerPhase, bad: bad,
                                      isBad: { UInt32(snapshot[$0]) == constant },
                                      value: { Double($0) }, mean: { UInt16(($0 / Double($1)).rounded()) })
            case .fixBadPixelsList(let p):
                let (mask, bad) = BadPixelRepair.listed(p, width: width, height: height)
                BadPixelRepair.repair(&pixels, width: width, height: height, bayerPhase: p.bayerPhase, bad: bad,
                                      isBad: { mask[$0] }, value: { Double($0) },
                                      mean: { UInt16(($0 / Double($1)).rounded()) })
            case .warpRectilinear, .warpFisheye, .warpRectilinear2:
                var f = pixels.map { Float($0) / 65535 }
                var (w, h) = (width, height)
                try OpcodeList(opcodes: [op]).applyWhole(to: &f, width: &w, height: &h, planes: planes, cfa: cfa)
                for i in 0..<pixels.count { pixels[i] = quantized16(f[i]) }
            default:
                // Pointwise: one row at a time through the Float kernels, quantised after the opcode.
                let n = width * planes
                var row = [Float](repeating: 0, count: n)
                let list = OpcodeList(opcodes: [op])
                for y in 0..<height {
                    let base = y * n
                    for i in 0..<n { row[i] = Float(pixels[base + i]) / 65535 }
                    row.withUnsafeMutableBufferPointer { b in
                        guard let p = b.baseAddress else { return }
                        list.applyPointwise(to: p, rowStride: n, region: PixelRect(x: 0, y: y, width: width, height: 1),
                                            planes: planes, imageWidth: width, imageHeight: height)
                    }
                    for i in 0..<n { pixels[base + i] = quantized16(row[i]) }
                }
            }
        }
    }
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
