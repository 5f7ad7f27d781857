import ArgumentParser
import DarkroomBatch

/// The develop flags (`RecipeSchema.Scope.develop`) of `develop`, `explain` and `recipe`:
/// everything that changes pixels. Every flag is optional so that a recipe file's value is
/// overridden only by flags actually given (defaults ← recipe file ← flags). Names, help and
/// limits come from the schema; a test checks this list equals the schema's develop keys.
struct RecipeOptions: SchemaFlagGroup {
    static let scope = RecipeSchema.Scope.develop
    @Option(schema: "color-space") var colorSpace: String?
    @Option(schema: "demosaic") var demosaic: String?
    @Option(schema: "wb") var wb: String?
    @Option(schema: "wb-rect") var wbRect: String?
    @Option(schema: "wb-gains") var wbGains: String?
    @Option(schema: "profile") var profile: String?
    @Option(schema: "profile-name") var profileName: String?
    @Flag(schema: "profile-look") var profileLook: Bool?
    @Option(schema: "gamut") var gamut: String?
    @Option(schema: "highlights") var highlights: String?
    @Option(schema: "noise-reduction") var noiseReduction: String?
    @Option(schema: "sharpen") var sharpen: String?
    @Option(schema: "lens") var lens: String?
    @Option(schema: "exposure") var exposure: String?
    @Flag(schema: "baseline-exposure") var baselineExposure: Bool?
    @Option(schema: "look") var look: String?
    @Option(schema: "tone") var tone: String?
    @Option(schema: "tone-shoulder") var toneShoulder: String?
    @Option(schema: "bit-depth") var bitDepth: String?
    @Flag(schema: "dither") var dither: Bool?
    @Flag(schema: "crop") var crop: Bool?
    @Flag(schema: "orientation") var orientation: Bool?
    @Option(schema: "opcodes") var opcodes: String?
    @Option(schema: "thumbnail-size") var thumbnailSize: String?
    @Option(schema: "tile-size") var tileSize: String?
    @Option(schema: "threads") var threads: String?
}

/// The Bayer-dump flags (`RecipeSchema.Scope.bayer`) of `develop`, `explain`, `info` and `recipe`.
struct BayerOptions: SchemaFlagGroup {
    static let scope = RecipeSchema.Scope.bayer
    @Option(schema: "bayer") var bayer: String?
    @Option(schema: "bits") var bits: String?
    @Option(schema: "size") var size: String?
    @Option(schema: "black") var black: String?
    @Option(schema: "white") var white: String?
    @Option(schema: "stride") var stride: String?
}

/// The batch flags (`RecipeSchema.Scope.run`) of `develop`.
struct RunOptions: SchemaFlagGroup {
    static let scope = RecipeSchema.Scope.run
    @Option(schema: "jobs") var jobs: String?
    @Option(schema: "memory") var memory: String?
    @Option(schema: "shard") var shard: String?
}
