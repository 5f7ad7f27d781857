import DarkroomCore
import DarkroomIO
import Dispatch
import Foundation

/// The 24 MP scene as a JPEG XL DNG (Compression 52546, DNG 1.7.1): its mosaic stored by
/// `DNGWriter` as lossless 16-bit tiles of 256² in 2×2 fields (effort 3, for a quick bench; the DNG
/// SDK and `convert` use effort 7); `RawDecoder.decode` timed with all cores, 1 and 2 threads, its
/// pixels checked against the scene's.
extension Bench {
    static let jxlTileSize = 256

    mutating func jxlDecode(scene: BenchScene) throws {
        let file = scene.name + "-jxl"
        let source = scene.makeRawImage()
        let path = URL(fileURLWithPath: dir).appendingPathComponent(file + ".dng").path
        let (t, bytes) = try measure(runs: 1) { try Self.writeJXLDNG(source, to: path) }
        log(String(format: "wrote %@.dng (%.1f MP, JPEG XL lossless, %.1f MB) in %.2f s", file, scene.megapixels, Double(bytes) / 1e6, t.best))
        let mp = scene.megapixels
        let (decode, raw) = try measure(runs: runs) { try RawDecoder.decode(path: path) }
        report.identical["\(file) RawDecoder.decode pixels = scene"] = raw.pixels == source.pixels
        add("stage", file, "RawDecoder.decode (JPEG XL, libjxl)", decode, megapixels: mp,
            note: String(format: "%.1f MB file, lossless, %d² tiles", Double(bytes) / 1e6, Self.jxlTileSize))
        var pixels: [Int: [UInt16]] = [:]
        for threads in [1, 2] {
            let (tm, r) = try measure(runs: runs) { try RawDecoder.decode(path: path, options: DecodeOptions(threads: threads)) }
            pixels[threads] = r.pixels
            add("stage", file, "RawDecoder.decode (JPEG XL, libjxl)", threads: threads, tm, megapixels: mp)
        }
        report.identical["\(file) RawDecoder.decode pixels 1T = 2T"] = pixels[1] == pixels[2]
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `image` as a tiled JPEG XL DNG with `DNGWriter` (the writer `convert
    /// --compression jxl-lossless` uses; effort 3 here for a quick bench); returns the file size.
    static func writeJXLDNG(_ image: RawImage, to path: String) throws -> Int {
        try DNGWriter.write(image, to: path, options: DNGWriteOptions(tileSize: jxlTileSize, compression: .jpegXL(effort: 3)))
        return (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }
}
