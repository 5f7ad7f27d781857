import Foundation

/// `ProfileGainTableMap` (tag 52525, DNG 1.6) and `ProfileGainTableMap2` (tag 52544, DNG 1.7): a
/// grid of gain tables over the image — a local tone map (Apple ProRAW writes one). Each pixel's
/// gain depends on its position in the image and on a weighted brightness of its colour.
///
/// DNG 1.7.1 specification, "ProfileGainTableMap" and "ProfileGainTableMap2":
/// - The grid has `pointsV × pointsH` tables of `pointsN` gains each. Positions are relative to
///   the image being modified (1.0 = its width or height), sampled at pixel centres: pixel (x, y)
///   of a W × H image sits at u = (x + 0.5) / W, v = (y + 0.5) / H, and at map position
///   ((u − originH) / spacingH, (v − originV) / spacingV), pinned to the grid (edge tables repeat).
///   The four surrounding tables are interpolated bilinearly.
/// - Table input t = clamp((R, G, B, min(R,G,B), max(R,G,B)) · `inputWeights`, 0, 1)^`gamma`, on
///   linear RIMM/ROMM RGB after BaselineExposure. The table is read at index t · pointsN (not
///   pointsN − 1: the last entry covers the top 1/pointsN), linearly interpolated between entries.
/// - The gain multiplies R, G and B.
///
/// Conventions that the text leaves open are those of the Adobe DNG SDK 1.7.1
/// (`dng_gain_table_map`, `RefBaselineProfileGainTableMap`), which files in the wild were tested
/// against: 32-bit float arithmetic, interpolation in the order table → column → row, index
/// pinned to the last entry, and the limits below (gains in [1/4096, 4096], gamma in
/// [0.125, 8], fewer than 2²⁴ table points). Integer encodings are decoded when read: stored s
/// becomes GainMin + (s / MaxInt) · (GainMax − GainMin), so `gains` always holds 32-bit floats.
public struct ProfileGainTableMap: Sendable, Equatable {
    /// How gains are stored (`DataType` of ProfileGainTableMap2; version 1 is always float32).
    public enum DataType: UInt32, Sendable, Equatable, Codable, CustomStringConvertible {
        case unsigned8 = 0, unsigned16 = 1, float16 = 2, float32 = 3

        /// Bytes per stored gain.
        public var byteCount: Int {
            switch self {
            case .unsigned8: return 1
            case .unsigned16, .float16: return 2
            case .float32: return 4
            }
        }

        public var description: String {
            switch self {
            case .unsigned8: return "uint8"
            case .unsigned16: return "uint16"
            case .float16: return "float16"
            case .float32: return "float32"
            }
        }
    }

    /// Why a map was refused; each case carries the offending value.
    public enum Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        case gridSize(pointsV: UInt32, pointsH: UInt32, pointsN: UInt32)
        case tooManyPoints(Int)
        case spacing(v: Double, h: Double)
        case origin(v: Double, h: Double)
        case weights([Float])
        case gamma(Float)
        case gainRange(min: Float, max: Float)
        case gainCount(found: Int, expected: Int)
        /// A decoded gain outside [minimumGain, maximumGain] or NaN, at (row, column, entry).
        case gain(Float, row: Int, column: Int, entry: Int)

