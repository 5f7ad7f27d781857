import DarkroomCore

/// Grey-world white balance for files that record none: the camera neutral is the mean of each
/// colour's black-subtracted samples, over samples below 95 % of the white level (clipped
/// samples would bias it), normalised to a maximum of 1.
enum GreyWorld {
    static func neutral(of image: RawImage) -> [Double]? {
        let md = image.metadata
        let spp = image.samplesPerPixel
        let rows = max(md.blackLevelRepeatRows, 1), cols = max(md.blackLevelRepeatColumns, 1)
        let black = md.blackLevel
        let white = md.whiteLevel.first ?? 65535
        var sum = [Double](repeating: 0, count: 3), count = [Double](repeating: 0, count: 3)
        // Every 3rd row and column pair is plenty for a mean.
        image.pixels.withUnsafeBufferPointer { p in
            var y = 0
            while y < image.height {
                var x = 0
                while x < image.width {
                    for s in 0..<spp {
                        let v = Double(p[(y * image.width + x) * spp + s])
                        let bIndex = ((y % rows) * cols + x % cols) * spp + s
                        let b = bIndex < black.count ? black[bIndex] : (black.first ?? 0)
                        guard v < b + 0.95 * (white - b) else { continue }
                        let c = spp == 3 ? s : Int(md.cfa?.color(x: x, y: y).rawValue ?? 1)
                        sum[c] += max(v - b, 0); count[c] += 1
                    }
                    x += (x & 1) == 0 ? 1 : 5
                }
                y += (y & 1) == 0 ? 1 : 5
            }
        }
        guard count.allSatisfy({ $0 > 0 }) else { return nil }
        let mean = zip(sum, count).map { $0 / $1 }
        guard let mx = mean.max(), mx > 0, mean.allSatisfy({ $0 > 0 }) else { return nil }
        return mean.map { $0 / mx }
    }
}
