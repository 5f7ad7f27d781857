/// Ratio-corrected demosaicing (RCD), after Luis Sanz Rodríguez, "Ratio Corrected Demosaicing"
/// (2017, v2.3): a directional discrimination from squared high-pass filters of the raw data,
/// green at red/blue sites from cardinal estimates corrected by the ratio of a low-pass filter
/// of the raw data, then red/blue from gradient-weighted colour differences (diagonally at
/// blue/red sites, cardinally at green sites).
///
/// Weighted means are written `a + (b − a)·t` (the same value as the paper's `(wₐa + w_b b)/(wₐ+w_b)`)
/// so that flat fields stay flat. The low-pass ratio uses `|lpf|` in its denominator so negative
/// (black-subtracted) inputs cannot divide by zero.
///
/// Each stage is computed only where its inputs are exact, so the output is exact at distance
/// ≥ `RCDDemosaic.exactInset` (10) from every region edge; the band outside is filled bilinearly.
public struct RCDDemosaic: DemosaicKernel {
    /// Distance from the region edge beyond which the output equals the unbounded-image result.
    public static let exactInset = 10
    public init() {}
    public var halo: Int { Self.exactInset }

    public func demosaic(mosaic: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                         red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                         blue: UnsafeMutablePointer<Float>) {
        let scratch = RCDScratch(count: width * height)
        defer { scratch.deallocate() }
        RCDDemosaic.run(mosaic: mosaic, width: width, height: height, cfa: cfa,
                        red: red, green: green, blue: blue, scratch: scratch)
        DemosaicBorder.fill(mosaic: mosaic, width: width, height: height, cfa: cfa, inset: Self.exactInset,
                            red: red, green: green, blue: blue)
    }

