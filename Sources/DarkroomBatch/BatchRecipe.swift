import DarkroomCore
import DarkroomIO
import Foundation

/// A recipe layer: the values given by a recipe file or by flags, each already parsed and
/// validated by its `RecipeSchema` entry, keyed by the schema key. Layering is
/// defaults ← recipe file ← flags (`overlaid(by:)`); `resolution()` turns the layer into the
/// develop recipe, export, decode and batch values once.
///
/// A recipe file (YAML) is one flat mapping whose keys are the recipe-file keys of the schema
/// (`darkroom recipe --help` lists them); unknown and duplicate keys are errors.
public struct BatchRecipe: Sendable, Equatable {
    /// Where a value came from (for messages: `--key: …` or `FILE: key: …`).
    public enum Origin: Sendable, Equatable {
        case flag
        case file(String)
    }

    /// The given values, by key.
    public private(set) var values: [String: RecipeValue] = [:]
    private var origins: [String: Origin] = [:]

    public init() {}

    /// Layers compare by their values only.
    public static func == (a: BatchRecipe, b: BatchRecipe) -> Bool { a.values == b.values }

    public subscript(key: String) -> RecipeValue? { values[key] }

    /// The output name template, when given.
    public var name: String? { values["name"]?.text }

    /// Parses, validates and sets one value.
    public mutating func set(_ key: String, _ raw: RecipeRawValue, origin: Origin = .flag) throws(BatchError) {
        guard let entry = RecipeSchema.entry(key), origin == .flag || entry.scope.inRecipeFile else {
            let known = RecipeSchema.fileKeys.joined(separator: ", ")
            switch origin {
            case .flag: throw .usage("--\(key): unknown option")
            case .file(let p): throw .usage("\(p): unknown key '\(key)' (known: \(known))")
            }
        }
        do { values[key] = try entry.parse(raw) } catch { throw Self.error(key, error.text, origin) }
        origins[key] = origin
    }

    /// A message naming the flag or the file and key.
    static func error(_ key: String, _ reason: String, _ origin: Origin?) -> BatchError {
        switch origin ?? .flag {
        case .flag: return .usage("--\(key): \(reason)")
        case .file(let p): return .usage("\(p): \(key): \(reason)")
        }
    }

    /// `other`'s given values win.
    public func overlaid(by other: BatchRecipe) -> BatchRecipe {
        var r = self
        for (k, v) in other.values { r.values[k] = v; r.origins[k] = other.origins[k] }
        return r
    }

    /// Reads a YAML recipe file (see `RecipeFile` for the limits).
    public static func load(path: String) throws(BatchError) -> BatchRecipe {
        var r = BatchRecipe()
        for (key, raw) in try RecipeFile.pairs(path: path) { try r.set(key, raw, origin: .file(path)) }
        return r
    }

    /// Every value resolved: the schema entries applied in order over the defaults, then the
    /// checks that involve several keys, then the decode options.
    public func resolution() throws(BatchError) -> ResolvedRecipe {
        var r = ResolvedRecipe()
        for e in RecipeSchema.entries {
            guard let v = values[e.key] else { continue }
            do { try e.apply(v, to: &r) } catch { throw Self.error(e.key, error.text, origins[e.key]) }
        }
        func fail(_ key: String, _ reason: String) -> BatchError { Self.error(key, reason, origins[key]) }
        if r.formats == [.jpeg] && r.develop.bitsPerSample == 16 {
            throw fail("bit-depth", "JPEG is 8-bit; use --format tiff or heif for --bit-depth 16")
        }
        if r.develop.bitsPerSample == 32 || r.formats.contains(.exr) {
            // Float outputs come from one float render: only EXR and 32-bit TIFF can share it.
            if let other = r.formats.first(where: { $0 != .exr && !($0 == .tiff && r.develop.bitsPerSample == 32) }) {
                throw fail(r.develop.bitsPerSample == 32 ? "bit-depth" : "format",
                           "\(other.rawValue) cannot be written from the float render of --format exr / --bit-depth 32 (float outputs: exr, and tiff with --bit-depth 32)")
            }
        }
        // Every requested output is made or refused: no value that would be silently dropped.
        if r.export.heifNCLX && r.formats.contains(.heif) && ![.srgb, .p3].contains(r.develop.colorSpace) {
            throw fail("nclx", "an nclx box describes only srgb and p3, not \(r.develop.colorSpace.rawValue) (the ICC profile is always written; leave --nclx off)")
        }
        if !(r.export.computedMattes.isEmpty && r.export.suppliedMattes.isEmpty),
           !r.formats.contains(.jpeg) && !r.formats.contains(.heif) {
            let key = r.export.computedMattes.isEmpty ? "matte" : "mattes"
            throw fail(key, "\(r.formats.map(\.rawValue).joined(separator: ", ")) outputs carry no matte planes (add --format heif or jpeg)")
        }
        if r.export.stripMetadata && values["thumbnail-size"] != nil && r.develop.thumbnailSize > 0 {
            throw fail("thumbnail-size", "--strip-metadata writes no thumbnail (give one of the two)")
        }
        if let cfa = r.bayerCFA {
            guard let size = r.bayerSize else { throw fail("bayer", "needs --size WIDTHxHEIGHT") }
            let bits = r.bayerBits ?? 14
            let minStride = size.width * 2   // ≤ 131070: the schema bounds the width
            if let s = r.bayerStride, s < minStride { throw fail("stride", "must be ≥ width × 2 = \(minStride) (got \(s))") }
            let white = r.bayerWhite ?? Double((1 << bits) - 1)
            let black = r.bayerBlack ?? 0
            guard black < white else { throw fail(r.bayerBlack != nil ? "black" : "white", "black level \(RecipeSchema.num(black)) must be below the white level \(RecipeSchema.num(white))") }
            // A dump has no crop or orientation: its displayed image is WIDTHxHEIGHT, known now.
            if case .rect(let q) = r.develop.whiteBalanceRequest, q.x + q.width > size.width || q.y + q.height > size.height {
                throw fail(values["wb-rect"] != nil ? "wb-rect" : "wb", "\(q.x),\(q.y),\(q.width),\(q.height) is not inside the \(size.width)x\(size.height) image")
            }
            r.decode.bayerDump = BayerDumpParameters(cfa: cfa, bitsPerSample: bits, width: size.width, height: size.height,
                                                     blackLevel: black, whiteLevel: r.bayerWhite, rowStride: r.bayerStride)
        } else if let k = ["bits", "size", "black", "white", "stride"].first(where: { values[$0] != nil }) {
            throw fail(k, "only meaningful with --bayer")
        }
        r.decode.applyOpcodeList1 = r.develop.applyOpcodes && r.develop.opcodeLists.contains(1)
        return r
    }

