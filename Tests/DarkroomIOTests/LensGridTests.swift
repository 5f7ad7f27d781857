import CLensfun
import DarkroomCore
@testable import DarkroomIO
import Foundation
import Testing

/// The grid `LensfunModifier` interpolates source positions from (`buildGrid`, every
/// `LensfunModifier.gridStep` px) against lensfun's own per-pixel positions, over every pixel of
/// full-size frames, for database lenses of each distortion model lensfun has (ptlens, poly3,
/// poly5), a fisheye at its shortest focal length among them, with TCA where the database has it
/// and lensfun's automatic scale as `LensMatcher` uses it.
@Suite("IO: lens position grid (lensfun)", .serialized)
struct LensGridTests {
    struct Case: Sendable, CustomStringConvertible {
        var maker: String, camera: String, lens: String, focal: Float, width: Int, height: Int
        var description: String { "\(lens) at \(focal) mm on \(camera)" }
    }

    static let cases: [Case] = [
        Case(maker: "Canon", camera: "Canon EOS 5D Mark II", lens: "Canon EF 24-105mm f/4L IS USM", focal: 24, width: 6000, height: 4000),
        Case(maker: "Canon", camera: "Canon EOS 5D Mark II", lens: "Canon EF 16-35mm f/2.8L II USM", focal: 16, width: 5616, height: 3744),
        Case(maker: "Canon", camera: "Canon EOS 5D Mark II", lens: "Canon EF 8-15mm f/4L Fisheye USM", focal: 8, width: 5616, height: 3744),
        Case(maker: "Olympus Imaging Corp.", camera: "E-P5", lens: "Olympus M.Zuiko Digital ED 14-42mm f/3.5-5.6", focal: 14, width: 4608, height: 3456),
        Case(maker: "Canon", camera: "Canon PowerShot G12", lens: "Canon PowerShot G12 & compatibles (Standard)", focal: 6.1,
             width: 3648, height: 2736),
    ]

    /// Largest and mean distance (px) between the grid's and lensfun's source positions (each pixel
    /// asked alone) over every pixel and channel, the largest distance any position moves (px), the
    /// largest distance between lensfun's positions asked in 64-pixel runs and alone (px), and how
    /// many of the grid's cells are asked of lensfun pixel by pixel, of how many.
    static func deviation(_ c: Case) throws -> (max: Double, mean: Double, reach: Double, runs: Double, exactCells: Int, cells: Int)? {
        guard case .success(let db) = LensDatabase.shared else { return nil }
        let camera = try #require(db.camera(maker: c.maker, model: c.camera), "camera \(c.camera)")
        let lens = try #require(db.lens(camera: camera, maker: nil, model: c.lens), "lens \(c.lens)")
        let flags = Int32(LF_MODIFY_DISTORTION) | Int32(LF_MODIFY_TCA)
        func make(_ scale: Float) -> LensfunModifier? {
            LensfunModifier(lens: lens, cropFactor: camera.pointee.CropFactor, width: c.width, height: c.height, focal: c.focal,
                            aperture: 8, distance: 1000, scale: scale, flags: flags)
        }
        let unscaled = try #require(make(1))
        #expect(unscaled.appliedFlags & Int32(LF_MODIFY_DISTORTION) != 0, "\(c): no distortion data")
        let m = try #require(make(unscaled.autoScale))
        m.buildGrid()
        var worst = 0.0, total = 0.0, reach = 0.0
        var grid = [Float](repeating: 0, count: c.width * 6), exact = grid, rows = grid
        var rowWorst = 0.0
        for y in 0..<c.height {
            grid.withUnsafeMutableBufferPointer { g in
                exact.withUnsafeMutableBufferPointer { e in
                rows.withUnsafeMutableBufferPointer { r in
                    // lensfun for each pixel alone (what the grid's nodes are), and in 64-pixel runs.
                    for x in 0..<c.width { m.exactSourcePositions(x0: x, y: y, count: 1, into: e.baseAddress! + x * 6) }
                    var x0 = 0
                    while x0 < c.width {
                        // lensfun in the blocks LensResampler asks for.
                        let n = min(64, c.width - x0)
                        m.sourcePositions(x0: x0, y: y, count: n, into: g.baseAddress! + x0 * 6)
                        m.exactSourcePositions(x0: x0, y: y, count: n, into: r.baseAddress! + x0 * 6)
                        x0 += n
                    }
                }
                }
            }
            for x in 0..<c.width {
                for ch in 0..<3 {
                    let o = x * 6 + 2 * ch
                    let d = hypot(Double(grid[o]) - Double(exact[o]), Double(grid[o + 1]) - Double(exact[o + 1]))
                    worst = max(worst, d)
                    total += d
                    rowWorst = max(rowWorst, hypot(Double(rows[o]) - Double(exact[o]), Double(rows[o + 1]) - Double(exact[o + 1])))
                    reach = max(reach, hypot(Double(exact[o]) - Double(x), Double(exact[o + 1]) - Double(y)))
                }
            }
        }
        let exactCells = m.exactCells.filter { $0 != 0 }.count
        return (worst, total / Double(c.width * c.height * 3), reach, rowWorst, exactCells, m.exactCells.count)
    }

