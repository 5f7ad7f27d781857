/// Where the chart is (`--chart`).
public enum ChartLocation: Sendable, Equatable {
    /// Found in the image (`ChartFinder`).
    case auto
    /// Display-space corners of the patch grid: top-left (outer corner of patch A1), top-right,
    /// bottom-right, bottom-left, continuous pixel coordinates of the developed image.
    case corners([SIMD2<Double>])

    /// Parses `auto` or `x1,y1,x2,y2,x3,y3,x4,y4`; nil otherwise.
    public init?(parsing text: String) {
        if text.lowercased() == "auto" { self = .auto; return }
        let v = text.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 8, v.allSatisfy({ $0?.isFinite == true && $0! >= 0 && $0! < 1e6 }) else { return nil }
        let n = v.compactMap { $0 }
        self = .corners((0..<4).map { SIMD2(n[2 * $0], n[2 * $0 + 1]) })
    }
}
