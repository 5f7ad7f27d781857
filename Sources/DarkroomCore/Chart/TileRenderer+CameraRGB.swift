extension TileRenderer {
    /// Balanced camera RGB of the whole decoded image (`CameraRGBImage`): RenderStage 1–5 of `plan`
    /// exactly as `render` runs them (linearise, OpcodeList2, white balance with clipping at 1,
    /// demosaic, OpcodeList3, whole-image lists staged the same way), stored as 32-bit floats
    /// instead of going through the matrix, tone and quantisation. Tile size and thread count
    /// change speed, never values. Memory: 12 bytes per decoded pixel.
    public static func cameraRGB(_ raw: RawImage, plan: DevelopPlan) -> CameraRGBImage {
        let W = plan.width, H = plan.height, spp = plan.samplesPerPixel
        let full = PixelRect(x: 0, y: 0, width: W, height: H)
        let kernel: (any DemosaicKernel)? = spp == 1 ? plan.recipe.demosaic.makeKernel() : nil
        var rgb = [Float](repeating: 0, count: W * H * 3)
        raw.pixels.withUnsafeBufferPointer { src in
            let balanced = wholeImageBalanced(plan: plan, src: src)
            balanced.withUnsafeBufferPointer { bal in
                let source: TileSource = bal.isEmpty ? .mosaic(src) : .balanced(bal)
                rgb.withUnsafeMutableBufferPointer { f in
                    runTiles(over: full, plan: plan, raw: raw, source: source, target: .store(f.baseAddress!), kernel: kernel)
                }
            }
        }
        if let list3 = plan.opcodeList3, plan.opcodeList3NeedsWholeImage {
            var w = W, h = H
            do { try list3.applyWhole(to: &rgb, width: &w, height: &h, planes: 3, cfa: nil) } catch {}
        }
        return CameraRGBImage(width: W, height: H, pixels: rgb, crop: plan.crop, orientation: plan.orientation)
    }
}
