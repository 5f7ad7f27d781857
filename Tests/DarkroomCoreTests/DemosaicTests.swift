import Testing
@testable import DarkroomCore

/// Runs `kernel` on a planar region and returns its three output planes.
private func run(_ kernel: any DemosaicKernel, _ mosaic: [Float], _ width: Int, _ height: Int,
                 _ cfa: CFAPattern) -> (r: [Float], g: [Float], b: [Float]) {
    var r = [Float](repeating: .nan, count: width * height), g = r, b = r
    mosaic.withUnsafeBufferPointer { m in
        r.withUnsafeMutableBufferPointer { rp in
            g.withUnsafeMutableBufferPointer { gp in
                b.withUnsafeMutableBufferPointer { bp in
                    kernel.demosaic(mosaic: m.baseAddress!, width: width, height: height, cfa: cfa,
                                    red: rp.baseAddress!, green: gp.baseAddress!, blue: bp.baseAddress!)
                }
            }
        }
    }
    return (r, g, b)
}

/// Samples a full-colour function through `cfa`.
private func mosaic(_ width: Int, _ height: Int, _ cfa: CFAPattern,
                    _ colour: (Int, Int) -> (Float, Float, Float)) -> [Float] {
    var m = [Float](repeating: 0, count: width * height)
    for y in 0..<height { for x in 0..<width {
        let c = colour(x, y)
        switch cfa.color(x: x, y: y) {
        case .red: m[y * width + x] = c.0
        case .green: m[y * width + x] = c.1
        case .blue: m[y * width + x] = c.2
        }
    } }
    return m
}

/// A deterministic xorshift generator (tests must not depend on the system RNG).
private struct XorShift {
    var state: UInt64
    mutating func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
    mutating func unit() -> Float { Float(next() >> 40) / Float(1 << 24) }
}

private let kernels = DemosaicAlgorithm.allCases
private let cfaNames = ["rggb", "grbg", "bggr", "gbrg"]

