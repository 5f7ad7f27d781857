import DarkroomBatch
import DarkroomIO
import Foundation
import Testing

/// Sizes from files and arguments never overflow the memory arithmetic.
@Suite("Memory arithmetic")
struct MemoryArithmeticTests {
    @Test(arguments: [(0xFFFF_FFFF, 0xFFFF_FFFF, 256, 1), (2_000_000_000, 2_000_000_000, 256, 2),
                      (600, 400, Int.max, 1), (600, 400, 256, Int.max), (Int.max, Int.max, Int.max, Int.max)])
    func estimateSaturates(width: Int, height: Int, tile: Int, threads: Int) {
        let e = MemoryGate.estimate(width: width, height: height, fileSize: 1 << 20, sixteenBit: true, tileSize: tile, threads: threads)
        #expect(e > 0)
        #expect(e == Int64.max || Double(e) >= Double(width) * Double(height) * 4)
    }

    @Test func estimateOfASmallImage() {
        // 600×400: 240000 px × (4 + 2 × 3) B + 1 MiB file + 2 threads × 288² × 64 B.
        #expect(MemoryGate.estimate(width: 600, height: 400, fileSize: 1 << 20, sixteenBit: false, tileSize: 256, threads: 2)
                == 240_000 * 10 + (1 << 20) + 2 * 288 * 288 * 64)
    }

    @Test func sizesOutOfRangeAreRejected() {
        #expect(MemoryGate.parseSize("1e19") == nil)
        #expect(MemoryGate.parseSize("9000000T") == nil)
        #expect(MemoryGate.parseSize("0.5") == nil)
        #expect(MemoryGate.parseSize("nan") == nil)
        #expect(MemoryGate.parseSize("1.5G") == 1_610_612_736)
    }
}

extension MemoryArithmeticTests {
    /// A saturated estimate (a file that declares an absurd size) runs alone and never overflows
    /// the gate's sum while another request waits.
    @Test func gateWithSaturatedRequest() {
        let gate = MemoryGate(budget: 1 << 30)
        #expect(gate.acquire(Int64.max))
        #expect(!gate.acquire(1 << 20, cancelled: { true }), "nothing else fits while it runs")
        gate.release(Int64.max)
        #expect(gate.acquire(1 << 20))
        #expect(!gate.acquire(Int64.max, cancelled: { true }), "it waits for the running one")
        gate.release(1 << 20)
    }
}
