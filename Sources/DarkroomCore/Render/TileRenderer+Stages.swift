/// A stage image of the DNG processing model as the Adobe DNG SDK 1.7.1's `dng_validate -1/-2/-3`
/// dumps it: unsigned 16-bit codes, `planes` samples interleaved per pixel, row-major.
/// Stage 1 holds the stored values, stage 2 the linearised image (0 = black, 65535 = white) after
/// OpcodeList2, stage 3 the demosaiced camera RGB (not white-balanced) after OpcodeList3.
public struct StageImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (CFA mosaic) or 3 (RGB).
    public var planes: Int
    public var pixels: [UInt16]
    /// The CFA pattern seen from this image's top-left pixel (nil for RGB).
    public var cfa: CFAPattern?

    public init(width: Int, height: Int, planes: Int, pixels: [UInt16], cfa: CFAPattern? = nil) {
        self.width = width; self.height = height; self.planes = planes; self.pixels = pixels; self.cfa = cfa
    }
}

// Stages 2 and 3 of the DNG processing model (DNG 1.7 ch. 5 and 7) as 16-bit images, computed
// the way the DNG SDK 1.7.1 computes its 16-bit stage images, with the same linearisation and
// opcode kernels the render uses.

extension TileRenderer {
    /// Stage 2 of `raw` (active area, OpcodeList1 and the LinearizationTable already applied by
    /// the decoder): linearised with `linearised16` (bit-exact with the DNG SDK 1.7.1), then
    /// `opcodeList2` applied with `OpcodeList.applyStage` (TrimBounds included, so the size may
    /// shrink). `opcodeList2` is the file's list as parsed — not `plan.opcodeList2`, which drops
    /// TrimBounds. The plan supplies the size, planes and CFA pattern.
    public static func stage2(_ raw: RawImage, plan: DevelopPlan, opcodeList2: OpcodeList?) throws(OpcodeError) -> StageImage {
        let w = plan.width, h = plan.height, spp = plan.samplesPerPixel
        guard raw.width == w, raw.height == h, raw.samplesPerPixel == spp, raw.pixels.count == w * h * spp else {
            throw .bufferMismatch(reason: "raw image \(raw.width)x\(raw.height)x\(raw.samplesPerPixel) does not match the plan's \(w)x\(h)x\(spp)")
        }
        var codes = try linearised16(raw)
        var (width, height) = (w, h)
        var cfa = plan.cfa
        for op in opcodeList2?.opcodes ?? [] {
            try OpcodeList(opcodes: [op]).applyStage(to: &codes, width: &width, height: &height, planes: spp, cfa: cfa)
            // TrimBounds may move the origin to another CFA phase.
            if case .trimBounds(let t) = op, width < w || height < h { cfa = cfa?.shifted(dx: Int(t.left), dy: Int(t.top)) }
        }
        return StageImage(width: width, height: height, planes: spp, pixels: codes, cfa: cfa)
    }