@Suite struct DemosaicTests {
    /// A mosaic smaller than the default's `2 · halo + 2` (adaptive-ri: 50 px) is rendered with its
    /// member, msgd (34 px); from 50 px on with adaptive-ri itself; an algorithm without a member
    /// (mlri, 56 px) still refuses a mosaic too small for it, naming the size.
    @Test func smallMosaicsUseTheBlendsMember() throws {
        func plan(_ w: Int, _ h: Int, _ demosaic: DemosaicAlgorithm = .default) throws -> DevelopPlan {
            // The chart needs a larger canvas; the plan takes the mosaic's size on its own.
            var md = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: 256, height: 256).makeRawImage().metadata
            md.defaultCrop = nil
            var recipe = DevelopRecipe()
            recipe.demosaic = demosaic
            return try DevelopPlan(metadata: md, width: w, height: h, samplesPerPixel: 1, recipe: recipe, opcodes: ParsedOpcodeLists(md))
        }
        #expect(DemosaicAlgorithm.default.halo == 24 && DemosaicAlgorithm.msgd.halo == 16)
        #expect(try plan(60, 40).recipe.demosaic == .msgd)
        #expect(try plan(49, 80).recipe.demosaic == .msgd)
        #expect(try plan(50, 50).recipe.demosaic == .adaptiveRI)
        #expect(try plan(40, 40, .hybrid).recipe.demosaic == .msg)
        #expect(throws: DevelopError.self) { try plan(40, 40, .mlri) }
        #expect(throws: DevelopError.self) { try plan(33, 60) }
    }

    @Test func algorithmsAndDefault() {
        #expect(DemosaicAlgorithm.allCases.map(\.rawValue) == ["bilinear", "malvar", "rcd", "gbtf", "ahd", "mlri", "hybrid", "msg", "adaptive", "msgd", "adaptive-ri"])
        #expect(DemosaicAlgorithm.default == .adaptiveRI)
        #expect(DemosaicAlgorithm.bilinear.halo == 1)
        #expect(DemosaicAlgorithm.malvar.halo == 2)
        #expect(DemosaicAlgorithm.rcd.halo == 10)
        #expect(DemosaicAlgorithm.gbtf.halo == 11)
        #expect(DemosaicAlgorithm.ahd.halo == 5)
        #expect(DemosaicAlgorithm.mlri.halo == 27)
        #expect(DemosaicAlgorithm.hybrid.halo == 27)
        #expect(DemosaicAlgorithm.msg.halo == 17)
        #expect(DemosaicAlgorithm.adaptive.halo == 27)
        #expect(DemosaicAlgorithm.msgd.halo == 16)
        #expect(AdaptiveDemosaic(window: 30).halo == 37)
        #expect(HybridDemosaic(window: 30).halo == 37)
        #expect(MLRIDemosaic(greenRadius: 5, colourRadius: 3).halo == 2 * 5 + 2 * 3 + 11)
        #expect(DemosaicAlgorithm(rawValue: "gbtf") == .gbtf)
    }

    /// Colours on a 2⁻¹² grid (as sensor data is): every output pixel, border included, is exact.
    @Test(arguments: kernels, cfaNames)
    func flatFieldsStayExact(algorithm: DemosaicAlgorithm, cfaName: String) throws {
        let cfa = try #require(CFAPattern(name: cfaName))
        let colours: [(Float, Float, Float)] = [
            (0, 0, 0), (1, 1, 1), (1, 0, 0), (0, 1, 0), (0, 0, 1), (0.25, 0.5, 0.75),
            (1234.0 / 4096, 3001.0 / 4096, 77.0 / 4096), (1.5, 0.125, 4095.0 / 4096),
        ]
        let kernel = algorithm.makeKernel()
        let w = 2 * kernel.halo + 10, h = 2 * kernel.halo + 8
        for c in colours {
            let out = run(kernel, mosaic(w, h, cfa) { _, _ in c }, w, h, cfa)
            #expect(out.r.allSatisfy { $0 == c.0 }, "red of \(c)")
            #expect(out.g.allSatisfy { $0 == c.1 }, "green of \(c)")
            #expect(out.b.allSatisfy { $0 == c.2 }, "blue of \(c)")
        }
    }

    /// Off-grid colours: the interior stays within rounding of the colour (MLRI sums up to 121
    /// samples per window mean, so its rounding bound is looser).
    @Test(arguments: kernels)
    func offGridFlatFieldsStayWithinRounding(algorithm: DemosaicAlgorithm) {
        let kernel = algorithm.makeKernel()
        let w = 2 * kernel.halo + 10, h = w
        let c: (Float, Float, Float) = (0.1, 0.7, 0.33)
        let tolerance: Float = algorithm == .mlri || algorithm == .hybrid || algorithm == .adaptive ? 2e-6 : 2e-7
        for cfa in CFAPattern.all {
            let out = run(kernel, mosaic(w, h, cfa) { _, _ in c }, w, h, cfa)
            #expect(out.r.allSatisfy { abs($0 - c.0) <= tolerance })
            #expect(out.g.allSatisfy { abs($0 - c.1) <= tolerance })
            #expect(out.b.allSatisfy { abs($0 - c.2) <= tolerance })
        }
    }

    /// Linear kernels reproduce a per-channel linear horizontal ramp exactly away from the edges.
    @Test(arguments: [DemosaicAlgorithm.bilinear, .malvar], cfaNames)
    func linearKernelsKeepRampsExact(algorithm: DemosaicAlgorithm, cfaName: String) throws {
        let cfa = try #require(CFAPattern(name: cfaName))
        let kernel = algorithm.makeKernel()
        let w = 40, h = 12, e = kernel.halo
        let ramp: (Int, Int) -> (Float, Float, Float) = { x, _ in
            (Float(x) / 64, 0.25 + Float(x) / 128, 1 - Float(x) / 32)
        }
        let out = run(kernel, mosaic(w, h, cfa, ramp), w, h, cfa)
        for y in e..<(h - e) { for x in e..<(w - e) {
            let t = ramp(x, y), i = y * w + x
            #expect(out.r[i] == t.0 && out.g[i] == t.1 && out.b[i] == t.2, "at (\(x), \(y))")
        } }
    }

    /// Adaptive kernels keep a grey ramp a ramp: monotone rows, within 10⁻³ of the truth.
    @Test(arguments: [DemosaicAlgorithm.rcd, .gbtf, .ahd, .mlri, .hybrid, .msg, .adaptive, .msgd], cfaNames)
    func adaptiveKernelsKeepGreyRamps(algorithm: DemosaicAlgorithm, cfaName: String) throws {
        let cfa = try #require(CFAPattern(name: cfaName))
        let kernel = algorithm.makeKernel()
        let w = 2 * kernel.halo + 24, h = 2 * kernel.halo + 4, e = kernel.halo
        let value: (Int) -> Float = { 0.125 + Float($0) / 64 }
        let out = run(kernel, mosaic(w, h, cfa) { x, _ in (value(x), value(x), value(x)) }, w, h, cfa)
        var worst: Float = 0
        for y in e..<(h - e) { for x in e..<(w - e) {
            let i = y * w + x
            for p in [out.r, out.g, out.b] {
                worst = max(worst, abs(p[i] - value(x)))
                if x > e { #expect(p[i] >= p[i - 1], "not monotone at (\(x), \(y))") }
            }
        } }
        #expect(worst <= 1e-3)
    }

    /// Demosaicing a random 96×80 mosaic whole, or as four regions overlapping by the halo,
    /// gives bit-identical pixels at least `halo` from the image edge.
    @Test(arguments: kernels, cfaNames)
    func regionsMatchWholeImage(algorithm: DemosaicAlgorithm, cfaName: String) throws {
        let cfa = try #require(CFAPattern(name: cfaName))
        let kernel = algorithm.makeKernel()
        let w = 96, h = 80, halo = kernel.halo
        var rng = XorShift(state: 0x9E37_79B9_7F4A_7C15)
        let m = (0..<(w * h)).map { _ in rng.unit() * 1.2 }
        let whole = run(kernel, m, w, h, cfa)
        let splitX = 48, splitY = 40
        for (qx0, qx1) in [(0, splitX), (splitX, w)] { for (qy0, qy1) in [(0, splitY), (splitY, h)] {
            let rx0 = max(0, qx0 - halo), rx1 = min(w, qx1 + halo)
            let ry0 = max(0, qy0 - halo), ry1 = min(h, qy1 + halo)
            let rw = rx1 - rx0, rh = ry1 - ry0
            var region = [Float](repeating: 0, count: rw * rh)
            for y in 0..<rh { for x in 0..<rw { region[y * rw + x] = m[(y + ry0) * w + x + rx0] } }
            let part = run(kernel, region, rw, rh, cfa.shifted(dx: rx0, dy: ry0))
            var mismatches = 0
            for y in max(qy0, halo)..<min(qy1, h - halo) { for x in max(qx0, halo)..<min(qx1, w - halo) {
                let i = y * w + x, j = (y - ry0) * rw + (x - rx0)
                if whole.r[i].bitPattern != part.r[j].bitPattern || whole.g[i].bitPattern != part.g[j].bitPattern
                    || whole.b[i].bitPattern != part.b[j].bitPattern { mismatches += 1 }
            } }
            #expect(mismatches == 0, "quadrant (\(qx0), \(qy0))")
        } }
    }

    /// The tiler gives the same bytes for every tile size and worker count.
    @Test(arguments: kernels)
    func tilerIsScheduleIndependent(algorithm: DemosaicAlgorithm) {
        let w = 75, h = 61
        var rng = XorShift(state: 12345)
        let m = (0..<(w * h)).map { _ in rng.unit() }
        let reference = DemosaicTiler(kernel: algorithm.makeKernel(), tileSize: 1000).run(mosaic: m, width: w, height: h, cfa: .grbg)
        for (tile, workers) in [(16, 1), (23, 2), (64, 3)] {
            let out = DemosaicTiler(kernel: algorithm.makeKernel(), tileSize: tile, workers: workers)
                .run(mosaic: m, width: w, height: h, cfa: .grbg)
            #expect(out.red == reference.red && out.green == reference.green && out.blue == reference.blue,
                    "tile \(tile), workers \(workers)")
        }
    }

    /// Zeros, highlights far above 1, small negatives and impulses never produce NaN or Inf.
    @Test(arguments: kernels)
    func outputsStayFinite(algorithm: DemosaicAlgorithm) {
        let kernel = algorithm.makeKernel()
        let w = 2 * kernel.halo + 20, h = 2 * kernel.halo + 18
        var rng = XorShift(state: 777)
        let inputs: [[Float]] = [
            [Float](repeating: 0, count: w * h),
            (0..<(w * h)).map { _ in let u = rng.unit(); return u < 0.3 ? 0 : u < 0.6 ? 4 * u : u - 0.31 },
            (0..<(w * h)).map { $0 % 7 == 0 ? 8 : 0 },
            (0..<(w * h)).map { $0 % 5 == 0 ? -0.01 : 1e-8 },
        ]
        for cfa in CFAPattern.all { for m in inputs {
            let out = run(kernel, m, w, h, cfa)
            #expect(out.r.allSatisfy(\.isFinite) && out.g.allSatisfy(\.isFinite) && out.b.allSatisfy(\.isFinite))
        } }
    }
}

@Suite struct DemosaicTilerTests {
    /// Images smaller than the halo (down to 1×1) still demosaic to finite values; flat stays flat.
    @Test(arguments: [(1, 1), (2, 3), (5, 4), (13, 7)])
    func tinyImages(width: Int, height: Int) {
        for algorithm in DemosaicAlgorithm.allCases {
            let m = [Float](repeating: 0.5, count: width * height)
            let out = DemosaicTiler(kernel: algorithm.makeKernel(), tileSize: 4, workers: 2)
                .run(mosaic: m, width: width, height: height, cfa: .bggr)
            #expect(out.green.count == width * height)
            #expect(out.red.allSatisfy { $0 == 0.5 } && out.green.allSatisfy { $0 == 0.5 } && out.blue.allSatisfy { $0 == 0.5 },
                    "\(algorithm.rawValue) \(width)x\(height)")
        }
    }
}
