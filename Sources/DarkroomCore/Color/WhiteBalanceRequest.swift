import Foundation

/// What the user asked for with `--wb`, `--wb-rect` or `--wb-gains`, before it is resolved
/// against a file into a `WhiteBalanceSpec`.
///
/// `--wb` values (case-insensitive): `as-shot`, `camera` (the camera's own choice, i.e. as shot),
/// `auto`, the presets `daylight`, `cloudy`, `shade`, `tungsten`, `fluorescent`, `flash`,
/// a temperature `K[,tint]` (`5000`, `5000K`, `6500,10`), a chromaticity `xy:X,Y`, and the
/// forms `rect:x,y,w,h` and `gains:r,g,b` (what `--wb-rect` and `--wb-gains` parse to).
///
/// Presets are correlated colour temperatures with tint 0, solved through the camera profile
/// (`DNGColorModel`), not fixed multipliers: the Camera Raw preset temperatures (daylight
/// 5500 K, cloudy 6500 K, shade 7500 K, tungsten 2850 K, fluorescent 3800 K, flash 5500 K;
/// fluorescent uses tint +21 like Camera Raw's preset, the green of cool-white tubes).
public enum WhiteBalanceRequest: Sendable, Equatable, Codable {
    case asShot
    case auto
    case preset(Preset)
    case temperature(kelvin: Double, tint: Double)
    case whiteXY(Chromaticity)
    /// A neutral patch in the developed image's frame (after DefaultCrop and orientation, as the
    /// default render shows it): its mean camera-native values become the neutral.
    case rect(PixelRect)
    /// Per-channel multipliers r, g, b (any scale): cameraNeutral = 1 / gains.
    case gains(SIMD3<Double>)

    public enum Preset: String, Sendable, Equatable, Codable, CaseIterable {
        case daylight, cloudy, shade, tungsten, fluorescent, flash

        /// The preset's (kelvin, tint).
        public var temperatureTint: (kelvin: Double, tint: Double) {
            switch self {
            case .daylight: return (5500, 0)
            case .cloudy: return (6500, 0)
            case .shade: return (7500, 0)
            case .tungsten: return (2850, 0)
            case .fluorescent: return (3800, 21)
            case .flash: return (5500, 0)
            }
        }
    }

    /// Why a `--wb`/`--wb-rect`/`--wb-gains` value cannot be used (one line).
    public enum ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        case unknown(String)
        case badNumbers(option: String, value: String, reason: String)

        public var description: String {
            switch self {
            case .unknown(let s):
                return "white balance '\(s)' is not one of as-shot, camera, auto, daylight, cloudy, shade, tungsten, fluorescent, flash, K[,tint], xy:X,Y"
            case .badNumbers(let option, let value, let reason):
                return "\(option) '\(value)': \(reason)"
            }
        }

