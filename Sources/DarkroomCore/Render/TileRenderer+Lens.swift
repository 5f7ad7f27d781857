/// Lens corrections tile by tile: each output tile demosaics only the source area its corrected
/// pixels read, instead of reading a staged copy of the whole demosaiced image.
///
/// Per output tile: the source position of every pixel (`LensResampler.tilePositions`), the area
/// their bicubic taps touch (`LensResampler.sourceArea`), RenderStage 1–5 of that area as one
/// tile (`renderTile`, with the halo it always fetches, so each value equals the whole image's),
/// the vignetting gain on it (`LensResampler.correctVignetting(planes:)`), the resample
/// (`LensResampler.resamplePlanar`), highlight compression again (the resample can overshoot 1),
/// and RenderStage 6–9. Neighbouring tiles' areas overlap by the kernel's reach (and by what
/// distortion gathers from both), which is demosaiced twice; no full-size float image exists.
extension TileRenderer {
    /// The lens correction a `TileJob` runs tile by tile.
    struct LensTiles {
        let modifier: any LensModifier
        /// Distortion or TCA: pixels move (else the source area is the tile itself).
        let geometric: Bool
        /// The vignetting gain runs.
        let vignetting: Bool

        /// The tile-by-tile run of `lens` (nil: nothing runs).
        init?(_ lens: LensCorrection) {
            guard lens.isActive, let modifier = lens.modifier else { return nil }
            self.modifier = modifier
            geometric = lens.isGeometric
            vignetting = lens.correctsVignetting
        }
    }

    /// A worker's buffers for lens tiles, grown to the largest tile and source area seen.
    struct LensScratch {
        /// The output tile's source positions (`LensResampler.positionLayout`).
        var positions: [Float] = []
        /// The source area's demosaiced planes (`TileTarget.planes`).
        var source: [Float] = []
        /// Scratch for rendering the source area, sized for `regionSide` pixels a side.
        var region: TileScratch?
        var regionSide = 0
    }

    /// A tile whose source area is larger than this many times its own area (and than 64 × 64
    /// pixels this many times) is split in two and each half gathered on its own: a model that
    /// reads far-apart places for neighbouring pixels (a fisheye's corners clamped to the image
    /// edge) would otherwise demosaic most of the image for one tile.
    static let lensAreaLimit = 4

    /// Renders output `tile` of a job with `lensTiles` (see the extension's comment) straight to the
    /// job's `.encode` target.
    static func renderLensTile(_ tile: PixelRect, plan: DevelopPlan, job: TileJob, kernel: (any DemosaicKernel)?,
                               scratch: inout TileScratch, lensScratch: inout LensScratch) {
        guard let lens = job.lensTiles, case .encode(let encoder, let sink) = job.target else { return }
        let W = plan.width, H = plan.height
        let tw = tile.width, th = tile.height
        var area = tile
        let (_, rowStride) = LensResampler.positionLayout(of: tile, width: W)
        if lens.geometric {
            if lensScratch.positions.count < rowStride * th {
                lensScratch.positions = .uninitialized(count: rowStride * th)
            }
            area = lensScratch.positions.withUnsafeMutableBufferPointer { p in
                LensResampler.tilePositions(lens.modifier, tile: tile, width: W, into: p.baseAddress!)
                return LensResampler.sourceArea(positions: p.baseAddress! + (tile.x % LensResampler.block) * 6, rowStride: rowStride,
                                                tileWidth: tw, tileHeight: th, width: W, height: H)
            }
            if area.width * area.height > lensAreaLimit * max(tw * th, 64 * 64), tw >= 16 || th >= 16 {
                let halves = tw >= th
                    ? [PixelRect(x: tile.x, y: tile.y, width: tw / 2, height: th),
                       PixelRect(x: tile.x + tw / 2, y: tile.y, width: tw - tw / 2, height: th)]
                    : [PixelRect(x: tile.x, y: tile.y, width: tw, height: th / 2),
                       PixelRect(x: tile.x, y: tile.y + th / 2, width: tw, height: th - th / 2)]
                for half in halves {
                    renderLensTile(half, plan: plan, job: job, kernel: kernel, scratch: &scratch, lensScratch: &lensScratch)
                }
                return
            }
        }
        // RenderStage 1–5 of the source area into three planes. (The buffers are taken out of
        // `lensScratch` while in use, so each is only accessed through its own variable.)
        let side = max(area.width, area.height)
        var region: TileScratch
        if let r = lensScratch.region, lensScratch.regionSide >= side {
            region = r
        } else {
            region = TileScratch(maxTile: side, halo: job.halo)
            lensScratch.regionSide = side
        }
        lensScratch.region = nil
        let plane = area.width * area.height
        var sourceArray = lensScratch.source, positionArray = lensScratch.positions
        lensScratch.source = []; lensScratch.positions = []
        defer { lensScratch.region = region; lensScratch.source = sourceArray; lensScratch.positions = positionArray }
        if sourceArray.count < plane * 3 { sourceArray = .uninitialized(count: plane * 3) }
        sourceArray.withUnsafeMutableBufferPointer { sourceBuffer in
            let source = sourceBuffer.baseAddress!
            // The tile's job for RenderStage 1–5 only: the same controls, stored as planes, no lens.
            var areaJob = job
            areaJob.target = .planes(source, area: area)
            areaJob.lens = nil; areaJob.lensTiles = nil
            renderTile(area, plan: plan, job: areaJob, kernel: kernel, scratch: &region)
            if lens.vignetting {
                LensResampler.correctVignetting(planes: source, area: area, width: W, modifier: lens.modifier)
            }
            scratch.red.withUnsafeMutableBufferPointer { redBuf in
            scratch.green.withUnsafeMutableBufferPointer { greenBuf in
            scratch.blue.withUnsafeMutableBufferPointer { blueBuf in
                let p: OutputTransform.Planes
                if lens.geometric {
                    p = OutputTransform.Planes(r: redBuf.baseAddress!, g: greenBuf.baseAddress!, b: blueBuf.baseAddress!, stride: tw)
                    positionArray.withUnsafeBufferPointer { positions in
                        LensResampler.resamplePlanar(UnsafePointer(source), area: area, width: W, height: H,
                                                     positions: positions.baseAddress! + (tile.x % LensResampler.block) * 6,
                                                     rowStride: rowStride, tileWidth: tw, tileHeight: th,
                                                     red: p.r, green: p.g, blue: p.b, outStride: tw)
                    }
                } else {
                    // The area is the tile.
                    p = OutputTransform.Planes(r: source, g: source + plane, b: source + 2 * plane, stride: area.width)
                }
                // Highlight reconstruction, step 3, on the corrected values (gains and overshoot go past 1).
                if job.highlights != nil {
                    HighlightRecovery.compress(r: p.r, g: p.g, b: p.b, stride: p.stride, width: tw, height: th)
                }
                // RenderStage 6–9.
                encoder.encode(planes: p, tile: tile, crop: plan.crop, orientation: plan.orientation, sink: sink)
            }
            }
            }
        }
    }
}