        public var description: String {
            switch self {
            case .gridSize(let v, let h, let n): return "map size \(v)x\(h) with \(n) table points (each must be ≥ 1)"
            case .tooManyPoints(let n): return "\(n) gains (at most \(ProfileGainTableMap.maximumPoints - 1))"
            case .spacing(let v, let h): return "map spacing \(v), \(h) (must be finite and > 0)"
            case .origin(let v, let h): return "map origin \(v), \(h) (must be finite)"
            case .weights(let w): return "MapInputWeights \(w) (need 5 finite values)"
            case .gamma(let g): return "gamma \(g) outside \(ProfileGainTableMap.gammaRange)"
            case .gainRange(let lo, let hi): return "GainMin \(lo) / GainMax \(hi) outside \(ProfileGainTableMap.minimumGain)…\(ProfileGainTableMap.maximumGain)"
            case .gainCount(let found, let expected): return "\(found) gains, the map needs \(expected)"
            case .gain(let g, let r, let c, let e): return "gain \(g) at [\(r)][\(c)][\(e)] outside \(ProfileGainTableMap.minimumGain)…\(ProfileGainTableMap.maximumGain)"
            }
        }
    }

    /// Smallest and largest gain accepted (the DNG SDK's `kProfileGainTableMap_Min/MaxGainValue`).
    public static let minimumGain: Float = 1.0 / 4096
    public static let maximumGain: Float = 4096
    /// Gamma accepted (the SDK's limits; the specification text says 0.25…4).
    public static let gammaRange: ClosedRange<Float> = 0.125...8
    /// pointsV × pointsH × pointsN must stay below this (the SDK's `kMaxProfileGainTableMapPoints`):
    /// at most 64 MiB of decoded gains.
    public static let maximumPoints = 1 << 24

    /// 1 = ProfileGainTableMap (float32 only, no gamma), 2 = ProfileGainTableMap2.
    public let version: Int
    /// Number of tables vertically and horizontally (`MapPointsV`, `MapPointsH`).
    public let pointsV: Int
    public let pointsH: Int
    /// Table spacing and the first table's position, as fractions of the image height/width
    /// (`MapSpacingV/H`, `MapOriginV/H`). With one table in a direction, spacing 1 and origin 0.
    public let spacingV: Double
    public let spacingH: Double
    public let originV: Double
    public let originH: Double
    /// Entries per table (`MapPointsN`).
    public let pointsN: Int
    /// `MapInputWeights`: weights of R, G, B, min(R,G,B), max(R,G,B).
    public let inputWeights: [Float]
    /// How the gains were stored, and the parameters of the integer encodings.
    public let dataType: DataType
    public let gamma: Float
    public let gainMin: Float
    public let gainMax: Float
    /// Decoded gains, `[row][column][entry]` (row-major, `pointsN` entries per table).
    public let gains: [Float]

    /// A checked map. `gains` are already decoded (`decode(stored:…)` for integer encodings).
    /// One table in a direction forces that direction's spacing to 1 and origin to 0 (as the SDK).
    public init(version: Int = 2, pointsV: UInt32, pointsH: UInt32, spacingV: Double, spacingH: Double,
                originV: Double, originH: Double, pointsN: UInt32, inputWeights: [Float],
                dataType: DataType = .float32, gamma: Float = 1, gainMin: Float = 1, gainMax: Float = 1,
                gains: [Float]) throws(Invalid) {
        guard pointsV >= 1, pointsH >= 1, pointsN >= 1 else {
            throw .gridSize(pointsV: pointsV, pointsH: pointsH, pointsN: pointsN)
        }
        let count = try Self.pointCount(pointsV: pointsV, pointsH: pointsH, pointsN: pointsN)
        let sv = pointsV == 1 ? 1 : spacingV, sh = pointsH == 1 ? 1 : spacingH
        let ov = pointsV == 1 ? 0 : originV, oh = pointsH == 1 ? 0 : originH
        // Float32 is what positions are computed in: a spacing that rounds to 0 there is refused too.
        guard sv.isFinite, sh.isFinite, Float(sv) > 0, Float(sh) > 0 else { throw .spacing(v: spacingV, h: spacingH) }
        guard ov.isFinite, oh.isFinite, Float(ov).isFinite, Float(oh).isFinite else { throw .origin(v: originV, h: originH) }
        guard inputWeights.count == 5, inputWeights.allSatisfy(\.isFinite) else { throw .weights(inputWeights) }
        guard Self.gammaRange.contains(gamma) else { throw .gamma(gamma) }
        guard gainMin >= Self.minimumGain, gainMax <= Self.maximumGain, gainMin.isFinite, gainMax.isFinite else {
            throw .gainRange(min: gainMin, max: gainMax)
        }
        guard gains.count == count else { throw .gainCount(found: gains.count, expected: count) }
        let n = Int(pointsN), h = Int(pointsH)
        if let i = gains.firstIndex(where: { !($0 >= Self.minimumGain && $0 <= Self.maximumGain) }) {
            throw .gain(gains[i], row: i / (n * h), column: (i / n) % h, entry: i % n)
        }
        self.version = version
        self.pointsV = Int(pointsV); self.pointsH = h; self.pointsN = n
        self.spacingV = sv; self.spacingH = sh; self.originV = ov; self.originH = oh
        self.inputWeights = inputWeights
        self.dataType = dataType
        self.gamma = gamma; self.gainMin = gainMin; self.gainMax = gainMax
        self.gains = gains
    }

    /// pointsV × pointsH × pointsN, overflow-checked and below `maximumPoints`.
    public static func pointCount(pointsV: UInt32, pointsH: UInt32, pointsN: UInt32) throws(Invalid) -> Int {
        let (vh, o1) = Int(pointsV).multipliedReportingOverflow(by: Int(pointsH))
        let (all, o2) = vh.multipliedReportingOverflow(by: Int(pointsN))
        guard !o1, !o2, all < maximumPoints else { throw .tooManyPoints(o1 || o2 ? Int.max : all) }
        return all
    }

    /// An integer-encoded gain: GainMin + (stored / MaxInt) · (GainMax − GainMin), MaxInt 255 for
    /// `unsigned8` and 65535 for `unsigned16`, in 32-bit float as the SDK computes it.
    @inlinable
    public static func decode(stored: UInt16, dataType: DataType, gainMin: Float, gainMax: Float) -> Float {
        let scale: Float = dataType == .unsigned8 ? 1 / 255 : 1 / 65535
        return gainMin + (Float(stored) * scale) * (gainMax - gainMin)
    }

    /// The gain at pixel (`x`, `y`) of a `width × height` image for colour (r, g, b) (linear
    /// ProPhoto, before exposure; see `tableInput`). A scalar reference for `Sampler`.
    public func gain(x: Int, y: Int, width: Int, height: Int, r: Float, g: Float, b: Float, weightScale: Float = 1) -> Float {
        let s = Sampler(map: self, imageWidth: width, imageHeight: height, weightScale: weightScale)
        return gains.withUnsafeBufferPointer { t in
            let row = s.row(y)
            return s.gain(t, row: row, column: s.column(x), r: r, g: g, b: b)
        }
    }

    /// The map resolved for one image size and exposure: what the render reads per pixel.
    public struct Sampler: Sendable {
        public let map: ProfileGainTableMap
        public let imageWidth: Int
        public let imageHeight: Int
        public let weightScale: Float
        let widthF: Float, heightF: Float
        let w0: Float, w1: Float, w2: Float, w3: Float, w4: Float, gamma: Float

        /// `imageWidth × imageHeight`: the image the map covers (the stage-3 image, before the
        /// DefaultCrop); `weightScale` as in `tableInput`.
        public init(map: ProfileGainTableMap, imageWidth: Int, imageHeight: Int, weightScale: Float) {
            self.map = map
            self.imageWidth = max(1, imageWidth); self.imageHeight = max(1, imageHeight)
            self.weightScale = weightScale.isFinite ? weightScale : 1
            widthF = Float(self.imageWidth); heightF = Float(self.imageHeight)
            let w = map.inputWeights
            (w0, w1, w2, w3, w4) = (w[0], w[1], w[2], w[3], w[4])
            gamma = map.gamma
        }

        /// The table input of one pixel: clamp(weights · (r, g, b, min, max) · `weightScale`, 0,
        /// 1)^gamma. `weightScale` = 2^BaselineExposure when the pixel has not been exposed yet
        /// (the SDK's render applies the map before its exposure ramp and scales the weight so).
        @inline(__always)
        public func tableInput(_ r: Float, _ g: Float, _ b: Float) -> Float {
            let lo = min(r, min(g, b)), hi = max(r, max(g, b))
            var t = w0 * r + w1 * g + w2 * b + w3 * lo + w4 * hi
            t *= weightScale
            t = t.isNaN ? 0 : max(0, min(t, 1))
            if gamma != 1 { t = powf(t, gamma) }
            return t
        }

        /// Position along one axis → (first table index, second, fraction), pinned to the grid.
        @inline(__always)
        static func axis(_ pixel: Int, size: Float, origin: Float, spacing: Float, points: Int) -> (Int, Int, Float) {
            let u = (Float(pixel) + 0.5) / size
            var m = (u - origin) / spacing
            m = max(0, min(m, Float(points - 1)))
            if m.isNaN { m = 0 }
            let i0 = Int(m)
            return (i0, min(i0 + 1, points - 1), m - Float(i0))
        }

        /// Vertical interpolation of row `y`: offsets of the two table rows and the fraction.
        public struct Row: Sendable { let o0: Int, o1: Int, f: Float }
        /// Horizontal interpolation of column `x`.
        public struct Column: Sendable { let o0: Int, o1: Int, f: Float }

        @inline(__always)
        public func row(_ y: Int) -> Row {
            let (a, b, f) = Self.axis(y, size: heightF, origin: Float(map.originV), spacing: Float(map.spacingV), points: map.pointsV)
            let step = map.pointsH * map.pointsN
            return Row(o0: a * step, o1: b * step, f: f)
        }

        @inline(__always)
        public func column(_ x: Int) -> Column {
            let (a, b, f) = Self.axis(x, size: widthF, origin: Float(map.originH), spacing: Float(map.spacingH), points: map.pointsH)
            return Column(o0: a * map.pointsN, o1: b * map.pointsN, f: f)
        }

        /// The trilinear gain: table entry, then column, then row (the SDK's order).
        @inline(__always)
        func gain(_ t: UnsafeBufferPointer<Float>, row: Row, column: Column, r: Float, g: Float, b: Float) -> Float {
            let n = map.pointsN
            let scaled = tableInput(r, g, b) * Float(n)
            let w0 = min(Int(scaled), n - 1), w1 = min(w0 + 1, n - 1)
            let wf = scaled - Float(w0)
            @inline(__always) func lerp(_ a: Float, _ b: Float, _ f: Float) -> Float { a + f * (b - a) }
            let a = row.o0 + column.o0, b = row.o0 + column.o1, c = row.o1 + column.o0, d = row.o1 + column.o1
            let g00 = lerp(t[a + w0], t[a + w1], wf), g01 = lerp(t[b + w0], t[b + w1], wf)
            let g10 = lerp(t[c + w0], t[c + w1], wf), g11 = lerp(t[d + w0], t[d + w1], wf)
            return lerp(lerp(g00, g01, column.f), lerp(g10, g11, column.f), row.f)
        }

        /// `gain` for eight pixels at once: image row `row`, columns `x … x + 7`, colours (r, g, b).
        /// Every lane takes exactly the scalar operations of `gain` in the same order (same IEEE
        /// results), so it does not matter how a row is split into groups of eight; lanes past the
        /// image edge are pinned to the grid like any other position.
        @inline(__always)
        public func gain8(_ t: UnsafeBufferPointer<Float>, row: Row, x: Int, r: SIMD8<Float>, g: SIMD8<Float>,
                          b: SIMD8<Float>) -> SIMD8<Float> {
            typealias V = SIMD8<Float>
            let n = map.pointsN
            // Columns: as `axis`, per lane.
            let px = V(0, 1, 2, 3, 4, 5, 6, 7) + V(repeating: Float(x) + 0.5)
            var m = (px / widthF - Float(map.originH)) / Float(map.spacingH)
            m.replace(with: Float(map.pointsH - 1), where: m .> Float(map.pointsH - 1))
            m.replace(with: 0, where: .!(m .>= 0))
            // Table input: as `tableInput`, per lane.
            var lo = r.replacing(with: g, where: g .< r), hi = r.replacing(with: g, where: g .> r)
            lo.replace(with: b, where: b .< lo); hi.replace(with: b, where: b .> hi)
            var ti = w0 * r + w1 * g + w2 * b + w3 * lo + w4 * hi
            ti *= weightScale
            ti.replace(with: 1, where: ti .> 1)
            ti.replace(with: 0, where: .!(ti .>= 0))
            if gamma != 1 { for l in 0..<8 { ti[l] = powf(ti[l], gamma) } }
            let ws = ti * Float(n)
            // Indices per lane with scalar conversions (the generic SIMD float → integer
            // conversion is far slower); fractions as in `gain`.
            var xf = V(), wf = V()
            var e000 = V(), e001 = V(), e010 = V(), e011 = V(), e100 = V(), e101 = V(), e110 = V(), e111 = V()
            let lastColumn = map.pointsH - 1
            for l in 0..<8 {
                let c0 = Int(m[l]), c1 = min(c0 + 1, lastColumn)
                xf[l] = m[l] - Float(c0)
                let i0 = min(Int(ws[l]), n - 1), i1 = min(i0 + 1, n - 1)
                wf[l] = ws[l] - Float(i0)
                let a = c0 * n, bb = c1 * n
                e000[l] = t[row.o0 + a + i0]; e001[l] = t[row.o0 + a + i1]
                e010[l] = t[row.o0 + bb + i0]; e011[l] = t[row.o0 + bb + i1]
                e100[l] = t[row.o1 + a + i0]; e101[l] = t[row.o1 + a + i1]
                e110[l] = t[row.o1 + bb + i0]; e111[l] = t[row.o1 + bb + i1]
            }
            @inline(__always) func lerp(_ a: V, _ b: V, _ f: V) -> V { a + f * (b - a) }
            let g00 = lerp(e000, e001, wf), g01 = lerp(e010, e011, wf)
            let g10 = lerp(e100, e101, wf), g11 = lerp(e110, e111, wf)
            return lerp(lerp(g00, g01, xf), lerp(g10, g11, xf), V(repeating: row.f))
        }

        /// Each lane pinned to 0…1 (NaN → 0).
        @inline(__always)
        static func pin(_ v: SIMD8<Float>) -> SIMD8<Float> {
            var c = v.replacing(with: 1, where: v .> 1)
            c.replace(with: 0, where: .!(v .>= 0))
            return c
        }

        /// Applies the map to `count` pixels of image row `y` starting at column `x`, held as planes
        /// of linear ProPhoto, eight at a time (`gain8`). With `clipToUnit` each result is pinned to
        /// 0…1 (the SDK's render without overrange support); without, values above 1 are kept for
        /// a later highlight compression. Each pixel depends only on its own position and value.
        public func applyRow(_ pr: UnsafeMutablePointer<Float>, _ pg: UnsafeMutablePointer<Float>,
                             _ pb: UnsafeMutablePointer<Float>, count: Int, x: Int, y: Int, clipToUnit: Bool = true) {
            let row = self.row(y)
            map.gains.withUnsafeBufferPointer { t in
                var i = 0
                while i < count {
                    let k = min(8, count - i)
                    var r = SIMD8<Float>(), g = r, b = r
                    for l in 0..<k { r[l] = pr[i + l]; g[l] = pg[i + l]; b[l] = pb[i + l] }
                    let gain = gain8(t, row: row, x: x + i, r: r, g: g, b: b)
                    var or = r * gain, og = g * gain, ob = b * gain
                    if clipToUnit { or = Self.pin(or); og = Self.pin(og); ob = Self.pin(ob) }
                    for l in 0..<k { pr[i + l] = or[l]; pg[i + l] = og[l]; pb[i + l] = ob[l] }
                    i += 8
                }
            }
        }
    }
}

