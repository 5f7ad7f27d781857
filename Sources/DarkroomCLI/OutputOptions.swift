import ArgumentParser
import DarkroomBatch

/// The output flags (`RecipeSchema.Scope.output`) of `develop` and `recipe`: formats, encoder,
/// metadata, names, mattes. A test checks this list equals the schema's output keys.
struct OutputOptions: SchemaFlagGroup {
    static let scope = RecipeSchema.Scope.output
    @Option(schema: "format") var format: String?
    @Option(schema: "quality") var quality: String?
    @Option(schema: "chroma") var chroma: String?
    @Flag(schema: "nclx") var nclx: Bool?
    @Flag(schema: "strip-metadata") var stripMetadata: Bool?
    @Option(schema: "name") var name: String?
    @Option(schema: "mattes") var mattes: String?
    @Option(schema: "matte") var matte: [String] = []
}
