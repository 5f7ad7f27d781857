import Dispatch
import Foundation
import Synchronization

/// Runs a `DevelopPlan` over a `RawImage`, tile by tile (`RenderStage` 1–9): the tile scheduler of
/// DESIGN.md.
///
/// The crop rectangle is cut into `tileSize × tileSize` output tiles. Each worker owns its
/// scratch buffers (the tile plus the demosaic halo, as Float) and, per tile: fetches and
/// linearises the mosaic (mirroring across image edges, which keeps the CFA parity), applies
/// OpcodeList2, white balance, demosaic, OpcodeList3, the colour matrix, gamut mapping, tone
/// and transfer, and writes the quantised pixels straight to their oriented place in the output.
/// Only the 16-bit mosaic and the output buffer are full size. Every output pixel is a pure
/// function of the mosaic around it, so tile size and thread count never change a byte.
public enum TileRenderer {
    /// Renders `raw` with `plan`. The result has no ICC profile (the IO layer attaches it).
    public static func render(_ raw: RawImage, plan: DevelopPlan) -> RenderedImage {
        let (outW, outH) = plan.outputSize
        let bits = plan.recipe.bitsPerSample
        // Every output sample is written by exactly one tile, so the buffers need no zero-fill.
        var out8: [UInt8] = bits == 8 ? .uninitialized(count: outW * outH * 3) : []
        var out16: [UInt16] = bits == 16 ? .uninitialized(count: outW * outH * 3) : []
        var out32: [Float] = bits == 32 ? .uninitialized(count: outW * outH * 3) : []

        let encoder = OutputTransform(plan: plan)
        let kernel: (any DemosaicKernel)? = plan.samplesPerPixel == 1 ? plan.recipe.demosaic.makeKernel() : nil
        let W = plan.width, H = plan.height
        let full = PixelRect(x: 0, y: 0, width: W, height: H)

        out8.withUnsafeMutableBufferPointer { b8 in
        out16.withUnsafeMutableBufferPointer { b16 in
        out32.withUnsafeMutableBufferPointer { b32 in
        raw.pixels.withUnsafeBufferPointer { srcBuffer in
            // (An empty array's buffer may still have a non-nil base address: decide by bit depth.)
            let sink = OutputSink(p8: bits == 8 ? b8.baseAddress : nil, p16: bits == 16 ? b16.baseAddress : nil,
                                  p32: bits == 32 ? b32.baseAddress : nil, width: outW)
            let encode = TileTarget.encode(encoder, sink)
            var source = TileSource.mosaic(srcBuffer)

            // Staged mode, only for opcode lists that need the whole image (DESIGN.md's one exception
            // to "no full-size float intermediates"): List2 runs on a full linearised, balanced copy…
            let balanced = wholeImageBalanced(plan: plan, src: srcBuffer)
            balanced.withUnsafeBufferPointer { bal in
                if !bal.isEmpty { source = .balanced(bal) }
                // Highlight reconstruction's whole-image analysis (nil: nothing clipped, or `.clip`).
                let highlights = plan.recipe.highlights == .reconstruct ? HighlightRecovery.analyse(plan: plan, source: source) : nil
                // The noise estimated from the image (files without a NoiseProfile): measured at most
                // once per render, for noise reduction and, when that is off or declines, sharpening.
                var estimated: NoiseModel?? = nil
                let estimate = { [source] () -> NoiseModel? in
                    if let e = estimated { return e }
                    let m = NoiseModel.measure(plan: plan, source: source)
                    estimated = .some(m)
                    return m
                }
                let denoise = NoiseReduction.resolve(plan: plan, estimate: estimate)
                let sharpen = CaptureSharpening.resolve(plan: plan, denoise: denoise, estimate: estimate)
                // A lens correction (`LensResampler`) demosaics each output tile's source area on its own
                // (`renderLensTile`), unless a whole-image List3 stages the image anyway.
                let lens = plan.lens.flatMap { $0.isActive ? $0 : nil }
                if plan.opcodeList3 != nil && plan.opcodeList3NeedsWholeImage {
                    // …and List3 on the full demosaiced image (every sample is stored by a tile: no zero-fill).
                    var rgbFull: [Float] = .uninitialized(count: W * H * 3)
                    rgbFull.withUnsafeMutableBufferPointer { f in
                        runTiles(over: full, plan: plan, raw: raw, source: source, target: .store(f.baseAddress!),
                                 kernel: kernel, highlights: highlights, denoise: denoise, sharpen: sharpen)
                    }
                    if let list3 = plan.opcodeList3, plan.opcodeList3NeedsWholeImage {
                        var w = W, h = H
                        do { try list3.applyWhole(to: &rgbFull, width: &w, height: &h, planes: 3, cfa: nil) } catch {}
                    }
                    if let lens, lens.correctsVignetting, let modifier = lens.modifier {
                        rgbFull.withUnsafeMutableBufferPointer { f in
                            LensResampler.correctVignetting(f.baseAddress!, width: W, height: H, modifier: modifier,
                                                            threads: plan.recipe.threads)
                        }
                    }
                    rgbFull.withUnsafeBufferPointer { f in
                        runTiles(over: plan.crop, plan: plan, raw: raw, source: .demosaiced(f), target: encode,
                                 kernel: kernel, highlights: highlights, lens: lens?.isGeometric == true ? lens?.modifier : nil)
                    }
                } else {
                    runTiles(over: plan.crop, plan: plan, raw: raw, source: source, target: encode, kernel: kernel,
                             highlights: highlights, denoise: denoise, sharpen: sharpen, lensTiles: lens.flatMap(LensTiles.init))
                }
            }
        }
        }
        }
        }
        var image = RenderedImage(width: outW, height: outH, bitsPerSample: bits, pixels8: out8, pixels16: out16,
                                  colorSpaceName: plan.recipe.colorSpace.rawValue, iccProfile: [],
                                  exif: raw.metadata.exif)
        image.pixels32 = out32
        if plan.recipe.thumbnailSize > 0 && bits != 32 {
            image.thumbnail = Thumbnailer.thumbnail(of: image, longSide: plan.recipe.thumbnailSize)
        }
        return image
    }

