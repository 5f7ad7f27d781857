import Foundation

/// GainMap on a 16-bit stage image exactly as the DNG SDK 1.7.1 applies it (dng_gain_map.cpp,
/// `dng_opcode_GainMap::ProcessArea` and `dng_gain_map_interpolator`; dng_area_task.cpp for the
/// tiling), so that Darkroom's stage images equal `dng_validate`'s to the code.
///
/// The SDK does not evaluate the map at each pixel. It splits the image into processing tiles
/// (`dng_area_task::FindTileSize`: at most 256×256, evened out so every tile of a row has nearly
/// the same width, laid from the image's top-left corner) and, for each selected row of a tile,
/// evaluates the map once at the tile's first selected column — the two map rows blended in Float,
/// the two map columns in Double, rounded to Float — and then steps along the row in Float:
/// gain = base + step · index, index += 1 per image column, re-evaluated whenever the column
/// crosses into the next map cell. The result differs from a direct evaluation only by Float
/// rounding, but on stored 14-bit codes that can flip one code, which linearisation multiplies by
/// about 4. Samples are read as code / 65535, multiplied by the gain, limited to 1 (as the SDK's
/// `Min_real32`) and stored back as UInt16(v · 65535 + 0.5).
///
/// The render's tile-parallel path (`applyPointwise`) keeps the direct evaluation: it is
/// independent of Darkroom's own tile size, which stepping from tile edges would not be.
struct SDKGainMapStepping {
    let map: DNGOpcode.GainMap
    let width: Int, height: Int, planes: Int

    init(_ map: DNGOpcode.GainMap, width: Int, height: Int, planes: Int) {
        self.map = map; self.width = width; self.height = height; self.planes = planes
    }

    /// The SDK's processing-tile size for an area task over a `w`×`h` area with no repeating
    /// tile (`dng_area_task::FindTileSize` with the default 256×256 maximum and a 1×1 unit cell).
    static func tileSize(width w: Int, height h: Int) -> (width: Int, height: Int) {
        func even(_ n: Int) -> Int {
            let size = max(min(n, 256), 1)
            let count = max((n + size - 1) / size, 1)
            return max((n + count - 1) / count, 1)
        }
        return (even(w), even(h))
    }

    func apply(to pixels: inout [UInt16]) {
        let a = ResolvedArea(map.area, width: width, height: height, imagePlanes: planes)
        if a.isEmpty || width < 1 || height < 1 { return }
        let pv = Int(map.mapPointsV), ph = Int(map.mapPointsH), mapPlanes = Int(map.mapPlanes)
        guard pv >= 1, ph >= 1, mapPlanes >= 1, map.gains.count >= pv * ph * mapPlanes else { return }
        let tile = Self.tileSize(width: width, height: height)
        let toFloat: Float = 1 / 65535
        map.gains.withUnsafeBufferPointer { g in
            var tileLeft = 0
            while tileLeft < width {
                let tileRight = min(tileLeft + tile.width, width)
                // The tile's first and last selected columns (dng_area_spec::ScaledOverlap).
                let x0 = ResolvedArea.aligned(max(a.left, tileLeft), origin: a.originX, pitch: a.colPitch)
                let xEnd = min(a.right, tileRight)
                if x0 < xEnd {
                    let columns = xEnd - x0
                    let pitch = min(a.colPitch, columns)
                    var y = ResolvedArea.aligned(a.top, origin: a.originY, pitch: a.rowPitch)
                    while y < a.bottom {
                        for plane in a.firstPlane..<a.endPlane {
                            var step = Interpolator(map: map, gains: g, points: (pv, ph), mapPlanes: mapPlanes,
                                                    plane: min(plane, mapPlanes - 1), width: width, height: height,
                                                    row: y, column: x0)
                            var x = x0
                            while x < xEnd {
                                let i = (y * width + x) * planes + plane
                                let v = min(Float(pixels[i]) * toFloat * step.value, 1)
                                pixels[i] = stageCode(v)
                                for _ in 0..<pitch { step.increment() }
                                x += a.colPitch
                            }
                        }
                        y += a.rowPitch
                    }
                }
                tileLeft = tileRight
            }
        }
    }

    /// `dng_gain_map_interpolator`, field for field.
    struct Interpolator {
        let gains: UnsafeBufferPointer<Float>
        let ph: Int, mapPlanes: Int, plane: Int
        let scaleH: Double, offsetH: Double, originH: Double, spacingH: Double
        let row1: Int, row2: Int, rowFraction: Float
        var column: Int
        var resetColumn = 0
        var base: Float = 0, stepSize: Float = 0, index: Float = 0

        init(map: DNGOpcode.GainMap, gains: UnsafeBufferPointer<Float>, points: (Int, Int), mapPlanes: Int,
             plane: Int, width: Int, height: Int, row: Int, column: Int) {
            self.gains = gains; ph = points.1; self.mapPlanes = mapPlanes; self.plane = plane
            scaleH = 1.0 / Double(width); offsetH = 0.5
            originH = map.mapOriginH; spacingH = map.mapSpacingH
            // The rows are chosen as the direct evaluation chooses them; only the columns step.
            let (r1, r2, fraction) = PixelTile.mapIndex((1.0 / Double(height)) * (Double(row) + 0.5), origin: map.mapOriginV,
                                                        spacing: map.mapSpacingV, points: points.0)
            row1 = r1; row2 = r2; rowFraction = Float(fraction)
            self.column = column
            resetColumnState()
        }

        var value: Float { base + stepSize * index }

        mutating func increment() {
            column += 1
            if column >= resetColumn { resetColumnState() } else { index += 1 }
        }

        private func entry(_ col: Int) -> Float {
            gains[(row1 * ph + col) * mapPlanes + plane] * (1 - rowFraction)
                + gains[(row2 * ph + col) * mapPlanes + plane] * rowFraction
        }

        private mutating func resetColumnState() {
            let colIndex = (scaleH * (Double(column) + offsetH) - originH) / spacingH
            if !(colIndex > 0) {
                base = entry(0); stepSize = 0
                resetColumn = Self.int32Ceiling(originH / scaleH - offsetH)
            } else if colIndex >= Double(ph - 1) {
                base = entry(ph - 1); stepSize = 0
                resetColumn = Int(Int32.max)
            } else {
                let c = Int(colIndex)
                let b = Double(entry(c))
                let delta = Double(entry(c + 1)) - b
                base = Float(b + delta * (colIndex - Double(c)))
                stepSize = Float((delta * scaleH) / spacingH)
                resetColumn = Self.int32Ceiling((Double(c + 1) * spacingH + originH) / scaleH - offsetH)
            }
            index = 0
        }

        /// ceil as an Int32-range column (the SDK's `(int32) ceil(...)`), saturated rather than
        /// undefined for out-of-range values.
        static func int32Ceiling(_ v: Double) -> Int {
            let c = v.rounded(.up)
            if !(c > Double(Int32.min)) { return Int(Int32.min) }
            if c >= Double(Int32.max) { return Int(Int32.max) }
            return Int(c)
        }
    }
}