    /// Runs RCD, leaving `scratch.vhDirection` valid at inset 4 (for refinement passes).
    /// Output is exact at inset 10 and finite elsewhere (not border-filled).
    static func run(mosaic cfaData: UnsafePointer<Float>, width: Int, height: Int, cfa: CFAPattern,
                    red: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                    blue: UnsafeMutablePointer<Float>, scratch: RCDScratch) {
        let w1 = width, w2 = 2 * width, w3 = 3 * width, w4 = 4 * width
        let eps: Float = 1e-5, epssq: Float = 1e-10
        let n = width * height
        let c = cfaData
        let vhDir = scratch.vhDirection, pqDir = scratch.pqDirection, lpf = scratch.lowPass
        let bufA = scratch.bufferA, bufB = scratch.bufferB

        // Every plane starts as the mosaic: correct at each plane's own sites, finite elsewhere.
        red.update(from: c, count: n)
        green.update(from: c, count: n)
        blue.update(from: c, count: n)

        // Step 1.1: squared vertical / horizontal high-pass filters of the raw data (inset 3).
        for y in 3..<(height - 3) {
            let r = y * width
            for i in (r + 3)..<(r + width - 3) {
                let v = (c[i - w3] - c[i - w1] - c[i + w1] + c[i + w3]) - 3 * (c[i - w2] + c[i + w2]) + 6 * c[i]
                let h = (c[i - 3] - c[i - 1] - c[i + 1] + c[i + 3]) - 3 * (c[i - 2] + c[i + 2]) + 6 * c[i]
                bufA[i] = v * v
                bufB[i] = h * h
            }
        }
        // Step 1.2: vertical/horizontal discrimination V/(V+H) (inset 4).
        for y in 4..<(height - 4) {
            let r = y * width
            for i in (r + 4)..<(r + width - 4) {
                let vStat = max(epssq, bufA[i - w1] + bufA[i] + bufA[i + w1])
                let hStat = max(epssq, bufB[i - 1] + bufB[i] + bufB[i + 1])
                vhDir[i] = vStat / (vStat + hStat)
            }
        }
        // Step 2: low-pass filter of the raw data at red/blue sites (inset 1).
        for y in 1..<(height - 1) {
            let nonGreen = cfa.color(x: 0, y: y) == .green ? 1 : 0
            var i = y * width + DemosaicBorder.firstColumn(1, parity: nonGreen)
            let end = y * width + width - 1
            while i < end {
                lpf[i] = c[i] + 0.5 * ((c[i - w1] + c[i + w1]) + (c[i - 1] + c[i + 1]))
                    + 0.25 * ((c[i - w1 - 1] + c[i - w1 + 1]) + (c[i + w1 - 1] + c[i + w1 + 1]))
                i += 2
            }
        }
        // Step 3: green at red/blue sites (inset 5).
        for y in 5..<(height - 5) {
            let nonGreen = cfa.color(x: 0, y: y) == .green ? 1 : 0
            if width - 10 >= 8 {
                greenRow(c, lpf: lpf, vhDir: vhDir, green: green, row: y * width, width: width, nonGreen: nonGreen)
                continue
            }
            var i = y * width + DemosaicBorder.firstColumn(5, parity: nonGreen)
            let end = y * width + width - 5
            while i < end {
                let ci = c[i]
                let nGrad = eps + abs(c[i - w1] - c[i + w1]) + abs(ci - c[i - w2]) + abs(c[i - w1] - c[i - w3]) + abs(c[i - w2] - c[i - w4])
                let sGrad = eps + abs(c[i - w1] - c[i + w1]) + abs(ci - c[i + w2]) + abs(c[i + w1] - c[i + w3]) + abs(c[i + w2] - c[i + w4])
                let wGrad = eps + abs(c[i - 1] - c[i + 1]) + abs(ci - c[i - 2]) + abs(c[i - 1] - c[i - 3]) + abs(c[i - 2] - c[i - 4])
                let eGrad = eps + abs(c[i - 1] - c[i + 1]) + abs(ci - c[i + 2]) + abs(c[i + 1] - c[i + 3]) + abs(c[i + 2] - c[i + 4])
                let l0 = lpf[i]
                let lN = lpf[i - w2], lS = lpf[i + w2], lW = lpf[i - 2], lE = lpf[i + 2]
                let nEst = c[i - w1] * (1 + (l0 - lN) / (eps + abs(l0) + abs(lN)))
                let sEst = c[i + w1] * (1 + (l0 - lS) / (eps + abs(l0) + abs(lS)))
                let wEst = c[i - 1] * (1 + (l0 - lW) / (eps + abs(l0) + abs(lW)))
                let eEst = c[i + 1] * (1 + (l0 - lE) / (eps + abs(l0) + abs(lE)))
                let vEst = nEst + (sEst - nEst) * (nGrad / (nGrad + sGrad))
                let hEst = wEst + (eEst - wEst) * (wGrad / (wGrad + eGrad))
                let central = vhDir[i]
                let neighbourhood = 0.25 * ((vhDir[i - w1 - 1] + vhDir[i - w1 + 1]) + (vhDir[i + w1 - 1] + vhDir[i + w1 + 1]))
                let disc = abs(0.5 - central) < abs(0.5 - neighbourhood) ? neighbourhood : central
                green[i] = vEst + disc * (hEst - vEst)
                i += 2
            }
        }
        // Step 4.1: squared diagonal high-pass filters (inset 3), P/Q discrimination at red/blue sites (inset 4).
        for y in 3..<(height - 3) {
            let r = y * width
            for i in (r + 3)..<(r + width - 3) {
                let p = (c[i - w3 - 3] - c[i - w1 - 1] - c[i + w1 + 1] + c[i + w3 + 3]) - 3 * (c[i - w2 - 2] + c[i + w2 + 2]) + 6 * c[i]
                let q = (c[i - w3 + 3] - c[i - w1 + 1] - c[i + w1 - 1] + c[i + w3 - 3]) - 3 * (c[i - w2 + 2] + c[i + w2 - 2]) + 6 * c[i]
                bufA[i] = p * p
                bufB[i] = q * q
            }
        }
        for y in 4..<(height - 4) {
            let nonGreen = cfa.color(x: 0, y: y) == .green ? 1 : 0
            var i = y * width + DemosaicBorder.firstColumn(4, parity: nonGreen)
            let end = y * width + width - 4
            while i < end {
                let pStat = max(epssq, bufA[i - w1 - 1] + bufA[i] + bufA[i + w1 + 1])
                let qStat = max(epssq, bufB[i - w1 + 1] + bufB[i] + bufB[i + w1 - 1])
                pqDir[i] = pStat / (pStat + qStat)
                i += 2
            }
        }
        // Step 4.2: red at blue sites and blue at red sites (inset 7).
        for y in 7..<(height - 7) {
            let nonGreen = cfa.color(x: 0, y: y) == .green ? 1 : 0
            let site = cfa.color(x: nonGreen, y: y)
            let o = site == .red ? blue : red    // the plane being filled; its samples sit diagonally
            if width - 14 >= 8 {
                diagonalRow(o, green: green, pqDir: pqDir, row: y * width, width: width, nonGreen: nonGreen)
                continue
            }
            var i = y * width + DemosaicBorder.firstColumn(7, parity: nonGreen)
            let end = y * width + width - 7
            while i < end {
                let central = pqDir[i]
                let neighbourhood = 0.25 * ((pqDir[i - w1 - 1] + pqDir[i - w1 + 1]) + (pqDir[i + w1 - 1] + pqDir[i + w1 + 1]))
                let disc = abs(0.5 - central) < abs(0.5 - neighbourhood) ? neighbourhood : central
                let g0 = green[i]
                let nw = o[i - w1 - 1], ne = o[i - w1 + 1], sw = o[i + w1 - 1], se = o[i + w1 + 1]
                let nwGrad = eps + abs(nw - se) + abs(nw - o[i - w3 - 3]) + abs(g0 - green[i - w2 - 2])
                let neGrad = eps + abs(ne - sw) + abs(ne - o[i - w3 + 3]) + abs(g0 - green[i - w2 + 2])
                let swGrad = eps + abs(ne - sw) + abs(sw - o[i + w3 - 3]) + abs(g0 - green[i + w2 - 2])
                let seGrad = eps + abs(nw - se) + abs(se - o[i + w3 + 3]) + abs(g0 - green[i + w2 + 2])
                let nwEst = nw - green[i - w1 - 1], neEst = ne - green[i - w1 + 1]
                let swEst = sw - green[i + w1 - 1], seEst = se - green[i + w1 + 1]
                let pEst = nwEst + (seEst - nwEst) * (nwGrad / (nwGrad + seGrad))
                let qEst = neEst + (swEst - neEst) * (neGrad / (neGrad + swGrad))
                o[i] = g0 + (pEst + disc * (qEst - pEst))
                i += 2
            }
        }
        // Step 4.3: red and blue at green sites (inset 10).
        for y in 10..<(height - 10) {
            let greenParity = cfa.color(x: 0, y: y) == .green ? 0 : 1
            if width - 20 >= 8 {
                greenSiteRow(red: red, blue: blue, green: green, vhDir: vhDir, row: y * width, width: width, greenParity: greenParity)
                continue
            }
            var i = y * width + DemosaicBorder.firstColumn(10, parity: greenParity)
            let end = y * width + width - 10
            while i < end {
                let central = vhDir[i]
                let neighbourhood = 0.25 * ((vhDir[i - w1 - 1] + vhDir[i - w1 + 1]) + (vhDir[i + w1 - 1] + vhDir[i + w1 + 1]))
                let disc = abs(0.5 - central) < abs(0.5 - neighbourhood) ? neighbourhood : central
                let g0 = green[i]
                let gN = green[i - w1], gS = green[i + w1], gW = green[i - 1], gE = green[i + 1]
                let dgN = abs(g0 - green[i - w2]), dgS = abs(g0 - green[i + w2])
                let dgW = abs(g0 - green[i - 2]), dgE = abs(g0 - green[i + 2])
                red[i] = colourAtGreen(red, i, w1: w1, g0: g0, gN: gN, gS: gS, gW: gW, gE: gE,
                                       dgN: dgN, dgS: dgS, dgW: dgW, dgE: dgE, disc: disc)
                blue[i] = colourAtGreen(blue, i, w1: w1, g0: g0, gN: gN, gS: gS, gW: gW, gE: gE,
                                        dgN: dgN, dgS: dgS, dgW: dgW, dgE: dgE, disc: disc)
                i += 2
            }
        }
    }
}

