import Foundation
import Testing
@testable import DarkroomCore

/// The sparse adaptive demosaic: same bytes for every tiling, MSG's bytes where the channels
/// correlate, near MLRI where they do not, and the block cover it runs MLRI on.
@Suite struct AdaptiveDemosaicTests {
    static let size = HybridDemosaicTests.size

    static func mosaic(_ reference: [UInt8]) -> [Float] {
        DemosaicEvaluation.mosaic(interleaved: reference.map { Float($0) / 255 }, width: size, height: size, cfa: .rggb)
    }

    static func run(_ kernel: any DemosaicKernel, _ m: [Float], tileSize: Int = 64, workers: Int = 2,
                    cfa: CFAPattern = .rggb) -> [Float] {
        let out = DemosaicTiler(kernel: kernel, tileSize: tileSize, workers: workers).run(mosaic: m, width: size, height: size, cfa: cfa)
        return out.red + out.green + out.blue
    }

    /// Half independent chirps (left), half a shared texture (right), so the tiles mix blocks that
    /// run MLRI and blocks that do not: every tile size and worker count gives the same bits.
    @Test func tileSizesAndWorkersGiveSameBytes() {
        let mixed = (0..<(Self.size * Self.size * 3)).map { i in
            (i / 3) % Self.size < Self.size / 2 ? HybridDemosaicTests.chirps[i] : HybridDemosaicTests.shared[i]
        }
        for cfa in CFAPattern.all {
            let m = DemosaicEvaluation.mosaic(interleaved: mixed.map { Float($0) / 255 }, width: Self.size, height: Self.size, cfa: cfa)
            let reference = Self.run(AdaptiveDemosaic(), m, tileSize: 256, workers: 1, cfa: cfa)
            for (tile, workers) in [(16, 2), (17, 1), (23, 1), (33, 2), (37, 2), (64, 1), (100, 2)] {
                let out = Self.run(AdaptiveDemosaic(), m, tileSize: tile, workers: workers, cfa: cfa)
                #expect(zip(out, reference).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(cfa), tile \(tile), \(workers) workers")
            }
            // The block size changes only which pixels MLRI computes, never the output.
            for block in [4, 9, 15, 32] {
                let out = Self.run(AdaptiveDemosaic(blockSize: block), m, tileSize: 64, workers: 2, cfa: cfa)
                #expect(zip(out, reference).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(cfa), block \(block)")
            }
        }
    }

    /// Independent channels: the slope sends every block to MLRI; far above MSG (a
    /// colour-difference method) and within 0.1 dB of MLRI (measured: adaptive 34.84 dB, MLRI
    /// 34.85, MSG 23.7).
    @Test func independentChannelsFollowMLRI() {
        let chirps = HybridDemosaicTests.chirps
        let statistics = AdaptiveDemosaicStatistics()
        let adaptive = AdaptiveDemosaic(statistics: statistics)
        let m = Self.mosaic(chirps)
        let out = DemosaicTiler(kernel: adaptive, tileSize: 64, workers: 2).run(mosaic: m, width: Self.size, height: Self.size, cfa: .rggb)
        let db = DemosaicEvaluation.cpsnr(reference: chirps, width: Self.size, height: Self.size,
                                          red: out.red, green: out.green, blue: out.blue)
        let msg = HybridDemosaicTests.cpsnr(.msg, chirps), mlri = HybridDemosaicTests.cpsnr(.mlri, chirps)
        #expect(db >= msg + 8, "adaptive \(db) dB, msg \(msg) dB")
        #expect(db >= mlri - 0.1, "adaptive \(db) dB, mlri \(mlri) dB")
        let blocks = statistics.blocks
        #expect(blocks.total > 0 && blocks.residual * 10 >= blocks.total * 9, "\(blocks)")
    }

