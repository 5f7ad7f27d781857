import Foundation

/// The recipe-file view of `DevelopRecipe`: every field optional (absent = keep the value below
/// it), keys spelled like the CLI flags (`color-space`, `bit-depth`, …). Layering is
/// defaults ← recipe file ← command-line flags; `DevelopRecipe.applying(_:)` does one step.
extension DevelopRecipe {
    public struct FileSettings: Sendable, Equatable, Codable {
        public var colorSpace: OutputColorSpace?
        public var demosaic: DemosaicAlgorithm?
        /// `as-shot`, `KELVIN[,TINT]` or `xy:X,Y` (as `--wb`).
        public var wb: String?
        public var exposure: Double?
        public var baselineExposure: Bool?
        public var tone: ToneCurve.Mode?
        public var bitDepth: Int?
        public var dither: Bool?
        public var crop: Bool?
        public var orientation: Bool?
        public var opcodes: Bool?
        public var thumbnailSize: Int?
        public var tileSize: Int?
        public var threads: Int?

        public init() {}

        public enum CodingKeys: String, CodingKey, CaseIterable {
            case colorSpace = "color-space", demosaic, wb, exposure, baselineExposure = "baseline-exposure", tone
            case bitDepth = "bit-depth", dither, crop, orientation, opcodes, thumbnailSize = "thumbnail-size"
            case tileSize = "tile-size", threads
        }

        /// `other`'s given values win over ours.
        public func overlaid(by other: FileSettings) -> FileSettings {
            var r = self
            r.colorSpace = other.colorSpace ?? colorSpace
            r.demosaic = other.demosaic ?? demosaic
            r.wb = other.wb ?? wb
            r.exposure = other.exposure ?? exposure
            r.baselineExposure = other.baselineExposure ?? baselineExposure
            r.tone = other.tone ?? tone
            r.bitDepth = other.bitDepth ?? bitDepth
            r.dither = other.dither ?? dither
            r.crop = other.crop ?? crop
            r.orientation = other.orientation ?? orientation
            r.opcodes = other.opcodes ?? opcodes
            r.thumbnailSize = other.thumbnailSize ?? thumbnailSize
            r.tileSize = other.tileSize ?? tileSize
            r.threads = other.threads ?? threads
            return r
        }
    }

    /// Why a recipe value is unusable; one line naming the key and the reason.
    public struct SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
        public var key: String
        public var reason: String
        public init(key: String, reason: String) { self.key = key; self.reason = reason }
        public var description: String { "\(key): \(reason)" }
    }

    /// Every field, as a fully specified `FileSettings` (what `darkroom recipe --print` shows).
    public var fileSettings: FileSettings {
        var s = FileSettings()
        s.colorSpace = colorSpace
        s.demosaic = demosaic
        s.wb = Self.formatWhiteBalance(whiteBalance)
        s.exposure = exposureStops
        s.baselineExposure = applyBaselineExposure
        s.tone = tone
        s.bitDepth = bitsPerSample
        s.dither = dither
        s.crop = applyDefaultCrop
        s.orientation = applyOrientation
        s.opcodes = applyOpcodes
        s.thumbnailSize = thumbnailSize
        s.tileSize = tileSize
        s.threads = threads
        return s
    }

    /// This recipe with the given settings applied, each value validated.
    public func applying(_ s: FileSettings) throws(SettingsError) -> DevelopRecipe {
        var r = self
        if let v = s.colorSpace { r.colorSpace = v }
        if let v = s.demosaic { r.demosaic = v }
        if let v = s.wb { r.whiteBalance = try Self.parseWhiteBalance(v) }
        if let v = s.exposure {
            guard v.isFinite, abs(v) <= 10 else { throw SettingsError(key: "exposure", reason: "must be within ±10 stops") }
            r.exposureStops = v
        }
        if let v = s.baselineExposure { r.applyBaselineExposure = v }
        if let v = s.tone { r.tone = v }
        if let v = s.bitDepth {
            guard v == 8 || v == 16 else { throw SettingsError(key: "bit-depth", reason: "must be 8 or 16") }
            r.bitsPerSample = v
        }
        if let v = s.dither { r.dither = v }
        if let v = s.crop { r.applyDefaultCrop = v }
        if let v = s.orientation { r.applyOrientation = v }
        if let v = s.opcodes { r.applyOpcodes = v }
        if let v = s.thumbnailSize {
            guard v >= 0 else { throw SettingsError(key: "thumbnail-size", reason: "must be ≥ 0") }
            r.thumbnailSize = v
        }
        if let v = s.tileSize {
            guard (16...8192).contains(v) else { throw SettingsError(key: "tile-size", reason: "must be 16…8192") }
            r.tileSize = v
        }
        if let v = s.threads {
            guard v >= 0 else { throw SettingsError(key: "threads", reason: "must be ≥ 0") }
            r.threads = v
        }
        return r
    }

    /// Parses `as-shot`, `KELVIN[,TINT]` (1500…50000 K, tint ±150) or `xy:X,Y`.
    public static func parseWhiteBalance(_ text: String) throws(SettingsError) -> WhiteBalanceSpec {
        let s = text.lowercased().trimmingCharacters(in: .whitespaces)
        if s == "as-shot" || s == "asshot" { return .asShot }
        if s.hasPrefix("xy:") {
            let p = s.dropFirst(3).split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard p.count == 2, p.allSatisfy({ $0 > 0 && $0 < 1 }) else {
                throw SettingsError(key: "wb", reason: "xy:X,Y needs two chromaticities in (0, 1)")
            }
            return .whiteXY(Chromaticity(x: p[0], y: p[1]))
        }
        let p = s.split(separator: ",").map { Double($0.replacingOccurrences(of: "+", with: "").trimmingCharacters(in: .whitespaces)) }
        guard (1...2).contains(p.count), let k = p[0], (1500...50000).contains(k) else {
            throw SettingsError(key: "wb", reason: "must be as-shot, KELVIN[,TINT] (1500…50000 K) or xy:X,Y")
        }
        let tint = p.count == 2 ? p[1] : 0
        guard let tint, abs(tint) <= 150 else { throw SettingsError(key: "wb", reason: "tint must be within ±150") }
        return .temperature(kelvin: k, tint: tint)
    }

    /// The text `parseWhiteBalance` reads back to `spec` (camera neutrals print as `as-shot`
    /// only when they cannot be named otherwise; they have no recipe spelling).
    public static func formatWhiteBalance(_ spec: WhiteBalanceSpec) -> String {
        func num(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }
        switch spec {
        case .asShot, .cameraNeutral: return "as-shot"
        case .whiteXY(let c): return "xy:\(num(c.x)),\(num(c.y))"
        case .temperature(let k, let t): return t == 0 ? num(k) : "\(num(k)),\(t > 0 ? "+" : "")\(num(t))"
        }
    }
}
