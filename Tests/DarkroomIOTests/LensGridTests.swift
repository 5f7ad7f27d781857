import CLensfun
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
}
