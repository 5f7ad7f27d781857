import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation

/// End-to-end-only helpers on the shared `TestSupport` (DarkroomTestSupport): patch means and chart DNGs.
extension TestSupport {
    /// Mean of an 8-bit RGB image over a rectangle.
    static func mean(_ px: [UInt8], width: Int, rect: PixelRect) -> SIMD3<Double> {
        var s = SIMD3<Double>(0, 0, 0)
        for y in rect.y..<rect.maxY { for x in rect.x..<rect.maxX {
            let i = (y * width + x) * 3
            s += SIMD3(Double(px[i]), Double(px[i + 1]), Double(px[i + 2]))
        } }
        return s / Double(rect.width * rect.height)
    }

    /// The central half of a patch rectangle (away from demosaic edges and JPEG ringing).
    static func inner(_ r: PixelRect) -> PixelRect {
        PixelRect(x: r.x + r.width / 4, y: r.y + r.height / 4, width: r.width / 2, height: r.height / 2)
    }

    /// Writes a synthetic chart DNG and returns its path.
    static func writeChart(_ spec: SyntheticSamples.Spec, in dir: String, orientation: Int = 1) throws -> String {
        var raw = spec.chart().makeRawImage()
        raw.metadata.orientation = orientation
        let path = dir + "/\(spec.name)\(orientation == 1 ? "" : "-o\(orientation)").dng"
        try DNGWriter.write(raw, to: path, options: DNGWriteOptions())
        return path
    }
}