/// Eight-lane versions of steps 3, 4.2 and 4.3 for regions at least 8 columns wider than the
/// step's inset: every column is computed (the same expressions in the same order, so the same
/// values) and an exact 0/1 blend keeps the old value at the sites the step does not fill.
extension RCDDemosaic {
    typealias V = DemosaicVector.V

    @inline(__always)
    private static func ld(_ p: UnsafePointer<Float>) -> V { DemosaicVector.load(p) }
    @inline(__always)
    private static func ld(_ p: UnsafeMutablePointer<Float>) -> V { DemosaicVector.load(p) }
    @inline(__always)
    private static func vabs(_ v: V) -> V { DemosaicVector.abs(v) }
    /// `neighbourhood` where it is further from 0.5 than `central`, else `central`.
    @inline(__always)
    private static func discriminate(_ central: V, _ neighbourhood: V) -> V {
        central.replacing(with: neighbourhood, where: vabs(0.5 - central) .< vabs(0.5 - neighbourhood))
    }

    /// Step 3 on columns 5..<width−5 of one row.
    static func greenRow(_ c: UnsafePointer<Float>, lpf: UnsafeMutablePointer<Float>, vhDir: UnsafeMutablePointer<Float>,
                         green: UnsafeMutablePointer<Float>, row: Int, width: Int, nonGreen: Int) {
        let eps: Float = 1e-5
        let w1 = width, w2 = 2 * width, w3 = 3 * width, w4 = 4 * width
        for x0 in stride(from: 5, to: width - 5, by: 8) {
            let x = min(x0, width - 13), i = row + x
            let ci = ld(c + i)
            let cN1 = ld(c + i - w1), cS1 = ld(c + i + w1), cN2 = ld(c + i - w2), cS2 = ld(c + i + w2)
            let cW1 = ld(c + i - 1), cE1 = ld(c + i + 1), cW2 = ld(c + i - 2), cE2 = ld(c + i + 2)
            let nGrad = eps + vabs(cN1 - cS1) + vabs(ci - cN2) + vabs(cN1 - ld(c + i - w3)) + vabs(cN2 - ld(c + i - w4))
            let sGrad = eps + vabs(cN1 - cS1) + vabs(ci - cS2) + vabs(cS1 - ld(c + i + w3)) + vabs(cS2 - ld(c + i + w4))
            let wGrad = eps + vabs(cW1 - cE1) + vabs(ci - cW2) + vabs(cW1 - ld(c + i - 3)) + vabs(cW2 - ld(c + i - 4))
            let eGrad = eps + vabs(cW1 - cE1) + vabs(ci - cE2) + vabs(cE1 - ld(c + i + 3)) + vabs(cE2 - ld(c + i + 4))
            let l0 = ld(lpf + i)
            let lN = ld(lpf + i - w2), lS = ld(lpf + i + w2), lW = ld(lpf + i - 2), lE = ld(lpf + i + 2)
            let nEst = cN1 * (1 + (l0 - lN) / (eps + vabs(l0) + vabs(lN)))
            let sEst = cS1 * (1 + (l0 - lS) / (eps + vabs(l0) + vabs(lS)))
            let wEst = cW1 * (1 + (l0 - lW) / (eps + vabs(l0) + vabs(lW)))
            let eEst = cE1 * (1 + (l0 - lE) / (eps + vabs(l0) + vabs(lE)))
            let vEst = nEst + (sEst - nEst) * (nGrad / (nGrad + sGrad))
            let hEst = wEst + (eEst - wEst) * (wGrad / (wGrad + eGrad))
            let neighbourhood = 0.25 * ((ld(vhDir + i - w1 - 1) + ld(vhDir + i - w1 + 1)) + (ld(vhDir + i + w1 - 1) + ld(vhDir + i + w1 + 1)))
            let disc = discriminate(ld(vhDir + i), neighbourhood)
            let estimate = vEst + disc * (hEst - vEst)
            DemosaicVector.store(DemosaicVector.blend(DemosaicVector.parityLanes(x, nonGreen), estimate, ld(green + i)), green + i)
        }
    }