    /// Stages 1–3 on the whole image when OpcodeList2 needs it (`opcodeList2NeedsWholeImage`):
    /// linearised, List2 applied whole, white-balanced; empty otherwise (tiles then linearise
    /// their own part).
    static func wholeImageBalanced(plan: DevelopPlan, src: UnsafeBufferPointer<UInt16>) -> [Float] {
        guard let list = plan.opcodeList2, plan.opcodeList2NeedsWholeImage else { return [] }
        let W = plan.width, H = plan.height
        var balanced = [Float](repeating: 0, count: W * H * plan.samplesPerPixel)
        balanced.withUnsafeMutableBufferPointer { b in
            lineariseRegion(plan: plan, src: src, into: b.baseAddress!, rx: 0, ry: 0, rw: W,
                            ix0: 0, ix1: W, iy0: 0, iy1: H, list2: nil, whiteBalance: false)
        }
        var w = W, h = H
        do { try list.applyWhole(to: &balanced, width: &w, height: &h, planes: plan.samplesPerPixel, cfa: plan.cfa) } catch {}
        balanced.withUnsafeMutableBufferPointer { b in
            whiteBalanceRegion(plan: plan, m: b.baseAddress!, rx: 0, ry: 0, rw: W, ix0: 0, ix1: W, iy0: 0, iy1: H)
        }
        return balanced
    }

    /// Where workers write: raw pointers into the output arrays (tiles never overlap).
    struct OutputSink: @unchecked Sendable {
        let p8: UnsafeMutablePointer<UInt8>?
        let p16: UnsafeMutablePointer<UInt16>?
        /// Float output (`bitsPerSample` 32): the values before transfer and quantisation.
        let p32: UnsafeMutablePointer<Float>?
        let width: Int
    }

    /// Per-worker buffers, allocated once.
    struct TileScratch {
        let capacity: Int
        var mosaic: [Float]
        var red: [Float], green: [Float], blue: [Float]
        var rgb: [Float]
        init(maxTile: Int, halo: Int) {
            let side = maxTile + 2 * halo
            capacity = side * side
            mosaic = [Float](repeating: 0, count: capacity * 3)
            red = [Float](repeating: 0, count: capacity)
            green = red; blue = red
            rgb = [Float](repeating: 0, count: maxTile * maxTile * 3)
        }
    }

