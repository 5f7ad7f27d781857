import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO

/// `darkroom recipe --print [--recipe FILE] [flags]`: the effective recipe as YAML.
struct RecipeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "recipe",
        abstract: "Show the effective recipe (defaults ← recipe file ← flags) as a YAML recipe file.",
        discussion: """
        A recipe file is one YAML mapping whose keys are the long flag names of `develop`; every \
        key is optional and unknown keys are an error:

          color-space: srgb          # \(OutputColorSpace.allCases.map(\.rawValue).joined(separator: " | "))
          demosaic: \(DemosaicAlgorithm.default.rawValue)             # \(DemosaicAlgorithm.allCases.map(\.rawValue).joined(separator: " | "))
          wb: as-shot                # as-shot | KELVIN[,TINT] | xy:X,Y
          exposure: 0                # stops, added to BaselineExposure
          baseline-exposure: true
          tone: standard             # standard | linear
          bit-depth: 8               # 8 | 16 (TIFF/HEIF)
          dither: true
          crop: true                 # DefaultCrop
          orientation: true
          opcodes: true              # OpcodeList1/2/3
          thumbnail-size: 320
          tile-size: 256             # speed only
          threads: 0                 # speed only; 0 = cores / files in flight
          format: [jpeg]             # any of jpeg, heif, tiff
          quality: 90                # 1…100; absent = the format's default
          strip-metadata: false
          name: "{dir}/{stem}"
          mattes: []                 # \(MatteKind.allCases.map(\.rawValue).joined(separator: " | "))
          matte: {skin: skin.png}    # supplied mattes, KIND: FILE.png

        The recipe hash recorded in the manifest covers every key but tile-size, threads, \
        format (recorded per output) and name.
        """)

    @Flag(name: .customLong("print"), help: "Print the effective recipe (the default action).")
    var printRecipe = false

    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var recipeOptions: RecipeOptions

    func run() throws {
        var r = try outputOptions.effective(recipeOptions)
        let resolved: (recipe: DevelopRecipe, export: ExportOptions, formats: [OutputFormat])
        do { resolved = try r.resolved() } catch { throw ValidationError(error.description) }
        r.develop = resolved.recipe.fileSettings
        r.formats = resolved.formats
        r.stripMetadata = resolved.export.stripMetadata
        r.name = r.name ?? OutputNamer.defaultTemplate
        r.mattes = r.mattes ?? []
        print("# darkroom \(DarkroomVersion.string) recipe (recipe hash \(r.hash(decode: try recipeOptions.decodeOptions()).prefix(16)))")
        print(r.yaml(), terminator: "")
    }
}