    /// Step 4.2 on columns 7..<width−7 of one row; `o` is the plane being filled.
    static func diagonalRow(_ o: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>, pqDir: UnsafeMutablePointer<Float>,
                            row: Int, width: Int, nonGreen: Int) {
        let eps: Float = 1e-5
        let w1 = width, w2 = 2 * width, w3 = 3 * width
        for x0 in stride(from: 7, to: width - 7, by: 8) {
            let x = min(x0, width - 15), i = row + x
            let neighbourhood = 0.25 * ((ld(pqDir + i - w1 - 1) + ld(pqDir + i - w1 + 1)) + (ld(pqDir + i + w1 - 1) + ld(pqDir + i + w1 + 1)))
            let disc = discriminate(ld(pqDir + i), neighbourhood)
            let g0 = ld(green + i)
            let nw = ld(o + i - w1 - 1), ne = ld(o + i - w1 + 1), sw = ld(o + i + w1 - 1), se = ld(o + i + w1 + 1)
            let nwGrad = eps + vabs(nw - se) + vabs(nw - ld(o + i - w3 - 3)) + vabs(g0 - ld(green + i - w2 - 2))
            let neGrad = eps + vabs(ne - sw) + vabs(ne - ld(o + i - w3 + 3)) + vabs(g0 - ld(green + i - w2 + 2))
            let swGrad = eps + vabs(ne - sw) + vabs(sw - ld(o + i + w3 - 3)) + vabs(g0 - ld(green + i + w2 - 2))
            let seGrad = eps + vabs(nw - se) + vabs(se - ld(o + i + w3 + 3)) + vabs(g0 - ld(green + i + w2 + 2))
            let nwEst = nw - ld(green + i - w1 - 1), neEst = ne - ld(green + i - w1 + 1)
            let swEst = sw - ld(green + i + w1 - 1), seEst = se - ld(green + i + w1 + 1)
            let pEst = nwEst + (seEst - nwEst) * (nwGrad / (nwGrad + seGrad))
            let qEst = neEst + (swEst - neEst) * (neGrad / (neGrad + swGrad))
            let value = g0 + (pEst + disc * (qEst - pEst))
            DemosaicVector.store(DemosaicVector.blend(DemosaicVector.parityLanes(x, nonGreen), value, ld(o + i)), o + i)
        }
    }

