import Foundation
import Testing
@testable import DarkroomCore

/// The quad-level adaptive demosaic: same bytes for every tiling and CFA order, MSG's bytes where
/// the channels correlate, far above MSG where they do not.
@Suite struct AdaptiveRIDemosaicTests {
    static let size = HybridDemosaicTests.size

    /// Half independent chirps (left), half a shared texture (right): every tile size (odd ones
    /// too, so tiles start at both quad phases) and worker count gives the same bits.
    @Test func tileSizesAndWorkersGiveSameBytes() {
        let mixed = (0..<(Self.size * Self.size * 3)).map { i in
            (i / 3) % Self.size < Self.size / 2 ? HybridDemosaicTests.chirps[i] : HybridDemosaicTests.shared[i]
        }
        for cfa in CFAPattern.all {
            let m = DemosaicEvaluation.mosaic(interleaved: mixed.map { Float($0) / 255 }, width: Self.size, height: Self.size, cfa: cfa)
            let reference = AdaptiveDemosaicTests.run(AdaptiveRIDemosaic(), m, tileSize: 256, workers: 1, cfa: cfa)
            for (tile, workers) in [(16, 2), (17, 1), (23, 1), (33, 2), (37, 2), (64, 1), (100, 2)] {
                let out = AdaptiveDemosaicTests.run(AdaptiveRIDemosaic(), m, tileSize: tile, workers: workers, cfa: cfa)
                #expect(zip(out, reference).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(cfa), tile \(tile), \(workers) workers")
            }
        }
    }

    /// Independent channels: far above MSG, a colour-difference method.
    @Test func independentChannelsLeaveMSG() {
        let chirps = HybridDemosaicTests.chirps
        let m = AdaptiveDemosaicTests.mosaic(chirps)
        let out = DemosaicTiler(kernel: AdaptiveRIDemosaic(), tileSize: 64, workers: 2).run(mosaic: m, width: Self.size, height: Self.size, cfa: .rggb)
        let db = DemosaicEvaluation.cpsnr(reference: chirps, width: Self.size, height: Self.size,
                                          red: out.red, green: out.green, blue: out.blue)
        let msg = HybridDemosaicTests.cpsnr(.msg, chirps)
        #expect(db >= msg + 6, "adaptive-ri \(db) dB, msg \(msg) dB")
    }

    /// Shared detail: the share is 0 everywhere and the output is its member's (msgd's) bytes.
    @Test(arguments: CFAPattern.all)
    func correlatedImageIsMSGBytes(cfa: CFAPattern) {
        let m = DemosaicEvaluation.mosaic(interleaved: AdaptiveDemosaicTests.grey.map { Float($0) / 255 },
                                          width: Self.size, height: Self.size, cfa: cfa)
        let out = AdaptiveDemosaicTests.run(AdaptiveRIDemosaic(), m, cfa: cfa)
        let member = AdaptiveDemosaicTests.run(MSGDiagonalDemosaic(), m, cfa: cfa)
        let mismatches = zip(out, member).filter { $0.bitPattern != $1.bitPattern }.count
        #expect(mismatches == 0, "\(mismatches) values differ from msgd's")
    }
}