    /// The linearisation of the DNG SDK 1.7.1 for a 16-bit stage 2 (dng_linearization_info.cpp,
    /// `dng_linearize_plane`, with dng_validate's black level 0 and clipping), per sample plane:
    /// scale = 1 / (WhiteLevel − maxBlack), maxBlack as `DevelopPlan.maxBlackLevels`.
    /// - One black level for the plane (no repeat pattern, no deltas): a table,
    ///   code = round(clamp((v − black) · scale, 0, 1) · 65535).
    /// - Otherwise fixed point in 1/256 code: value term round(v · scale · 65535 · 256), black terms
    ///   round(black · scale · 65535 · 256) for the 2-D pattern (BlackLevel columns + DeltaH) and
    ///   the 1-D one (BlackLevel rows + DeltaV), code = clamp((value − blacks + 128) >> 8, 0, 65535).
    /// Rounding is half away from zero throughout (the SDK's Round_int32). The same rules with
    /// Float arithmetic are the render's `lineariseRegion`, which agrees within 1 code.
    public static func linearised16(_ raw: RawImage) throws(OpcodeError) -> [UInt16] {
        let md = raw.metadata
        let w = raw.width, h = raw.height, spp = raw.samplesPerPixel
        let rows = max(md.blackLevelRepeatRows, 1), cols = max(md.blackLevelRepeatColumns, 1)
        let perPosition = rows * cols * spp
        var black = md.blackLevel
        if black.isEmpty { black = [0] }
        if black.count == 1 && perPosition > 1 { black = [Double](repeating: black[0], count: perPosition) }
        guard black.count == perPosition, black.allSatisfy(\.isFinite) else {
            throw .bufferMismatch(reason: "BlackLevel has \(black.count) values for a \(rows)x\(cols) repeat of \(spp) samples")
        }
        var white = md.whiteLevel
        if white.isEmpty { white = [65535] }
        if white.count < spp { white = [Double](repeating: white[0], count: spp) }
        let deltaH = md.blackLevelDeltaH.flatMap { $0.count == w && $0.allSatisfy(\.isFinite) ? $0 : nil }
        let deltaV = md.blackLevelDeltaV.flatMap { $0.count == h && $0.allSatisfy(\.isFinite) ? $0 : nil }
        func blackAt(_ r: Int, _ c: Int, _ s: Int) -> Double { black[(r * cols + c) * spp + s] }
        // Round half away from zero (Round_int32), saturating so hostile levels cannot trap.
        @inline(__always) func round32(_ x: Double) -> Int {
            let r = x > 0 ? x + 0.5 : x - 0.5
            guard r.isFinite else { return r > 0 ? Int(Int32.max) : Int(Int32.min) }
            return Int(min(max(r, -4.0e18), 4.0e18))
        }
        var out = [UInt16](repeating: 0, count: w * h * spp)
        for s in 0..<spp {
            // dng_linearization_info::MaxBlackLevel, in Double as the SDK computes it.
            var maxB = -Double.infinity
            var maxDH = [Double](repeating: 0, count: cols), maxDV = [Double](repeating: 0, count: rows)
            if let deltaH { for (j, d) in deltaH.enumerated() { maxDH[j % cols] = j < cols ? d : max(maxDH[j % cols], d) } }
            if let deltaV { for (j, d) in deltaV.enumerated() { maxDV[j % rows] = j < rows ? d : max(maxDV[j % rows], d) } }
            for r in 0..<rows { for c in 0..<cols { maxB = max(maxB, blackAt(r, c, s) + maxDH[c] + maxDV[r]) } }
            let range = white[s] - maxB
            guard range > 0, range.isFinite else {
                throw .bufferMismatch(reason: "WhiteLevel \(white[s]) is not above the largest black level \(maxB)")
            }
            let scale = 1 / range
            let fixed = scale * 65535 * 256
            // 2-D pattern: rows × (active width with DeltaH, else the repeat columns when > 1).
            let twoDColumns = deltaH != nil ? w : (cols > 1 ? cols : 0)
            var twoD: [Int] = []
            if twoDColumns > 0 {
                for j in 0..<rows { for k in 0..<twoDColumns {
                    twoD.append(round32((blackAt(j, k % cols, s) + (deltaH?[k] ?? 0)) * fixed))
                } }
            }
            // 1-D pattern: per active row with DeltaV, else the repeat rows when > 1 and no 2-D pattern.
            let oneDRows = deltaV != nil ? h : (twoD.isEmpty && rows > 1 ? rows : 0)
            var oneD: [Int] = []
            if oneDRows > 0 {
                var allZero = true
                for j in 0..<oneDRows {
                    let x = (twoD.isEmpty ? blackAt(j % rows, 0, s) : 0) + (deltaV?[j] ?? 0)
                    allZero = allZero && x == 0
                    oneD.append(round32(x * fixed))
                }
                if allZero { oneD = [] }
            }
            if twoD.isEmpty && oneD.isEmpty {
                let b = blackAt(0, 0, s)
                var table = [UInt16](repeating: 0, count: 65536)
                for v in 0..<65536 {
                    let y = min(max((Double(v) - b) * scale, 0), 1)
                    table[v] = UInt16(clamping: round32(y * 65535))
                }
                for i in stride(from: s, to: out.count, by: spp) { out[i] = table[Int(raw.pixels[i])] }
            } else {
                for y in 0..<h {
                    let b1 = (oneD.isEmpty ? 0 : oneD[y % oneD.count]) &- 128
                    let b2Row = twoD.isEmpty ? 0 : (y % rows) * twoDColumns
                    for x in 0..<w {
                        let i = (y * w + x) * spp + s
                        var v = round32(Double(raw.pixels[i]) * fixed) &- b1
                        if !twoD.isEmpty { v = v &- twoD[b2Row + x % twoDColumns] }
                        out[i] = UInt16(clamping: v >> 8)
                    }
                }
            }
        }
        return out
    }

