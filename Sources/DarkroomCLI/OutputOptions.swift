import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO

/// Output options shared by `develop` and `recipe --print`, plus `--recipe FILE`. Together with
/// `RecipeOptions` they make the effective `BatchRecipe`: defaults ← recipe file ← flags.
struct OutputOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Recipe file (YAML; schema: `darkroom recipe --help`). Flags override its values.", valueName: "FILE"))
    var recipe: String?

    @Option(help: ArgumentHelp("Output formats, comma-separated: jpeg, heif, tiff (default jpeg). Several formats come from one decode and render.", valueName: "formats"))
    var format: String?

    @Option(help: "Encoder quality 1…100 (default: JPEG 90, HEIF 50 — x265 preset ultrafast, comparable to JPEG 90).")
    var quality: Int?

    @Option(help: "HEIF chroma subsampling: 444 (default; best quality per byte) or 420 (for decoders limited to HEVC Main).")
    var chroma: String?

    @Flag(name: .customLong("strip-metadata"), inversion: .prefixedNo, help: "Write no EXIF/XMP/thumbnail (the ICC profile is always embedded; default off).")
    var stripMetadata: Bool?

    @Option(help: ArgumentHelp("Output name template below OUTDIR (default '{dir}/{stem}'): \(OutputNamer.placeholders.map { "{\($0)}" }.joined(separator: " ")).", valueName: "template"))
    var name: String?

    @Option(help: ArgumentHelp("Mattes to compute and embed, comma-separated: \(MatteKind.allCases.map(\.rawValue).joined(separator: ", ")).", valueName: "kinds"))
    var mattes: String?

    @Option(help: ArgumentHelp("A matte supplied as an 8-bit PNG, KIND=FILE.png (repeatable).", valueName: "KIND=FILE"))
    var matte: [String] = []

    func validate() throws {
        _ = try flagRecipe()
    }

    /// Only what the flags give, as a recipe layer.
    func flagRecipe(_ develop: DevelopRecipe.FileSettings = .init()) throws -> BatchRecipe {
        var r = BatchRecipe()
        r.develop = develop
        do {
            if let format { r.formats = try BatchRecipe.parseFormats(format) }
        } catch { throw ValidationError("--\(error.description)") }
        if let q = quality {
            guard (1...100).contains(q) else { throw ValidationError("--quality must be 1…100") }
            r.quality = q
        }
        if let chroma {
            guard ["420", "444", "4:2:0", "4:4:4"].contains(chroma) else { throw ValidationError("--chroma must be 420 or 444") }
            r.chroma = chroma
        }
        r.stripMetadata = stripMetadata
        if let name { do { _ = try OutputNamer(template: name) } catch { throw ValidationError(error.description) }; r.name = name }
        if let mattes {
            var kinds: [MatteKind] = []
            for k in mattes.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !k.isEmpty {
                guard let kind = MatteKind(rawValue: k) else {
                    throw ValidationError("--mattes: unknown matte kind '\(k)' (\(MatteKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            r.mattes = kinds
        }
        if !matte.isEmpty {
            var d: [String: String] = [:]
            for m in matte {
                let p = m.split(separator: "=", maxSplits: 1).map(String.init)
                guard p.count == 2, !p[1].isEmpty else { throw ValidationError("--matte must be KIND=FILE.png (got '\(m)')") }
                guard MatteKind(rawValue: p[0]) != nil else {
                    throw ValidationError("--matte: unknown matte kind '\(p[0])' (\(MatteKind.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                d[p[0]] = p[1]
            }
            r.matte = d
        }
        return r
    }

    /// defaults ← `--recipe FILE` ← flags, validated.
    func effective(_ recipeOptions: RecipeOptions) throws -> BatchRecipe {
        var base = BatchRecipe()
        if let recipe {
            do { base = try BatchRecipe.load(path: recipe) } catch { throw ValidationError(error.description) }
        }
        let merged = base.overlaid(by: try flagRecipe(recipeOptions.settings()))
        do { _ = try merged.resolved() } catch { throw ValidationError(error.description) }
        return merged
    }
}