extension ProfileGainTableMap: Codable {
    enum CodingKeys: String, CodingKey {
        case version, pointsV, pointsH, spacingV, spacingH, originV, originH, pointsN, inputWeights
        case dataType, gamma, gainMin, gainMax, gains
    }

    /// Decoding runs the same checks as `init` (a JSON map is as untrusted as a file's).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(version: c.decode(Int.self, forKey: .version),
                      pointsV: c.decode(UInt32.self, forKey: .pointsV), pointsH: c.decode(UInt32.self, forKey: .pointsH),
                      spacingV: c.decode(Double.self, forKey: .spacingV), spacingH: c.decode(Double.self, forKey: .spacingH),
                      originV: c.decode(Double.self, forKey: .originV), originH: c.decode(Double.self, forKey: .originH),
                      pointsN: c.decode(UInt32.self, forKey: .pointsN), inputWeights: c.decode([Float].self, forKey: .inputWeights),
                      dataType: c.decode(DataType.self, forKey: .dataType), gamma: c.decode(Float.self, forKey: .gamma),
                      gainMin: c.decode(Float.self, forKey: .gainMin), gainMax: c.decode(Float.self, forKey: .gainMax),
                      gains: c.decode([Float].self, forKey: .gains))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(UInt32(pointsV), forKey: .pointsV); try c.encode(UInt32(pointsH), forKey: .pointsH)
        try c.encode(spacingV, forKey: .spacingV); try c.encode(spacingH, forKey: .spacingH)
        try c.encode(originV, forKey: .originV); try c.encode(originH, forKey: .originH)
        try c.encode(UInt32(pointsN), forKey: .pointsN); try c.encode(inputWeights, forKey: .inputWeights)
        try c.encode(dataType, forKey: .dataType); try c.encode(gamma, forKey: .gamma)
        try c.encode(gainMin, forKey: .gainMin); try c.encode(gainMax, forKey: .gainMax)
        try c.encode(gains, forKey: .gains)
    }
}
