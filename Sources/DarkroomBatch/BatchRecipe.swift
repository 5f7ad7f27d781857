import DarkroomCore
import DarkroomIO
import Foundation
import Yams

/// A recipe file (YAML): every develop option plus the output options, one flat mapping whose
/// keys are the long CLI flag names. Unknown keys are an error (a typo must not be silently
/// ignored). Schema (all keys optional):
///
///     color-space: srgb | p3 | …        demosaic: gbtf | …      wb: as-shot | 5500,+10 | xy:0.31,0.33
///     exposure: 0.5                     baseline-exposure: true  tone: standard | linear
///     bit-depth: 8 | 16                 dither: true             crop: true
///     orientation: true                 opcodes: all             thumbnail-size: 320
///     tile-size: 256                    threads: 0
///     format: [jpeg, tiff]  (or "jpeg,tiff")                     quality: 90
///     strip-metadata: false             name: "{stem}"           mattes: [gamut, clipping]
///     matte: {skin: skin.png}
public struct BatchRecipe: Sendable, Equatable, Codable {
    public var develop = DevelopRecipe.FileSettings()
    public var formats: [OutputFormat]?
    public var quality: Int?
    /// HEIF chroma subsampling: "444" (default) or "420".
    public var chroma: String?
    public var stripMetadata: Bool?
    public var name: String?
    public var mattes: [MatteKind]?
    public var matte: [String: String]?

    public init() {}

