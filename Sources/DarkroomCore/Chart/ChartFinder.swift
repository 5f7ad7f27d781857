/// Finds a chart's patch grid in a `CameraRGBImage` (`--chart auto`).
public enum ChartFinder {
    /// Why no chart was found.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case notFound(reason: String)
        public var description: String {
            switch self { case .notFound(let r): return "no ColorChecker 24 found (\(r)); give its corners with --chart x1,y1,…,x4,y4" }
        }
    }

    /// A found chart: the patch-grid corners in display coordinates (top-left = patch 1's outer corner).
    public struct Result: Sendable, Equatable {
        public var corners: [SIMD2<Double>]
    }

    public static func find(_ image: CameraRGBImage, layout: ChartLayout) throws(Failure) -> Result {
        throw .notFound(reason: "not implemented")
    }
}