    /// Step 4.3 on columns 10..<width−10 of one row.
    static func greenSiteRow(red: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>, green: UnsafeMutablePointer<Float>,
                             vhDir: UnsafeMutablePointer<Float>, row: Int, width: Int, greenParity: Int) {
        let eps: Float = 1e-5
        let w1 = width, w2 = 2 * width, w3 = 3 * width
        for x0 in stride(from: 10, to: width - 10, by: 8) {
            let x = min(x0, width - 18), i = row + x
            let neighbourhood = 0.25 * ((ld(vhDir + i - w1 - 1) + ld(vhDir + i - w1 + 1)) + (ld(vhDir + i + w1 - 1) + ld(vhDir + i + w1 + 1)))
            let disc = discriminate(ld(vhDir + i), neighbourhood)
            let g0 = ld(green + i)
            let gN = ld(green + i - w1), gS = ld(green + i + w1), gW = ld(green + i - 1), gE = ld(green + i + 1)
            let dgN = vabs(g0 - ld(green + i - w2)), dgS = vabs(g0 - ld(green + i + w2))
            let dgW = vabs(g0 - ld(green + i - 2)), dgE = vabs(g0 - ld(green + i + 2))
            let k = DemosaicVector.parityLanes(x, greenParity)
            @inline(__always) func fill(_ o: UnsafeMutablePointer<Float>) {
                let n = ld(o + i - w1), s = ld(o + i + w1), wv = ld(o + i - 1), e = ld(o + i + 1)
                let nGrad = eps + dgN + vabs(n - s) + vabs(n - ld(o + i - w3))
                let sGrad = eps + dgS + vabs(s - n) + vabs(s - ld(o + i + w3))
                let wGrad = eps + dgW + vabs(wv - e) + vabs(wv - ld(o + i - 3))
                let eGrad = eps + dgE + vabs(e - wv) + vabs(e - ld(o + i + 3))
                let nEst = n - gN, sEst = s - gS, wEst = wv - gW, eEst = e - gE
                let vEst = nEst + (sEst - nEst) * (nGrad / (nGrad + sGrad))
                let hEst = wEst + (eEst - wEst) * (wGrad / (wGrad + eGrad))
                let value = g0 + (vEst + disc * (hEst - vEst))
                DemosaicVector.store(DemosaicVector.blend(k, value, ld(o + i)), o + i)
            }
            fill(red)
            fill(blue)
        }
    }
}

