import DarkroomCore
import DarkroomIO
import Foundation

/// Paths and helpers shared by the end-to-end tests.
enum TestSupport {
    /// The package root (…/Tests/DarkroomCLITests/TestSupport.swift → three levels up).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// `../shared/samples` beside the checkout, when present.
    static var sharedSamples: URL? {
        let u = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/samples")
        return FileManager.default.fileExists(atPath: u.path) ? u : nil
    }

    static func files(in sub: String) -> [URL] {
        guard let root = sharedSamples else { return [] }
        let dir = root.appendingPathComponent(sub)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") }.map { dir.appendingPathComponent($0) }
    }

    /// A fresh temporary directory; remove it with `cleanup`.
    static func tempDirectory(_ tag: String = #function) -> String {
        let safe = tag.filter { $0.isLetter || $0.isNumber }
        let path = NSTemporaryDirectory() + "darkroom-test-\(safe)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func cleanup(_ path: String) { try? FileManager.default.removeItem(atPath: path) }

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
