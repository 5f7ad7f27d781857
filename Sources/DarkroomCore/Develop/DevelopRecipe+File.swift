import Foundation

/// The recipe-file view of `DevelopRecipe`: every field optional (absent = keep the value below
/// it), keys spelled like the CLI flags (`color-space`, `bit-depth`, …). Layering is
/// defaults ← recipe file ← command-line flags; `DevelopRecipe.applying(_:)` does one step.
extension DevelopRecipe {
    public struct FileSettings: Sendable, Equatable, Codable {
        public var colorSpace: OutputColorSpace?
        public var demosaic: DemosaicAlgorithm?
        /// `as-shot`, `camera`, `auto`, a preset (`daylight`, `cloudy`, `shade`, `tungsten`,
        /// `fluorescent`, `flash`), `KELVIN[,TINT]` or `xy:X,Y` (as `--wb`).
        public var wb: String?
        /// `x,y,w,h` of a neutral patch in the displayed image (as `--wb-rect`).
        public var wbRect: String?
        /// `r,g,b` white-balance gains (as `--wb-gains`).
        public var wbGains: String?
        /// External camera profile `.dcp` (as `--profile`).
        public var profile: String?
        /// Embedded profile by ProfileName (as `--profile-name`).
        public var profileName: String?
        /// Apply the profile's HueSatMap/LookTable/ProfileToneCurve (as `--profile-look`).
        public var profileLook: Bool?
        /// `preserve-hue` or `clip` (as `--gamut`).
        public var gamut: GamutMode?
        public var exposure: Double?
        public var baselineExposure: Bool?
        public var tone: ToneCurve.Mode?
        public var bitDepth: Int?
        public var dither: Bool?
        public var crop: Bool?
        public var orientation: Bool?
        /// `all`, `none`, or a list like `list1,list3` (as `--opcodes`).
        public var opcodes: String?
        public var thumbnailSize: Int?
        public var tileSize: Int?
        public var threads: Int?

        public init() {}

        public enum CodingKeys: String, CodingKey, CaseIterable {
            case colorSpace = "color-space", demosaic, wb, wbRect = "wb-rect", wbGains = "wb-gains", profile
            case profileName = "profile-name", profileLook = "profile-look", gamut, exposure, baselineExposure = "baseline-exposure", tone
            case bitDepth = "bit-depth", dither, crop, orientation, opcodes, thumbnailSize = "thumbnail-size"
            case tileSize = "tile-size", threads
        }

        /// `other`'s given values win over ours.
        public func overlaid(by other: FileSettings) -> FileSettings {
            var r = self
            r.colorSpace = other.colorSpace ?? colorSpace
            r.demosaic = other.demosaic ?? demosaic
            r.wb = other.wb ?? wb
            r.wbRect = other.wbRect ?? wbRect
            r.wbGains = other.wbGains ?? wbGains
            r.profile = other.profile ?? profile
            r.profileName = other.profileName ?? profileName
            r.profileLook = other.profileLook ?? profileLook
            r.gamut = other.gamut ?? gamut
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
        s.wb = whiteBalanceRequest.map(Self.formatWhiteBalanceRequest) ?? Self.formatWhiteBalance(whiteBalance)
        s.profile = profilePath
        s.profileName = profileName
        s.profileLook = applyProfileLook
        s.gamut = gamut
        s.exposure = exposureStops
        s.baselineExposure = applyBaselineExposure
        s.tone = tone
        s.bitDepth = bitsPerSample
        s.dither = dither
        s.crop = applyDefaultCrop
        s.orientation = applyOrientation
        s.opcodes = !applyOpcodes ? "none" : opcodeLists == [1, 2, 3] ? "all" : opcodeLists.sorted().map { "list\($0)" }.joined(separator: ",")
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
        if let v = s.wb { try r.setWhiteBalance(v, key: "wb") }
        if let v = s.wbRect { try r.setWhiteBalance("rect:" + v, key: "wb-rect") }
        if let v = s.wbGains { try r.setWhiteBalance("gains:" + v, key: "wb-gains") }
        if let v = s.profile { r.profilePath = v.isEmpty ? nil : v }
        if let v = s.profileName { r.profileName = v.isEmpty ? nil : v }
        if let v = s.profileLook { r.applyProfileLook = v }
        if let v = s.gamut { r.gamut = v }
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
        if let v = s.opcodes {
            let t = v.lowercased().replacingOccurrences(of: " ", with: "")
            switch t {
            case "all", "true", "yes": r.applyOpcodes = true; r.opcodeLists = [1, 2, 3]
            case "none", "false", "no": r.applyOpcodes = false
            default:
                var lists = Set<Int>()
                for part in t.split(separator: ",") {
                    guard part.hasPrefix("list"), let n = Int(part.dropFirst(4)), (1...3).contains(n) else {
                        throw SettingsError(key: "opcodes", reason: "must be all, none, or a list of list1, list2, list3")
                    }
                    lists.insert(n)
                }
                guard !lists.isEmpty else { throw SettingsError(key: "opcodes", reason: "empty list") }
                r.applyOpcodes = true; r.opcodeLists = lists
            }
        }
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

    /// Sets white balance from `--wb`-style text: plain specs (as-shot, K[,tint], xy) directly,
    /// image-dependent ones (auto, presets, rect, gains) as a request resolved at plan time.
    mutating func setWhiteBalance(_ text: String, key: String) throws(SettingsError) {
        let request: WhiteBalanceRequest
        do { request = try WhiteBalanceRequest.parse(text) } catch { throw SettingsError(key: key, reason: error.description) }
        switch request {
        case .asShot: whiteBalance = .asShot; whiteBalanceRequest = nil
        case .temperature(let k, let t): whiteBalance = .temperature(kelvin: k, tint: t); whiteBalanceRequest = nil
        case .whiteXY(let c): whiteBalance = .whiteXY(c); whiteBalanceRequest = nil
        default: whiteBalanceRequest = request
        }
    }

    /// Recipe spelling of an image-dependent white-balance request.
    public static func formatWhiteBalanceRequest(_ r: WhiteBalanceRequest) -> String {
        switch r {
        case .asShot: return "as-shot"
        case .auto: return "auto"
        case .preset(let p): return p.rawValue
        case .temperature(let k, let t): return formatWhiteBalance(.temperature(kelvin: k, tint: t))
        case .whiteXY(let c): return formatWhiteBalance(.whiteXY(c))
        case .rect(let q): return "rect:\(q.x),\(q.y),\(q.width),\(q.height)"
        case .gains(let g): return "gains:\(g.x),\(g.y),\(g.z)"
        }
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
