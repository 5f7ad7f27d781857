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
        key is optional; unknown or duplicate keys, anchors/aliases, nesting deeper than \
        \(8) levels and files over 1 MiB are errors. Flags override the file's values. Lists \
        take a YAML list or comma-separated text (format: [jpeg, tiff]); matte takes a mapping \
        (matte: {skin: skin.png}).

        Every option below, its values and its default (the one schema all flags, recipe keys, \
        validation and the recipe hash come from). [pixels] and [bytes] options are covered by \
        the recipe hash recorded in OUTDIR's manifest (quality, chroma, mattes and matte as \
        given); [speed], [naming] and [run] ones are not; [input] ones through the decode options.

        \(RecipeSchema.listing)
        """)

    @Flag(name: .customLong("print"), help: "Print the effective recipe (the default action).")
    var printRecipe = false

    @OptionGroup var recipeFile: RecipeFileOption
    @OptionGroup var outputOptions: OutputOptions
    @OptionGroup var recipeOptions: RecipeOptions
    @OptionGroup var bayerOptions: BayerOptions

    func layer() throws -> BatchRecipe {
        try EffectiveRecipe.layer(file: recipeFile.recipe, [recipeOptions, outputOptions, bayerOptions])
    }

    func run() throws {
        let recipe = try layer()
        let resolved = try EffectiveRecipe.resolve(recipe)
        let yaml: String
        do { yaml = try recipe.effectiveYAML() } catch { throw ValidationError(error.description) }
        // The same hash `develop` records in the manifest for this recipe.
        print("# darkroom \(DarkroomVersion.string) recipe (recipe hash \(recipe.hash(decode: resolved.decode).prefix(16)))")
        print(yaml, terminator: "")
    }
}
