import DarkroomCore
import Testing

/// `RawImage.sampleStatistics` (what `info --stats` prints), on mosaics and LinearRaw images
/// whose answers are worked out by hand.
@Suite("Raw sample statistics")
struct RawImageStatisticsTests {
    @Test(arguments: [CFAPattern.rggb, .bggr, .grbg, .gbrg])
    func mosaicStatisticsFollowTheCFA(cfa: CFAPattern) {
        // 4×2 mosaic: value = 10 × (CFA colour + 1) + x, so each colour's range is known.
        var md = RawMetadata()
        md.cfa = cfa
        var pixels: [UInt16] = []
        for y in 0..<2 { for x in 0..<4 { pixels.append(UInt16(10 * (Int(cfa.color(x: x, y: y).rawValue) + 1) + x)) } }
        let stats = RawImage(width: 4, height: 2, samplesPerPixel: 1, pixels: pixels, metadata: md).sampleStatistics()
        for c in 0..<3 {
            let values = (0..<8).filter { Int(cfa.color(x: $0 % 4, y: $0 / 4).rawValue) == c }.map { pixels[$0] }
            let s = stats[c]
            #expect(s?.count == values.count)
            #expect(s?.minimum == values.min() && s?.maximum == values.max())
            #expect(s?.mean == Double(values.reduce(0) { $0 + Int($1) }) / Double(values.count))
        }
    }

    @Test func linearRawCountsSamplesByIndex() {
        var md = RawMetadata()
        md.samplesPerPixel = 3
        let pixels: [UInt16] = [1, 100, 65535, 3, 200, 0]
        let stats = RawImage(width: 2, height: 1, samplesPerPixel: 3, pixels: pixels, metadata: md).sampleStatistics()
        #expect(stats[0] == SampleStatistics(minimum: 1, maximum: 3, mean: 2, count: 2))
        #expect(stats[1] == SampleStatistics(minimum: 100, maximum: 200, mean: 150, count: 2))
        #expect(stats[2] == SampleStatistics(minimum: 0, maximum: 65535, mean: 32767.5, count: 2))
    }
}
