import Testing
import Foundation
import DarkroomCore
@testable import DarkroomIO

/// Lossless JPEG (Compression 7) DNGs: our writer's streams read by LibRaw.
@Suite struct LosslessJPEGDecodeTests {
    struct WriterCase: Sendable, CustomTestStringConvertible {
        var bits: Int, width: Int, height: Int, tile: Int?, rowsPerStrip = 1 << 30, components = 2
        var testDescription: String {
            "\(bits)-bit \(width)x\(height) \(tile.map { "tiles \($0)" } ?? "one strip") \(components) comp"
        }
    }

    static func writerImage(_ c: WriterCase) -> RawImage {
        var image = DNGTestSupport.image(cfa: .rggb, bits: c.bits, width: c.width, height: c.height)
        image.metadata.bitsPerSample = c.bits
        return image
    }

    static func writeLJ92(_ image: RawImage, _ name: String, tile: Int?, rowsPerStrip: Int = 1 << 30, components: Int = 2) throws -> String {
        let path = DNGTestSupport.tempPath(name, subdirectory: "lj92")
        try DNGWriter.write(image, to: path, options: DNGWriteOptions(rowsPerStrip: rowsPerStrip, tileSize: tile,
                                                                      compression: .losslessJPEG(components: components)))
        return path
    }

    /// LibRaw 0.20 reads one JPEG stream per tile, but only the first strip's stream: strips are
    /// written as one strip here.
    static let writerCases: [WriterCase] = [12, 14, 16].flatMap { bits in [
        WriterCase(bits: bits, width: 70, height: 50, tile: nil),
        WriterCase(bits: bits, width: 71, height: 53, tile: nil, components: 1),
        WriterCase(bits: bits, width: 300, height: 270, tile: 256),
        WriterCase(bits: bits, width: 257, height: 255, tile: 256, components: 1),
        WriterCase(bits: bits, width: 90, height: 61, tile: 32),
    ] }

    @Test(arguments: writerCases)
    func libRawReadsOurStreams(_ c: WriterCase) throws {
        let image = Self.writerImage(c)
        let path = try Self.writeLJ92(image, "writer-\(c.bits)-\(c.width)-\(c.tile ?? 0)-\(c.components).dng",
                                      tile: c.tile, rowsPerStrip: c.rowsPerStrip, components: c.components)
        defer { unlink(path) }
        let u = try LibRawDecoder.unpack(path: path)
        #expect(u.rawWidth == c.width && u.rawHeight == c.height)
        let first = zip(u.pixels, image.pixels).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(u.pixels.count == image.pixels.count && first == nil, "\(c.testDescription): first difference at \(first ?? -1)")
        let md = try DNGMetadataReader.readForDecoding(contentsOf: path)
        #expect(md.layout?.compression == 7 && md.layout?.bitsPerSample == [c.bits])
    }
}