    /// Stage 3 from a stage-2 image: a CFA mosaic (planes 1, `stage2.cfa` given) is demosaiced with
    /// `demosaic` on code / 65535 (borders mirrored as the render mirrors them) — Darkroom's
    /// interpolation, not the SDK's, so stage 3 of a mosaic matches the SDK only where the
    /// demosaic does not matter; an RGB image is taken as it is. The result is stored as 16-bit
    /// codes and `opcodeList3` is applied with `OpcodeList.applyStage`. Camera RGB, not white-balanced.
    public static func stage3(_ stage2: StageImage, demosaic: DemosaicAlgorithm,
                              opcodeList3: OpcodeList?) throws(OpcodeError) -> StageImage {
        let cfa = stage2.cfa
        let w = stage2.width, h = stage2.height
        guard w > 0, h > 0, stage2.pixels.count == w * h * stage2.planes else {
            throw .bufferMismatch(reason: "stage-2 image \(w)x\(h)x\(stage2.planes) holds \(stage2.pixels.count) samples")
        }
        var rgb: [UInt16]
        if stage2.planes == 3 {
            rgb = stage2.pixels
        } else if stage2.planes == 1, let cfa {
            rgb = demosaiced(stage2, cfa: cfa, kernel: demosaic.makeKernel())
        } else {
            throw .bufferMismatch(reason: "stage 3 needs a CFA mosaic or RGB, got \(stage2.planes) planes\(cfa == nil ? " without a CFA pattern" : "")")
        }
        var (width, height) = (w, h)
        if let list = opcodeList3 {
            try list.applyStage(to: &rgb, width: &width, height: &height, planes: 3, cfa: nil)
        }
        return StageImage(width: width, height: height, planes: 3, pixels: rgb)
    }

    /// The whole mosaic demosaiced in one piece: padded by the kernel's halo (mirrored without
    /// repeating the edge, keeping the CFA parity), interpolated, quantised to 16-bit codes.
    static func demosaiced(_ image: StageImage, cfa: CFAPattern, kernel: any DemosaicKernel) -> [UInt16] {
        let w = image.width, h = image.height, halo = kernel.halo
        let pw = w + 2 * halo, ph = h + 2 * halo
        var padded = [Float](repeating: 0, count: pw * ph)
        let toFloat: Float = 1 / 65535
        for py in 0..<ph {
            let sy = mirror(py - halo, h)
            for px in 0..<pw {
                padded[py * pw + px] = Float(image.pixels[sy * w + mirror(px - halo, w)]) * toFloat
            }
        }
        var red = [Float](repeating: 0, count: pw * ph), green = red, blue = red
        padded.withUnsafeBufferPointer { m in
            red.withUnsafeMutableBufferPointer { r in
                green.withUnsafeMutableBufferPointer { g in
                    blue.withUnsafeMutableBufferPointer { b in
                        guard let mb = m.baseAddress, let rb = r.baseAddress, let gb = g.baseAddress, let bb = b.baseAddress else { return }
                        kernel.demosaic(mosaic: mb, width: pw, height: ph, cfa: cfa.shifted(dx: -halo, dy: -halo),
                                        red: rb, green: gb, blue: bb)
                    }
                }
            }
        }
        var out = [UInt16](repeating: 0, count: w * h * 3)
        for y in 0..<h {
            for x in 0..<w {
                let i = (y + halo) * pw + x + halo, o = (y * w + x) * 3
                out[o] = stageCode(red[i]); out[o + 1] = stageCode(green[i]); out[o + 2] = stageCode(blue[i])
            }
        }
        return out
    }
}
