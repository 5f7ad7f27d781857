import Dispatch

/// RowInterleaveFactor / ColumnInterleaveFactor (DNG 1.7 / 1.7.1): the stored image holds the
/// image's fields — rows `y` with the same `y % R`, columns with the same `x % C` — one after
/// another, so that a CFA's colour planes compress as separate smooth images. Stored row of image
/// row `y` is `fieldStart(y % R) + y / R`, field `f` starting at `f·(H / R) + min(f, H % R)`;
/// columns likewise (the DNG SDK's `Interleave2D`, which also treats a factor ≥ the image side as 1).
struct DNGFieldInterleave: Sendable {
    let rowFactor: Int, columnFactor: Int
    let width: Int, height: Int, samplesPerPixel: Int

    /// Nil when both factors are 1 (nothing to undo); throws for a factor below 1 or above the
    /// image side.
    init?(_ layout: DNGRawDataLayout, path: String) throws(DecodeError) {
        let r = layout.rowInterleaveFactor, c = layout.columnInterleaveFactor
        guard (1...max(1, layout.height)).contains(r), (1...max(1, layout.width)).contains(c) else {
            throw .corrupt(path: path, detail: "RowInterleaveFactor \(r) / ColumnInterleaveFactor \(c) outside 1…image size")
        }
        rowFactor = r >= layout.height ? 1 : r
        columnFactor = c >= layout.width ? 1 : c
        width = layout.width; height = layout.height; samplesPerPixel = layout.samplesPerPixel
        if rowFactor == 1 && columnFactor == 1 { return nil }
    }

    /// Stored index of each image row (or column) of a side of `size` with factor `factor`.
    static func storedIndex(size: Int, factor: Int) -> [Int] {
        (0..<size).map { i in
            let f = i % factor
            return f * (size / factor) + min(f, size % factor) + i / factor
        }
    }

    /// The image from its stored (field-interleaved) samples; rows spread over `workers`.
    func deinterleaved(_ stored: DNGSamples, workers: Int) -> DNGSamples {
        switch stored {
        case .integer(let p): return .integer(deinterleaved(p, workers: workers))
        case .float(let p): return .float(deinterleaved(p, workers: workers))
        }
    }

    private func deinterleaved<T: BitwiseCopyable>(_ stored: [T], workers: Int) -> [T] {
        let rows = Self.storedIndex(size: height, factor: rowFactor)
        let columns = Self.storedIndex(size: width, factor: columnFactor)
        let spp = samplesPerPixel, w = width, h = height
        return [T](unsafeUninitializedCapacity: stored.count) { buffer, initialized in
            stored.withUnsafeBufferPointer { src in
                let job = Copy(src: src.baseAddress!, dst: buffer.baseAddress!)
                let bands = max(1, min(workers, h))
                DispatchQueue.concurrentPerform(iterations: bands) { k in
                    for y in k * h / bands..<(k + 1) * h / bands {
                        let s = job.src + rows[y] * w * spp, d = job.dst + y * w * spp
                        for x in 0..<w {
                            for c in 0..<spp { d[x * spp + c] = s[columns[x] * spp + c] }
                        }
                    }
                }
            }
            initialized = stored.count
        }
    }

    private struct Copy<T>: @unchecked Sendable {
        let src: UnsafePointer<T>
        let dst: UnsafeMutablePointer<T>
    }
}