    @inline(__always)
    static func mirror(_ i: Int, _ n: Int) -> Int {
        var v = i
        // Reflect without repeating the edge sample (keeps CFA parity); loops only for tiny images.
        while v < 0 || v >= n { v = v < 0 ? -v : 2 * (n - 1) - v }
        return v
    }

    /// Where a tile's input comes from.
    enum TileSource {
        /// The stored mosaic: linearise, pointwise OpcodeList2 and white balance happen per tile.
        case mosaic(UnsafeBufferPointer<UInt16>)
        /// A full linearised, OpcodeList2-applied, balanced image (`samplesPerPixel` interleaved).
        case balanced(UnsafeBufferPointer<Float>)
        /// A full demosaiced, OpcodeList3-applied, interleaved RGB image.
        case demosaiced(UnsafeBufferPointer<Float>)
    }

    /// A `TileSource` shared read-only by the workers of a whole-image analysis (highlight
    /// reconstruction's, the noise estimate's).
    struct SourceBox: @unchecked Sendable { let source: TileSource }

    /// Where a tile's demosaiced RGB goes.
    enum TileTarget {
        case encode(OutputTransform, OutputSink)
        /// Store balanced camera RGB into a full `width × height × 3` interleaved buffer.
        case store(UnsafeMutablePointer<Float>)
        /// Store balanced camera RGB of `area` (tiles inside it) as three planes, red then green then
        /// blue, `area.width` floats a row and `area.width × area.height` a plane.
        case planes(UnsafeMutablePointer<Float>, area: PixelRect)
    }