        /// The reason without the option name, for messages that name the option themselves
        /// (`--wb: …`, `recipe.yaml: wb: …`).
        public var reason: String {
            switch self {
            case .unknown(let s): return "'\(s)' is not one of \(WhiteBalanceRequest.grammar)"
            case .badNumbers(_, let value, let reason): return "'\(value)': \(reason)"
            }
        }
    }

    /// Every `--wb` form `parse` accepts, for help and messages (the one list: the recipe schema
    /// and `darkroom recipe --help` show this text).
    public static let grammar = "as-shot | camera | auto | " + Preset.allCases.map(\.rawValue).joined(separator: " | ")
        + " | KELVIN[,TINT] (1700…100000 K, tint −150…150) | xy:X,Y"

    /// Parses a `--wb` value (see the type's documentation).
    public static func parse(_ s: String) throws(ParseError) -> WhiteBalanceRequest {
        let t = s.trimmingCharacters(in: .whitespaces).lowercased()
        switch t {
        case "as-shot", "asshot", "as_shot", "camera": return .asShot
        case "auto": return .auto
        default: break
        }
        if let p = Preset(rawValue: t) { return .preset(p) }
        if t.hasPrefix("xy:") {
            let v = try numbers(String(t.dropFirst(3)), count: 2, option: "--wb", original: s)
            guard v[0] > 0, v[1] > 0, v[0] + v[1] < 1 else {
                throw .badNumbers(option: "--wb", value: s, reason: "x, y must be positive with x + y < 1")
            }
            return .whiteXY(Chromaticity(x: v[0], y: v[1]))
        }
        if t.hasPrefix("rect:") { return try parseRect(String(t.dropFirst(5))) }
        if t.hasPrefix("gains:") { return try parseGains(String(t.dropFirst(6))) }
        // K[,tint]
        let parts = t.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (1...2).contains(parts.count) else { throw .unknown(s) }
        var k = parts[0]
        if k.hasSuffix("k") { k.removeLast() }
        guard let kelvin = Double(k) else { throw .unknown(s) }
        guard kelvin.isFinite, (1700...100_000).contains(kelvin) else {
            throw .badNumbers(option: "--wb", value: s, reason: "temperature must be 1700…100000 K")
        }
        var tint = 0.0
        if parts.count == 2 {
            guard let v = Double(parts[1]), v.isFinite, abs(v) <= 150 else {
                throw .badNumbers(option: "--wb", value: s, reason: "tint must be a number in −150…150")
            }
            tint = v
        }
        return .temperature(kelvin: kelvin, tint: tint)
    }

    /// Parses `--wb-rect x,y,w,h` (integers, w and h ≥ 1).
    public static func parseRect(_ s: String) throws(ParseError) -> WhiteBalanceRequest {
        let v = try numbers(s, count: 4, option: "--wb-rect", original: s)
        guard v.allSatisfy({ $0 == $0.rounded() && abs($0) < 1e9 }), v[0] >= 0, v[1] >= 0, v[2] >= 1, v[3] >= 1 else {
            throw .badNumbers(option: "--wb-rect", value: s, reason: "need integers x,y ≥ 0 and w,h ≥ 1")
        }
        return .rect(PixelRect(x: Int(v[0]), y: Int(v[1]), width: Int(v[2]), height: Int(v[3])))
    }

    /// Parses `--wb-gains r,g,b` (positive).
    public static func parseGains(_ s: String) throws(ParseError) -> WhiteBalanceRequest {
        let v = try numbers(s, count: 3, option: "--wb-gains", original: s)
        guard v.allSatisfy({ $0 > 0 }) else {
            throw .badNumbers(option: "--wb-gains", value: s, reason: "gains must be positive")
        }
        return .gains(SIMD3(v[0], v[1], v[2]))
    }

    private static func numbers(_ s: String, count: Int, option: String, original: String) throws(ParseError) -> [Double] {
        let parts = s.split(separator: ",", omittingEmptySubsequences: false)
        let v = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == count, v.count == count, v.allSatisfy(\.isFinite) else {
            throw .badNumbers(option: option, value: original, reason: "need \(count) comma-separated numbers")
        }
        return v
    }

    /// The recipe spelling `parse` reads back to this request.
    public var text: String {
        switch self {
        case .asShot: return "as-shot"
        case .auto: return "auto"
        case .preset(let p): return p.rawValue
        case .temperature(let k, let t): return WhiteBalanceSpec.temperature(kelvin: k, tint: t).text
        case .whiteXY(let c): return WhiteBalanceSpec.whiteXY(c).text
        case .rect(let q): return "rect:\(q.x),\(q.y),\(q.width),\(q.height)"
        case .gains(let g): return "gains:\(g.x),\(g.y),\(g.z)"
        }
    }

    // MARK: Resolve

    /// Why this request cannot be used on `raw`, or nil: a `.rect` patch must lie inside the
    /// displayed image (DefaultCrop, then Orientation 5…8 swap width and height), the frame
    /// `WhiteBalanceEstimator.storedRect` maps from.
    public func problem(in raw: RawImage) -> String? {
        guard case .rect(let r) = self else { return nil }
        let m = raw.metadata
        let crop = m.defaultCrop ?? PixelRect(x: 0, y: 0, width: raw.width, height: raw.height)
        let swap = (5...8).contains(m.orientation)
        let w = swap ? crop.height : crop.width, h = swap ? crop.width : crop.height
        let (x1, o1) = r.x.addingReportingOverflow(r.width)
        let (y1, o2) = r.y.addingReportingOverflow(r.height)
        guard !o1, !o2, r.x >= 0, r.y >= 0, r.width >= 1, r.height >= 1, x1 <= w, y1 <= h else {
            return "--wb-rect \(r.x),\(r.y),\(r.width),\(r.height) is not inside the \(w)x\(h) displayed image"
        }
        return nil
    }

    /// The white balance to develop `raw` with: presets and temperatures become
    /// `.temperature` (solved through `model`'s profile by `DNGColorModel.solve`), `auto` and
    /// `rect` a camera neutral measured on the mosaic, `gains` the neutral 1/gains.
    /// `model` is the colour model the file will be developed with (auto ranks the camera
    /// neutrals of Planckian whites 2000…12000 K, every 10 mired, through it; see
    /// `WhiteBalanceEstimator`); `auto` and `rect` fall back to as-shot when too few usable
    /// samples exist.
    public func resolve(raw: RawImage, model: DNGColorModel) -> WhiteBalanceSpec {
        switch self {
        case .asShot: return .asShot
        case .preset(let p): return .temperature(kelvin: p.temperatureTint.kelvin, tint: p.temperatureTint.tint)
        case .temperature(let k, let t): return .temperature(kelvin: k, tint: t)
        case .whiteXY(let xy): return .whiteXY(xy)
        case .gains(let g): return .cameraNeutral([1 / g.x, 1 / g.y, 1 / g.z])
        case .auto:
            let candidates = stride(from: 1e6 / 2000, through: 1e6 / 12000, by: -10.0).map {
                model.neutral(white: ColorMath.temperatureTintToXY(kelvin: 1e6 / $0, tint: 0))
            }
            guard let n = WhiteBalanceEstimator(raw: raw).autoNeutral(candidates: candidates) else { return .asShot }
            return .cameraNeutral([n.x, n.y, n.z])
        case .rect(let r):
            guard let n = WhiteBalanceEstimator(raw: raw).rectNeutral(displayRect: r) else { return .asShot }
            return .cameraNeutral([n.x, n.y, n.z])
        }
    }
}