    /// The effective develop recipe, export options and formats (validated).
    public func resolved() throws(BatchError) -> (recipe: DevelopRecipe, export: ExportOptions, formats: [OutputFormat]) {
        let r = try resolution()
        return (r.develop, r.export, r.formats)
    }

    /// Everything that changes output bytes (the recipe-file entries whose effect is `pixels`
    /// or `bytes`; format, name, tile size and threads are left out), fully resolved, as the
    /// SHA-256 hex of its canonical JSON (sorted keys), followed by the decode options.
    /// The canonical form is the one earlier versions recorded, so their manifests stay valid.
    public func hash(decode: DecodeOptions) -> String {
        let resolved = try? resolution()
        let defaults = ResolvedRecipe()
        var canonical: [String: RecipeValue] = [:]
        for e in RecipeSchema.entries where e.scope.inRecipeFile && e.effect.inHash && e.hashing != .never {
            guard let resolved, e.hashing != .asGiven else {
                if let v = values[e.key] { canonical[e.key] = v }
                continue
            }
            guard let v = e.read(resolved) else { continue }
            if e.hashing == .unlessDefault && v == e.read(defaults) { continue }
            if case .unlessEqual(let before) = e.hashing, v == before { continue }
            canonical[e.key] = v
        }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys]
        var bytes = [UInt8]((try? enc.encode(canonical)) ?? Data())
        bytes += Array("|opcodeList1=\(decode.applyOpcodeList1)|bayer=\(String(describing: decode.bayerDump))".utf8)
        return SHA256.hex(bytes)
    }

    /// Every recipe-file entry that changes output bytes, resolved (defaults included), by key;
    /// empty when the recipe does not resolve.
    public func resolvedEntries() -> [String: RecipeValue] {
        guard let resolved = try? resolution() else { return [:] }
        var out: [String: RecipeValue] = [:]
        for e in RecipeSchema.entries where e.scope.inRecipeFile && e.effect.inHash {
            if let v = e.read(resolved) { out[e.key] = v }
        }
        return out
    }

    /// YAML text of the given recipe-file values (keys in schema order); `load` reads it back.
    public func yaml() -> String {
        RecipeSchema.entries.filter(\.scope.inRecipeFile).compactMap { e in values[e.key].map { RecipeSchema.yaml(e.key, $0) } }.joined()
    }

    /// YAML text of every recipe-file key's effective value (what `darkroom recipe --print` shows).
    public func effectiveYAML() throws(BatchError) -> String {
        let r = try resolution()
        return RecipeSchema.entries.filter(\.scope.inRecipeFile).compactMap { e in e.read(r).map { RecipeSchema.yaml(e.key, $0) } }.joined()
    }
}

extension RecipeSchema {
    /// One `key: value` entry as YAML (block lists and mappings, quoted text where needed).
    static func yaml(_ key: String, _ value: RecipeValue) -> String {
        func scalar(_ s: String) -> String {
            let plain = !s.isEmpty && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "._/-".contains($0)) }
                && !["true", "false", "yes", "no", "on", "off", "null", "~"].contains(s.lowercased())
                && !s.hasPrefix("-")
            return plain ? s : "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        }
        switch value {
        case .bool(let b): return "\(key): \(b)\n"
        case .int(let i): return "\(key): \(i)\n"
        case .number(let d): return "\(key): \(num(d))\n"
        case .text(let t):
            // Choices that look like numbers (bit depths, chroma) stay plain.
            return "\(key): \(Int(t) != nil ? t : scalar(t))\n"
        case .list(let l): return l.isEmpty ? "\(key): []\n" : "\(key):\n" + l.map { "- \(scalar($0))\n" }.joined()
        case .map(let m): return m.isEmpty ? "\(key): {}\n" : "\(key):\n" + m.sorted { $0.key < $1.key }.map { "  \(scalar($0.key)): \(scalar($0.value))\n" }.joined()
        }
    }
}