extension RCDDemosaic {
    /// Step 4.3 for one colour plane `o` at green site `i`: gradient-weighted cardinal colour differences.
    @inline(__always)
    static func colourAtGreen(_ o: UnsafeMutablePointer<Float>, _ i: Int, w1: Int, g0: Float,
                              gN: Float, gS: Float, gW: Float, gE: Float,
                              dgN: Float, dgS: Float, dgW: Float, dgE: Float, disc: Float) -> Float {
        let eps: Float = 1e-5
        let w3 = 3 * w1
        let n = o[i - w1], s = o[i + w1], wv = o[i - 1], e = o[i + 1]
        let nGrad = eps + dgN + abs(n - s) + abs(n - o[i - w3])
        let sGrad = eps + dgS + abs(s - n) + abs(s - o[i + w3])
        let wGrad = eps + dgW + abs(wv - e) + abs(wv - o[i - 3])
        let eGrad = eps + dgE + abs(e - wv) + abs(e - o[i + 3])
        let nEst = n - gN, sEst = s - gS, wEst = wv - gW, eEst = e - gE
        let vEst = nEst + (sEst - nEst) * (nGrad / (nGrad + sGrad))
        let hEst = wEst + (eEst - wEst) * (wGrad / (wGrad + eGrad))
        return g0 + (vEst + disc * (hEst - vEst))
    }
}

/// Per-call scratch planes for RCD (allocated once per `demosaic` call, never per pixel).
struct RCDScratch {
    let vhDirection: UnsafeMutablePointer<Float>
    let pqDirection: UnsafeMutablePointer<Float>
    let lowPass: UnsafeMutablePointer<Float>
    let bufferA: UnsafeMutablePointer<Float>
    let bufferB: UnsafeMutablePointer<Float>

    init(count: Int) {
        func plane(_ v: Float) -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
            p.initialize(repeating: v, count: max(count, 1))
            return p
        }
        vhDirection = plane(0.5); pqDirection = plane(0.5); lowPass = plane(0)
        bufferA = plane(0); bufferB = plane(0)
    }

    func deallocate() {
        vhDirection.deallocate(); pqDirection.deallocate(); lowPass.deallocate()
        bufferA.deallocate(); bufferB.deallocate()
    }
}