    static let ownKeys = ["format", "quality", "chroma", "strip-metadata", "name", "mattes", "matte"]
    public static var allKeys: [String] { DevelopRecipe.FileSettings.CodingKeys.allCases.map(\.rawValue) + ownKeys }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let known = Set(Self.allKeys)
        if let bad = c.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw DecodingError.dataCorruptedError(forKey: bad, in: c, debugDescription: "unknown key '\(bad.stringValue)' (known: \(Self.allKeys.joined(separator: ", ")))")
        }
        develop = try DevelopRecipe.FileSettings(from: decoder)
        if c.contains(Key("format")) {
            if let list = try? c.decode([String].self, forKey: Key("format")) {
                formats = try Self.parseFormats(list.joined(separator: ","))
            } else {
                formats = try Self.parseFormats(c.decode(String.self, forKey: Key("format")))
            }
        }
        quality = try c.decodeIfPresent(Int.self, forKey: Key("quality"))
        chroma = try c.decodeIfPresent(String.self, forKey: Key("chroma"))
        stripMetadata = try c.decodeIfPresent(Bool.self, forKey: Key("strip-metadata"))
        name = try c.decodeIfPresent(String.self, forKey: Key("name"))
        mattes = try c.decodeIfPresent([MatteKind].self, forKey: Key("mattes"))
        matte = try c.decodeIfPresent([String: String].self, forKey: Key("matte"))
    }

    public func encode(to encoder: any Encoder) throws {
        try develop.encode(to: encoder)
        var c = encoder.container(keyedBy: Key.self)
        if let formats { try c.encode(formats.map(\.rawValue), forKey: Key("format")) }
        try c.encodeIfPresent(quality, forKey: Key("quality"))
        try c.encodeIfPresent(chroma, forKey: Key("chroma"))
        try c.encodeIfPresent(stripMetadata, forKey: Key("strip-metadata"))
        try c.encodeIfPresent(name, forKey: Key("name"))
        if let mattes { try c.encode(mattes.map(\.rawValue), forKey: Key("mattes")) }
        try c.encodeIfPresent(matte, forKey: Key("matte"))
    }

    /// `other`'s given values win.
    public func overlaid(by other: BatchRecipe) -> BatchRecipe {
        var r = self
        r.develop = develop.overlaid(by: other.develop)
        r.formats = other.formats ?? formats
        r.quality = other.quality ?? quality
        r.chroma = other.chroma ?? chroma
        r.stripMetadata = other.stripMetadata ?? stripMetadata
        r.name = other.name ?? name
        r.mattes = other.mattes ?? mattes
        r.matte = other.matte ?? matte
        return r
    }

    /// "jpeg,heif" → [.jpeg, .heif] (also accepts jpg, heic, tif; duplicates removed).
    public static func parseFormats(_ text: String) throws(BatchError) -> [OutputFormat] {
        var out: [OutputFormat] = []
        for part in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !part.isEmpty {
            let f: OutputFormat?
            switch part {
            case "jpg": f = .jpeg
            case "heic": f = .heif
            case "tif": f = .tiff
            default: f = OutputFormat(rawValue: part)
            }
            guard let f else { throw .usage("format: unknown output format '\(part)' (jpeg, heif, tiff)") }
            if !out.contains(f) { out.append(f) }
        }
        guard !out.isEmpty else { throw .usage("format: give at least one of jpeg, heif, tiff") }
        return out
    }

    /// Reads a YAML recipe file.
    public static func load(path: String) throws(BatchError) -> BatchRecipe {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .usage("\(path): cannot read recipe file (\((error as NSError).localizedDescription))")
        }
        if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return BatchRecipe() }
        do { return try YAMLDecoder().decode(BatchRecipe.self, from: text) } catch {
            throw .usage("\(path): invalid recipe file (\(Self.describe(error)))")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let e = error as? DecodingError {
            switch e {
            case .dataCorrupted(let c), .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c):
                if let u = c.underlyingError { return describe(u) }
                let path = c.codingPath.map(\.stringValue).joined(separator: ".")
                return (path.isEmpty ? "" : path + ": ") + c.debugDescription
            @unknown default: break
            }
        }
        if let e = error as? BatchError { return e.description }
        return "\(error)".replacingOccurrences(of: "\n", with: " ")
    }

    /// YAML text of this recipe (keys in schema order).
    public func yaml() -> String {
        (try? YAMLEncoder().encode(self)) ?? ""
    }

    /// The effective develop recipe and export options (validated).
    public func resolved() throws(BatchError) -> (recipe: DevelopRecipe, export: ExportOptions, formats: [OutputFormat]) {
        let recipe: DevelopRecipe
        do { recipe = try DevelopRecipe().applying(develop) } catch { throw .usage(error.description) }
        var export = ExportOptions()
        let formats = self.formats ?? [.jpeg]
        export.format = formats[0]
        if let q = quality {
            guard (1...100).contains(q) else { throw .usage("quality: must be 1…100") }
            export.quality = q
        }
        switch chroma {
        case "420", "4:2:0": export.heifChroma444 = false
        case nil, "444", "4:4:4": export.heifChroma444 = true
        default: throw .usage("chroma: must be 420 or 444")
        }
        export.stripMetadata = stripMetadata ?? false
        export.computedMattes = mattes ?? []
        for (k, p) in (matte ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let kind = MatteKind(rawValue: k) else {
                throw .usage("matte: unknown matte kind '\(k)' (\(MatteKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            export.suppliedMattes.append(SuppliedMatteSpec(kind: kind, path: p))
        }
        if formats == [.jpeg] && recipe.bitsPerSample == 16 {
            throw .usage("JPEG is 8-bit; use --format tiff or heif for --bit-depth 16")
        }
        return (recipe, export, formats)
    }

    /// Everything that changes output bytes, fully resolved (tile size and thread count are
    /// left out: they never change pixels), as the SHA-256 hex of its canonical JSON.
    public func hash(decode: DecodeOptions) -> String {
        var canonical = self
        canonical.develop.tileSize = nil
        canonical.develop.threads = nil
        if let r = try? DevelopRecipe().applying(canonical.develop) {
            var full = r.fileSettings
            full.tileSize = nil; full.threads = nil
            canonical.develop = full
        }
        canonical.formats = nil   // recorded per output instead
        canonical.quality = quality
        canonical.chroma = chroma
        canonical.stripMetadata = stripMetadata ?? false
        canonical.name = nil
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        var bytes = [UInt8]((try? enc.encode(canonical)) ?? Data())
        bytes += Array("|opcodeList1=\(decode.applyOpcodeList1)|bayer=\(String(describing: decode.bayerDump))".utf8)
        return SHA256.hex(bytes)
    }
}