    /// Tiles `area` and spreads them over the workers.
    static func runTiles(over area: PixelRect, plan: DevelopPlan, raw: RawImage, source: TileSource,
                         target: TileTarget, kernel: (any DemosaicKernel)?, highlights: HighlightRecovery? = nil,
                         denoise: NoiseReduction? = nil, sharpen: CaptureSharpening? = nil,
                         lens: (any LensModifier)? = nil, lensTiles: LensTiles? = nil) {
        let tileSize = plan.recipe.tileSize
        var tiles: [PixelRect] = []
        var ty = area.y
        while ty < area.maxY {
            var tx = area.x
            let th = min(tileSize, area.maxY - ty)
            while tx < area.maxX {
                tiles.append(PixelRect(x: tx, y: ty, width: min(tileSize, area.maxX - tx), height: th))
                tx += tileSize
            }
            ty += tileSize
        }
        let tileList = tiles
        let workers = max(1, min(plan.recipe.threads > 0 ? plan.recipe.threads : ProcessInfo.processInfo.activeProcessorCount, tiles.count))
        let next = Atomic<Int>(0)
        // Reconstructing highlights reads each sample's 5×5 window: two more rings.
        // Sharpening reads the demosaiced tile ± its window radius: that much more again; noise
        // reduction, on the mosaic before all of them, its own reach beyond that.
        // (LinearRaw: no demosaic and no mosaic stage; its full-resolution stages read the balanced image.)
        let filtered = kernel != nil || plan.samplesPerPixel == 3
        let denoise = denoise.flatMap { filtered ? $0 : nil }, sharpen = sharpen.flatMap { filtered ? $0 : nil }
        let filterReach = (sharpen?.reach ?? 0) + (denoise?.fullResolutionReach ?? 0)
        let halo = plan.demosaicHalo + (highlights != nil ? HighlightRecovery.reach : 0) + filterReach
            + (denoise != nil && kernel != nil ? NoiseReduction.mosaicReach : 0)
        let job = TileJob(source: source, target: target, highlights: highlights, denoise: denoise, sharpen: sharpen,
                          filterReach: filterReach, halo: halo, lens: lens, lensTiles: lensTiles)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var scratch = TileScratch(maxTile: tileSize, halo: halo)
            var lensScratch = LensScratch()
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if i >= tileList.count { break }
                if job.lensTiles != nil {
                    renderLensTile(tileList[i], plan: plan, job: job, kernel: kernel, scratch: &scratch, lensScratch: &lensScratch)
                } else {
                    renderTile(tileList[i], plan: plan, job: job, kernel: kernel, scratch: &scratch)
                }
            }
        }
        _ = raw
    }

    /// Source and target shared by all workers (read-only source, disjoint writes).
    struct TileJob: @unchecked Sendable {
        let source: TileSource
        var target: TileTarget
        /// Highlight reconstruction for this image (nil: none).
        let highlights: HighlightRecovery?
        /// Noise reduction on the balanced mosaic before the demosaic and at full resolution after
        /// it (LinearRaw: at full resolution only; nil: none).
        let denoise: NoiseReduction?
        /// Capture sharpening after the demosaic (LinearRaw: on the balanced image; nil: none).
        let sharpen: CaptureSharpening?
        /// Demosaiced context sharpening reads around the tile.
        let filterReach: Int
        /// Mosaic context fetched around a tile: the demosaic's halo, plus `HighlightRecovery.reach` for
        /// `highlights`, `filterReach`, and `NoiseReduction.mosaicReach` for `denoise`.
        let halo: Int
        /// Distortion/TCA resample of a `.demosaiced` source (`LensResampler`; nil: copy).
        var lens: (any LensModifier)?
        /// A lens correction run tile by tile (`renderLensTile`; nil: none).
        var lensTiles: LensTiles? = nil
    }

    /// Stage 1 (and pointwise OpcodeList2, and optionally white balance) for the in-image rows
    /// `iy0..<iy1`, columns `ix0..<ix1`, into a buffer whose element (0, 0) is image pixel (rx, ry)
    /// and whose rows are `rw` pixels long.
    static func lineariseRegion(plan: DevelopPlan, src: UnsafeBufferPointer<UInt16>, into m: UnsafeMutablePointer<Float>,
                                rx: Int, ry: Int, rw: Int, ix0: Int, ix1: Int, iy0: Int, iy1: Int,
                                list2: OpcodeList?, whiteBalance: Bool) {
        guard ix1 > ix0, iy1 > iy0 else { return }
        let spp = plan.samplesPerPixel, W = plan.width, H = plan.height
        let bRows = plan.blackRepeatRows, bCols = plan.blackRepeatColumns
        // Fast path (the common case): a mosaic with a ≤ 2×2 black pattern, no deltas, no List2 —
        // linearise and white-balance in one pass, two sites at a time.
        if spp == 1, let cfa = plan.cfa, bRows <= 2, bCols <= 2, plan.blackDeltaH == nil, plan.blackDeltaV == nil,
           list2 == nil, whiteBalance {
            let gains = plan.whiteBalanceGains
            let range = plan.linearRange[0]
            for y in iy0..<iy1 {
                let b0 = plan.blackLevels[(y % bRows) * bCols + (ix0 % bCols)]
                let b1 = plan.blackLevels[(y % bRows) * bCols + ((ix0 + 1) % bCols)]
                let k0 = gains[Int(cfa.color(x: ix0, y: y).rawValue)] / range
                let k1 = gains[Int(cfa.color(x: ix0 + 1, y: y).rawValue)] / range
                let srcRow = src.baseAddress! + y * W
                let dstRow = m + (y - ry) * rw - rx
                var x = ix0
                while x + 1 < ix1 {
                    dstRow[x] = min((Float(srcRow[x]) - b0) * k0, 1)
                    dstRow[x + 1] = min((Float(srcRow[x + 1]) - b1) * k1, 1)
                    x += 2
                }
                if x < ix1 { dstRow[x] = min((Float(srcRow[x]) - b0) * k0, 1) }
            }
            return
        }
        let scale = plan.linearRange.map { 1 / $0 }
        plan.blackLevels.withUnsafeBufferPointer { black in
            let deltaH = plan.blackDeltaH
            for y in iy0..<iy1 {
                let dv = plan.blackDeltaV?[y] ?? 0
                let srcRow = src.baseAddress! + y * W * spp
                let dstRow = m + ((y - ry) * rw - rx) * spp
                let brow = (y % bRows) * bCols
                for x in ix0..<ix1 {
                    let dh = deltaH?[x] ?? 0
                    let bIndex = (brow + x % bCols) * spp
                    for s in 0..<spp {
                        let b = black[bIndex + s] + dh + dv
                        dstRow[x * spp + s] = (Float(srcRow[x * spp + s]) - b) * scale[s]
                    }
                }
            }
        }
        if let list = list2 {
            list.applyPointwise(to: m + ((iy0 - ry) * rw + (ix0 - rx)) * spp, rowStride: rw * spp,
                                region: PixelRect(x: ix0, y: iy0, width: ix1 - ix0, height: iy1 - iy0),
                                planes: spp, imageWidth: W, imageHeight: H)
        }
        if whiteBalance { whiteBalanceRegion(plan: plan, m: m, rx: rx, ry: ry, rw: rw, ix0: ix0, ix1: ix1, iy0: iy0, iy1: iy1) }
    }

    /// RenderStage 1–3 of a region from a tile source, laid out as `lineariseRegion` lays it out:
    /// the stored mosaic linearised with pointwise OpcodeList2 and white balance, or a staged
    /// balanced image copied. (Nothing for an already demosaiced source.)
    static func balancedRegion(plan: DevelopPlan, source: TileSource, into m: UnsafeMutablePointer<Float>,
                               rx: Int, ry: Int, rw: Int, ix0: Int, ix1: Int, iy0: Int, iy1: Int) {
        let spp = plan.samplesPerPixel, W = plan.width
        switch source {
        case .mosaic(let src):
            let list2 = plan.opcodeList2NeedsWholeImage ? nil : plan.opcodeList2
            lineariseRegion(plan: plan, src: src, into: m, rx: rx, ry: ry, rw: rw,
                            ix0: ix0, ix1: ix1, iy0: iy0, iy1: iy1, list2: list2, whiteBalance: true)
        case .balanced(let full):
            for y in iy0..<iy1 where ix1 > ix0 {
                (m + ((y - ry) * rw + (ix0 - rx)) * spp).update(
                    from: full.baseAddress! + (y * W + ix0) * spp, count: (ix1 - ix0) * spp)
            }
        case .demosaiced: break
        }
    }

    /// Stage 3: white-balance gains per CFA colour, clipped at 1.0.
    static func whiteBalanceRegion(plan: DevelopPlan, m: UnsafeMutablePointer<Float>, rx: Int, ry: Int, rw: Int,
                                   ix0: Int, ix1: Int, iy0: Int, iy1: Int) {
        guard ix1 > ix0, iy1 > iy0 else { return }
        let gains = plan.whiteBalanceGains
        if plan.samplesPerPixel == 1, let cfa = plan.cfa {
            for y in iy0..<iy1 {
                let row = m + (y - ry) * rw - rx
                let g0 = gains[Int(cfa.color(x: ix0, y: y).rawValue)]
                let g1 = gains[Int(cfa.color(x: ix0 + 1, y: y).rawValue)]
                var x = ix0
                while x < ix1 {
                    row[x] = min(row[x] * g0, 1)
                    if x + 1 < ix1 { row[x + 1] = min(row[x + 1] * g1, 1) }
                    x += 2
                }
            }
        } else {
            for y in iy0..<iy1 {
                let row = m + ((y - ry) * rw - rx) * 3
                for x in ix0..<ix1 {
                    row[x * 3] = min(row[x * 3] * gains.x, 1)
                    row[x * 3 + 1] = min(row[x * 3 + 1] * gains.y, 1)
                    row[x * 3 + 2] = min(row[x * 3 + 2] * gains.z, 1)
                }
            }
        }
    }

    static func renderTile(_ tile: PixelRect, plan: DevelopPlan, job: TileJob, kernel: (any DemosaicKernel)?,
                           scratch: inout TileScratch) {
        let spp = plan.samplesPerPixel
        let W = plan.width, H = plan.height
        let tw = tile.width, th = tile.height
        // (A demosaiced source already had List3, pointwise or whole.)
        var list3 = plan.opcodeList3NeedsWholeImage ? nil : plan.opcodeList3
        if case .demosaiced = job.source { list3 = nil }

        scratch.rgb.withUnsafeMutableBufferPointer { rgbBuf in
        scratch.red.withUnsafeMutableBufferPointer { redBuf in
        scratch.green.withUnsafeMutableBufferPointer { greenBuf in
        scratch.blue.withUnsafeMutableBufferPointer { blueBuf in
            let rgb = rgbBuf.baseAddress!
            let red = redBuf.baseAddress!, green = greenBuf.baseAddress!, blue = blueBuf.baseAddress!
            // The tile's camera RGB ends up either as planes (straight from the demosaic) or
            // interleaved in `rgb` (full-colour sources, a staged image, pointwise OpcodeList3).
            var planes: OutputTransform.Planes?
            if case .demosaiced(let full) = job.source, let lens = job.lens {
                LensResampler.resample(full.baseAddress!, width: W, height: H, modifier: lens, tile: tile, into: rgb)
            } else if case .demosaiced(let full) = job.source {
                for y in 0..<th {
                    (rgb + y * tw * 3).update(from: full.baseAddress! + ((tile.y + y) * W + tile.x) * 3, count: tw * 3)
                }
            } else {
                let h = job.halo
                let rx = tile.x - h, ry = tile.y - h
                let rw = tile.width + 2 * h, rh = tile.height + 2 * h
                let ix0 = max(rx, 0), ix1 = min(rx + rw, W), iy0 = max(ry, 0), iy1 = min(ry + rh, H)
                scratch.mosaic.withUnsafeMutableBufferPointer { mos in
                    let m = mos.baseAddress!
                    // RenderStage 1–3: linearise, pointwise OpcodeList2, white balance (or copy a staged image).
                    balancedRegion(plan: plan, source: job.source, into: m, rx: rx, ry: ry, rw: rw,
                                   ix0: ix0, ix1: ix1, iy0: iy0, iy1: iy1)
                    // Mirror the out-of-image border from in-image samples (same CFA parity).
                    if ix0 > rx || ix1 < rx + rw {
                        for y in iy0..<iy1 {
                            let row = m + (y - ry) * rw * spp
                            for bx in 0..<rw where rx + bx < 0 || rx + bx >= W {
                                let sx = mirror(rx + bx, W) - rx
                                for s in 0..<spp { row[bx * spp + s] = row[sx * spp + s] }
                            }
                        }
                    }
                    for by in 0..<rh where ry + by < 0 || ry + by >= H {
                        let sy = mirror(ry + by, H) - ry
                        (m + by * rw * spp).update(from: m + sy * rw * spp, count: rw * spp)
                    }
                    // Noise reduction on the balanced mosaic (before highlight reconstruction reads it).
                    if spp == 1, let nr = job.denoise, let cfa = plan.cfa {
                        nr.apply(mosaic: m, width: rw, height: rh, rx: rx, ry: ry, cfa: cfa)
                    }
                    // Highlight reconstruction, step 2 (before the demosaic; `red` is free scratch here).
                    if let hl = job.highlights {
                        if spp == 1, let cfa = plan.cfa {
                            hl.reconstructMosaic(m, copy: red, rx: rx, ry: ry, rw: rw, rh: rh, cfa: cfa, imageWidth: W, imageHeight: H)
                        } else if spp == 3 {
                            hl.reconstructRGB(m, rx: rx, ry: ry, rw: rw, rh: rh, imageWidth: W, imageHeight: H)
                        }
                    }
                    // RenderStage 4: demosaic into three planes (balanced camera space).
                    if spp == 1, let kernel, let cfa = plan.cfa {
                        kernel.demosaic(mosaic: UnsafePointer(m), width: rw, height: rh, cfa: cfa.shifted(dx: rx, dy: ry),
                                        red: red, green: green, blue: blue)
                        let o = h * rw + h
                        planes = OutputTransform.Planes(r: red + o, g: green + o, b: blue + o, stride: rw)
                    } else if spp == 3 && (job.denoise != nil || job.sharpen != nil) {
                        // LinearRaw with full-resolution stages: the region as planes, like a demosaic's output.
                        deinterleave(m, count: rw * rh, red: red, green: green, blue: blue)
                        let o = h * rw + h
                        planes = OutputTransform.Planes(r: red + o, g: green + o, b: blue + o, stride: rw)
                    } else {
                        for y in 0..<th {
                            (rgb + y * tw * 3).update(from: m + ((y + h) * rw + h) * 3, count: tw * 3)
                        }
                    }
                }
            }
            // Highlight reconstruction, step 3: back into 0…1, keeping each pixel's channel ratios.
            if job.highlights != nil {
                if let p = planes {
                    // Over the area noise reduction reads too.
                    let e = job.filterReach
                    let o = e * p.stride + e
                    HighlightRecovery.compress(r: p.r - o, g: p.g - o, b: p.b - o, stride: p.stride, width: tw + 2 * e, height: th + 2 * e)
                } else {
                    HighlightRecovery.compressInterleaved(rgb, width: tw, height: th, rowStride: tw * 3)
                }
            }
            // Noise reduction after the demosaic (reads the tile ± filterReach, leaves ± sharpening's reach).
            if let p = planes, let nr = job.denoise { nr.applyFullResolution(p, width: tw, height: th, reach: job.filterReach) }
            // Capture sharpening (on planes: demosaiced mosaics, or LinearRaw with its full-resolution stages; they hold the tile ± its reach).
            if let p = planes, let sh = job.sharpen {
                withUnsafeTemporaryAllocation(of: Float.self, capacity: tw * th) { delta in
                    sh.delta(r: p.r, g: p.g, b: p.b, stride: p.stride, width: tw, height: th, into: delta.baseAddress!)
                    CaptureSharpening.applyDelta(delta.baseAddress!, r: p.r, g: p.g, b: p.b, stride: p.stride, width: tw, height: th)
                }
            }
            // RenderStage 5: pointwise OpcodeList3 (a whole-image List3 runs after all tiles are stored) works
            // on interleaved RGB.
            if let list3 {
                if let p = planes { interleave(p, into: rgb, width: tw, height: th); planes = nil }
                list3.applyPointwise(to: rgb, rowStride: tw * 3, region: tile, planes: 3, imageWidth: W, imageHeight: H)
            }
            switch job.target {
            case .encode(let encoder, let sink):
                // RenderStage 6–9 (OutputTransform): matrix, gamut, tone, transfer, quantise, place.
                let p = planes ?? {
                    // Interleaved → planes (in the scratch planes, which hold ≥ tw × th samples).
                    deinterleave(rgb, count: tw * th, red: red, green: green, blue: blue)
                    return OutputTransform.Planes(r: red, g: green, b: blue, stride: tw)
                }()
                encoder.encode(planes: p, tile: tile, crop: plan.crop, orientation: plan.orientation, sink: sink)
            case .planes(let full, let area):
                let plane = area.width * area.height
                for y in 0..<th {
                    let o = (tile.y - area.y + y) * area.width + tile.x - area.x
                    if let p = planes {
                        (full + o).update(from: p.r + y * p.stride, count: tw)
                        (full + plane + o).update(from: p.g + y * p.stride, count: tw)
                        (full + 2 * plane + o).update(from: p.b + y * p.stride, count: tw)
                    } else {
                        let row = rgb + y * tw * 3
                        for x in 0..<tw {
                            full[o + x] = row[x * 3]; full[plane + o + x] = row[x * 3 + 1]; full[2 * plane + o + x] = row[x * 3 + 2]
                        }
                    }
                }
            case .store(let full):
                if let p = planes {
                    interleave(p, into: full + (tile.y * W + tile.x) * 3, width: tw, height: th, rowStride: W * 3)
                } else {
                    for y in 0..<th {
                        (full + ((tile.y + y) * W + tile.x) * 3).update(from: rgb + y * tw * 3, count: tw * 3)
                    }
                }
            }
        }
        }
        }
        }
    }

    /// Planes → interleaved RGB rows of `rowStride` floats (default: packed).
    /// `count` interleaved RGB samples into three contiguous planes (the inverse of `interleave` without strides).
    static func deinterleave(_ src: UnsafePointer<Float>, count: Int, red: UnsafeMutablePointer<Float>,
                             green: UnsafeMutablePointer<Float>, blue: UnsafeMutablePointer<Float>) {
        for i in 0..<count { red[i] = src[i * 3]; green[i] = src[i * 3 + 1]; blue[i] = src[i * 3 + 2] }
    }

    static func interleave(_ p: OutputTransform.Planes, into dst: UnsafeMutablePointer<Float>, width: Int, height: Int,
                           rowStride: Int? = nil) {
        let stride = rowStride ?? width * 3
        for y in 0..<height {
            let d = dst + y * stride, o = y * p.stride
            for x in 0..<width {
                d[x * 3] = p.r[o + x]; d[x * 3 + 1] = p.g[o + x]; d[x * 3 + 2] = p.b[o + x]
            }
        }
    }
}