    @Test(arguments: cases)
    func gridMatchesLensfun(_ c: Case) throws {
        guard let d = try Self.deviation(c) else { return }  // no lensfun database: nothing to compare
        print(String(format: "lens grid %@: max %.5f px, mean %.6f px, largest move %.1f px; lensfun in 64-px runs vs alone: max %.4f px; %d of %d cells per pixel",
                     c.description, d.max, d.mean, d.reach, d.runs, d.exactCells, d.cells))
        // The lens does move pixels (so the comparison means something), and the grid stays within 0.01 px.
        #expect(d.reach > 1)
        #expect(d.max <= 0.01)
    }

    /// `sourceBounds` (the grid's bound of a tile's positions, which lets the resample ask them
    /// row by row) holds every position the grid gives the tile's pixels, for tiles of 100 and 256
    /// pixels over the whole frame (edges included), and the source area it gives is at most 2
    /// pixels wider than the positions' own (the rounding margin); tiles touching cells asked of lensfun pixel by
    /// pixel get none.
    @Test(arguments: cases)
    func boundsHoldEveryPosition(_ c: Case) throws {
        guard case .success(let db) = LensDatabase.shared else { return }
        let camera = try #require(db.camera(maker: c.maker, model: c.camera))
        let lens = try #require(db.lens(camera: camera, maker: nil, model: c.lens))
        let flags = Int32(LF_MODIFY_DISTORTION) | Int32(LF_MODIFY_TCA)
        let unscaled = try #require(LensfunModifier(lens: lens, cropFactor: camera.pointee.CropFactor, width: c.width, height: c.height,
                                                    focal: c.focal, aperture: 8, distance: 1000, scale: 1, flags: flags))
        let m = try #require(LensfunModifier(lens: lens, cropFactor: camera.pointee.CropFactor, width: c.width, height: c.height,
                                             focal: c.focal, aperture: 8, distance: 1000, scale: unscaled.autoScale, flags: flags))
        m.buildGrid()
        var bounded = 0, refused = 0, widest = 0
        for side in [100, 256] {
            var ty = 0
            while ty < c.height {
                var tx = 0
                while tx < c.width {
                    let tile = PixelRect(x: tx, y: ty, width: min(side, c.width - tx), height: min(side, c.height - ty))
                    let (_, rowStride) = LensResampler.positionLayout(of: tile, width: c.width)
                    var positions = [Float](repeating: 0, count: rowStride * tile.height)
                    let exact = positions.withUnsafeMutableBufferPointer { p in
                        LensResampler.tilePositions(m, tile: tile, width: c.width, into: p.baseAddress!)
                        return LensResampler.sourceArea(positions: p.baseAddress! + (tile.x % LensResampler.block) * 6, rowStride: rowStride,
                                                        tileWidth: tile.width, tileHeight: tile.height, width: c.width, height: c.height)
                    }
                    if let b = m.sourceBounds(of: tile) {
                        bounded += 1
                        let first = tile.x % LensResampler.block
                        var outside = 0
                        for y in 0..<tile.height {
                            for x in 0..<tile.width {
                                for ch in 0..<3 {
                                    let px = positions[y * rowStride + (first + x) * 6 + 2 * ch]
                                    let py = positions[y * rowStride + (first + x) * 6 + 2 * ch + 1]
                                    if !(px >= b.minX && px <= b.maxX && py >= b.minY && py <= b.maxY) { outside += 1 }
                                }
                            }
                        }
                        #expect(outside == 0, "\(c) tile \(tile): \(outside) positions outside \(b)")
                        let area = LensResampler.sourceArea(bounds: b, width: c.width, height: c.height)
                        #expect(area.contains(exact), "\(c) tile \(tile): \(area) misses \(exact)")
                        widest = max(widest, area.width - exact.width, area.height - exact.height)
                    } else {
                        refused += 1
                    }
                    tx += side
                }
                ty += side
            }
        }
        print("lens bounds \(c): \(bounded) tiles bounded, \(refused) refused; source areas up to \(widest) px wider than the positions'")
        #expect(bounded > 0)
        if m.exactCells.allSatisfy({ $0 == 0 }) { #expect(refused == 0) }
        #expect(widest <= 2, "\(c): areas up to \(widest) px wider")
    }
}