    /// One texture (two gratings and a chirp) with the same amplitude in every channel, offset per
    /// channel: a grey-ish image whose colour differences are flat, as colour-difference methods assume.
    static let grey = HybridDemosaicTests.scene { x, y, c in
        0.45 + 0.2 * sin(0.31 * x + 0.17 * y) + 0.15 * sin(0.9 * y - 0.05 * x) + 0.1 * sin(1e-3 * x * y) + [0.03, 0, 0.08][c]
    }

    /// Shared detail: the slope is ≥ 1 everywhere, MLRI never runs and the output is MSG's bytes
    /// (the whole image: through the tiler every pixel is interior to its tile's region).
    @Test(arguments: CFAPattern.all)
    func correlatedImageIsMSGBytes(cfa: CFAPattern) {
        let shared = Self.grey
        let m = DemosaicEvaluation.mosaic(interleaved: shared.map { Float($0) / 255 }, width: Self.size, height: Self.size, cfa: cfa)
        let statistics = AdaptiveDemosaicStatistics()
        let out = Self.run(AdaptiveDemosaic(statistics: statistics), m, cfa: cfa)
        let msg = Self.run(MSGDemosaic(), m, cfa: cfa)
        let mismatches = zip(out, msg).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(mismatches == 0, "\(mismatches) values differ from MSG's")
        #expect(statistics.blocks.residual == 0 && statistics.blocks.total > 0, "\(statistics.blocks)")
        #expect(statistics.residualWork == 0)
    }

    /// The blend at both ends of the ramp on one region: textured green with flat red and blue
    /// (slope ≈ 0, MLRI share 1) gives `msg + 1 · (mlri − msg)` bit for bit; a pure ramp (no
    /// band-pass, slope ε/ε = 1) gives MSG.
    @Test(arguments: CFAPattern.all)
    func shareEnds(cfa: CFAPattern) {
        let adaptive = AdaptiveDemosaic(), e = adaptive.halo
        let harness = BlendEndsHarness(width: 2 * e + 20, height: 2 * e + 12, cfa: cfa)
        for (m, share) in [(harness.texture, Float(1)), (harness.ramp, 0)] {
            let mismatches = harness.mismatches(adaptive, m, inset: e) { msg, mlri in share > 0 ? msg + share * (mlri - msg) : msg }
            #expect(mismatches == 0, "share \(share), \(cfa)")
        }
    }

    /// The cover: every flagged block inside exactly one rectangle, rectangles disjoint, and two
    /// far-apart flags covered separately (one box over both would compute far more pixels).
    @Test func coverIsDisjointAndComplete() {
        let gx = 16, gy = 16
        let patterns: [[Bool]] = [
            (0..<(gx * gy)).map { $0 == 0 || $0 == gx * gy - 1 },
            (0..<(gx * gy)).map { ($0 &* 2_654_435_761) >> 7 & 3 == 0 },   // a fixed scatter of about a quarter
            [Bool](repeating: true, count: gx * gy), [Bool](repeating: false, count: gx * gy),
        ]
        for (k, flags) in patterns.enumerated() {
            let rects = AdaptiveDemosaic.cover(flags: flags, gx: gx, gy: gy, block: 16, width: 256, height: 256, halo: 27)
            var covered = [Int](repeating: 0, count: gx * gy)
            for r in rects { for y in r.y0..<r.y1 { for x in r.x0..<r.x1 { covered[y * gx + x] += 1 } } }
            #expect(covered.allSatisfy { $0 <= 1 }, "pattern \(k): overlapping rectangles")
            #expect(zip(flags, covered).allSatisfy { !$0 || $1 == 1 }, "pattern \(k): a flagged block is not covered")
            if k == 0 { #expect(rects.count == 2) }
            if k == 2 { #expect(rects == [AdaptiveDemosaic.BlockRect(x0: 0, y0: 0, x1: gx, y1: gy)]) }
            if k == 3 { #expect(rects.isEmpty) }
        }
    }
}
