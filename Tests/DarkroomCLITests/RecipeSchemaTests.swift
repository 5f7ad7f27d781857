@testable import DarkroomCLI
import DarkroomBatch
import DarkroomCore
import DarkroomIO
import DarkroomTestSupport
import Foundation
import Testing

/// The recipe schema is the one description of every option: these tests check that the flags,
/// the recipe-file keys, `recipe --help`, validation and the recipe hash all follow it.
@Suite("CLI: recipe schema")
struct RecipeSchemaTests {
    /// A value different from the default for every recipe-file key (and one for flags only).
    static let sample: [String: RecipeRawValue] = [
        "color-space": .text("p3"), "demosaic": .text("bilinear"), "wb": .text("5000,+5"), "wb-rect": .text("1,2,3,4"),
        "wb-gains": .text("2,1,1.5"), "profile": .text("x.dcp"), "profile-name": .text("Neutral"), "profile-look": .flag(false),
        "gamut": .text("clip"), "highlights": .text("clip"), "noise-reduction": .text("0.5,2"), "sharpen": .text("1,2"), "lens": .text("distortion,tca"), "exposure": .text("0.5"), "baseline-exposure": .flag(false), "look": .text("darkroom"), "tone": .text("linear"), "tone-shoulder": .text("4"),
        "bit-depth": .text("16"), "dither": .flag(false), "crop": .flag(false), "orientation": .flag(false),
        "opcodes": .text("list1,list3"), "thumbnail-size": .text("0"), "tile-size": .text("64"), "threads": .text("3"),
        "format": .text("tiff,heif"), "quality": .text("80"), "chroma": .text("444"), "nclx": .flag(true), "strip-metadata": .flag(true),
        "name": .text("{stem}-x"), "mattes": .text("gamut,skin"), "matte": .sequence(["sky=sky.png"]),
        "bayer": .text("grbg"), "bits": .text("12"), "size": .text("640x480"), "black": .text("64"), "white": .text("4000"),
        "stride": .text("1400"), "jobs": .text("3"), "memory": .text("2G"), "shard": .text("2/5"),
    ]

    @Test func keysAreUniqueAndDocumented() {
        let keys = RecipeSchema.entries.map(\.key)
        #expect(Set(keys).count == keys.count, "duplicate keys")
        for e in RecipeSchema.entries {
            #expect(!e.help.isEmpty && !e.defaultText.isEmpty, "\(e.key) lacks help or default")
            #expect(Self.sample[e.key] != nil, "no sample value for \(e.key): add one to this test")
        }
    }

    /// Exactly one flag per schema entry and one entry per schema flag, in the right group, of
    /// the right kind; the YAML keys are the entries of the recipe-file scopes.
    @Test func everyEntryHasExactlyOneFlag() {
        let groups: [(RecipeSchema.Scope, [String])] = [
            (.develop, RecipeOptions.declaredKeys), (.output, OutputOptions.declaredKeys),
            (.bayer, BayerOptions.declaredKeys), (.run, RunOptions.declaredKeys),
        ]
        var all: [String] = []
        for (scope, declared) in groups {
            #expect(declared == RecipeSchema.entries.filter { $0.scope == scope }.map(\.key), "\(scope)")
            all += declared
        }
        #expect(all.sorted() == RecipeSchema.entries.map(\.key).sorted())
        #expect(RecipeSchema.fileKeys == RecipeSchema.entries.filter { $0.scope == .develop || $0.scope == .output }.map(\.key))
        // Toggles are `--x/--no-x` flags; everything else takes a value.
        for e in RecipeSchema.entries {
            let raw = Self.sample[e.key] ?? .text("")
            if case .flag = raw { #expect(e.flagKind == .toggle, "\(e.key)") } else { #expect(e.flagKind != .toggle, "\(e.key)") }
        }
    }

    /// Each command takes the flags of its scopes and no others (`info --exposure` is unknown).
    @Test func commandsTakeTheirScopes() throws {
        let expect: [(String, Set<RecipeSchema.Scope>)] = [
            ("develop", [.develop, .output, .bayer, .run]), ("explain", [.develop, .bayer]),
            ("recipe", [.develop, .output, .bayer]), ("info", [.bayer]),
        ]
        for (command, scopes) in expect {
            let r = try CLIProcess.run([command, "--help"])
            #expect(r.status == 0)
            for e in RecipeSchema.entries {
                let flag = e.flagKind == .toggle ? "--\(e.key)/--no-\(e.key)" : "--\(e.key) "
                #expect(r.stdout.contains(flag) == scopes.contains(e.scope), "\(command) \(flag)")
            }
            #expect(r.stdout.contains("--recipe <FILE>") == (command != "info"), "\(command)")
        }
    }

    /// `recipe --help` lists every key with its values, and every `--wb` word the parser accepts.
    @Test func recipeHelpListsTheSchema() throws {
        let r = try CLIProcess.run(["recipe", "--help"])
        #expect(r.status == 0)
        let help = r.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        for e in RecipeSchema.entries {
            #expect(help.contains(" \(e.key): ") || help.contains(" \(e.key) (default"), "\(e.key) missing")
        }
        let words = ["as-shot", "camera", "auto"] + WhiteBalanceRequest.Preset.allCases.map(\.rawValue)
        for w in words {
            #expect(help.contains(w), "--wb \(w) undocumented")
            #expect((try? WhiteBalanceRequest.parse(w)) != nil, "documented --wb \(w) rejected")
        }
        #expect(help.contains("KELVIN[,TINT] (1700…100000 K, tint −150…150)") && help.contains("xy:X,Y"))
    }

    /// One parser: a value given as a flag and the same value in a recipe file give the same
    /// layer, for every recipe-file key; printed YAML reads back to the same layer.
    @Test func flagsAndFileShareParsers() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        var flags = BatchRecipe()
        var yaml = ""
        for key in RecipeSchema.fileKeys {
            let raw = try #require(Self.sample[key])
            try flags.set(key, raw, origin: .flag)
            switch raw {
            case .text(let t): yaml += "\(key): '\(t)'\n"
            case .flag(let b): yaml += "\(key): \(b)\n"
            case .sequence(let items): yaml += "\(key): {" + items.map { $0.replacingOccurrences(of: "=", with: ": ") }.joined(separator: ", ") + "}\n"
            case .mapping: Issue.record("no mapping samples")
            }
        }
        try yaml.write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
        let file = try BatchRecipe.load(path: dir + "/r.yaml")
        #expect(file == flags)
        try flags.yaml().write(toFile: dir + "/p.yaml", atomically: true, encoding: .utf8)
        #expect(try BatchRecipe.load(path: dir + "/p.yaml") == flags)
        // Flag-only keys are not recipe-file keys.
        try "bayer: rggb\n".write(toFile: dir + "/b.yaml", atomically: true, encoding: .utf8)
        #expect(throws: BatchError.usage("\(dir)/b.yaml: unknown key 'bayer' (known: \(RecipeSchema.fileKeys.joined(separator: ", ")))")) {
            _ = try BatchRecipe.load(path: dir + "/b.yaml")
        }
    }

    /// The hash covers exactly the entries that change output bytes.
    @Test func hashCoversExactlyTheByteChangingKeys() throws {
        var base = BatchRecipe()
        try base.set("format", .text("tiff"))   // so bit-depth 16 resolves
        let h0 = base.hash(decode: DecodeOptions())
        for e in RecipeSchema.entries where e.scope.inRecipeFile && e.key != "format" {
            var r = base
            try r.set(e.key, try #require(Self.sample[e.key]))
            let changed = r.hash(decode: DecodeOptions()) != h0
            #expect(changed == e.effect.inHash, "\(e.key) [\(e.effect)]")
        }
    }

    /// Recipe hashes recorded in manifests by the version before the schema (from its reports'
    /// `recipeHash` for `develop` with these flags) are reproduced exactly with `--look darkroom`
    /// (that version's only look), so existing outputs stay up to date for users who keep it; the
    /// reference look, the default since, hashes differently (its pixels differ).
    @Test(arguments: [
        ([], "247c22c003f1640f2874eddb4bc27d3cc4154c26b32ae152c0b3039e33039660"),
        (["--chroma", "420"], "a8345d35ce7e4ee98670301d2fe367072d4bff6809839024895d042cf922ecac"),
        (["--quality", "80", "--mattes", "gamut,skin"], "494feedce777c7ffd738dc99e20a6f7f8da293aed3344c127ca1ee4705f53323"),
        (["--exposure", "0.5", "--wb", "5500,+10"], "4da25aa73a390085a1e3fa2404976103cc25cbeeef886a03be213b4e8cee5ade"),
        (["--wb-rect", "1,2,3,4"], "cdceed2e848a561ab1e402a6157a892d1ba260e088953f1721db55ac7a14dcee"),
        (["--matte", "skin=a.png", "--strip-metadata"], "30b4858dc40a8f8c94022afb33fa129b2ac977f34144cf267f0c5b1331994cc4"),
        (["--opcodes", "list1,list3", "--no-dither", "--tile-size", "64"], "e1bfa6b266ff94752aedf29dc232e4ecb667277a7fa065e792999fc99d2f79c1"),
        (["--wb", "auto", "--bit-depth", "16", "--format", "tiff"], "72a26067371426fbfc67d5a14d4ee9de8487c28b0391999111971c74a0afd8d2"),
        (["--color-space", "p3", "--gamut", "clip", "--tone", "linear", "--no-crop", "--thumbnail-size", "0", "--demosaic", "bilinear"],
         "32f74abb59865ce7b6e2eb8ecda1d9c4532a85faeafba3b56e9c5ef62a7a1ca7"),
    ])
    func hashesMatchEarlierManifests(flags: [String], expected: String) throws {
        // What earlier versions always did (the flags given override it): the darkroom look,
        // highlights clipped, no noise reduction, sharpening or lens correction, HEIF in 4:4:4,
        // the gbtf demosaic (the default before msg; always in the hash, so it must be named).
        let earlier = ["--look", "darkroom", "--highlights", "clip", "--noise-reduction", "off", "--sharpen", "off",
                       "--lens", "off", "--chroma", "444", "--demosaic", "gbtf"]
        let given = flags
        let flags = earlier + given
        let c = try DevelopCommand.parse(["in.dng", "-o", "out"] + flags)
        let layer = try c.layer()
        let resolved = try layer.resolution()
        #expect(layer.hash(decode: resolved.decode) == expected)
        // Today's defaults hash differently, each of them.
        let byDefault = try DevelopCommand.parse(["in.dng", "-o", "out"] + given).layer()
        #expect(byDefault.hash(decode: resolved.decode) != expected)
        for newer in [["--highlights", "reconstruct"], ["--noise-reduction", "auto"], ["--sharpen", "auto"], ["--lens", "auto"], ["--look", "reference"],
                      ["--demosaic", "msg"]] {
            let layer = try DevelopCommand.parse(["in.dng", "-o", "out"] + flags + newer).layer()
            if newer[1] == "reference" && given.contains("linear") { continue }
            #expect(layer.hash(decode: resolved.decode) != expected, "\(newer)")
        }
        // `recipe --print` shows the same hash develop records.
        let r = try CLIProcess.run(["recipe"] + flags)
        #expect(r.stdout.hasPrefix("# darkroom \(DarkroomVersion.string) recipe (recipe hash \(expected.prefix(16)))"), "\(r.stdout.prefix(80))")
    }

    /// How an option is added, shown by `orientation`: it existed as a `DevelopRecipe` field
    /// and a recipe-file key without a flag; one schema entry (plus the `@Flag(schema:)` line
    /// the flag test demands) gives it the flag, the key, help, validation and the hash.
    @Test func orientationComesFromItsEntryAlone() throws {
        let c = try DevelopCommand.parse(["in.dng", "-o", "out", "--no-orientation"])
        let fromFlag = try c.layer()
        #expect(try fromFlag.resolution().develop.applyOrientation == false)
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        try "orientation: false\n".write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
        #expect(try BatchRecipe.load(path: dir + "/r.yaml") == fromFlag)
        #expect(fromFlag.hash(decode: DecodeOptions()) != BatchRecipe().hash(decode: DecodeOptions()))
        try "orientation: sideways\n".write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
        #expect(throws: BatchError.usage("\(dir)/r.yaml: orientation: must be true or false (got 'sideways')")) {
            _ = try BatchRecipe.load(path: dir + "/r.yaml")
        }
        #expect(RecipeSchema.listing.contains("  orientation: true | false (default true) [pixels]"))
    }

    /// `explain` takes `--recipe`: the recipe file's exposure shows in the plan.
    @Test func explainTakesRecipe() throws {
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        let sample = TestSupport.packageRoot.appendingPathComponent("Samples/chart-rggb-12bit-D65.dng").path
        try "exposure: 1.5\n".write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
        let plain = try CLIProcess.run(["explain", sample])
        let withRecipe = try CLIProcess.run(["explain", sample, "--recipe", dir + "/r.yaml"])
        let withFlag = try CLIProcess.run(["explain", sample, "--exposure", "1.5"])
        #expect(plain.status == 0 && withRecipe.status == 0 && withFlag.status == 0, "\(withRecipe.stderr)")
        #expect(withRecipe.stdout == withFlag.stdout)
        #expect(withRecipe.stdout != plain.stdout)
        #expect(withRecipe.stdout.contains("2^1.50"), "\(withRecipe.stdout)")
    }

    /// docs/recipe-keys.md (generated by `make docs`) holds the schema table exactly as the schema renders it.
    @Test func docsHoldTheSchemaTable() throws {
        let page = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/recipe-keys.md"), encoding: .utf8)
        #expect(page.contains(RecipeSchema.markdownTable), "docs/recipe-keys.md is stale (run `make docs`); it should hold:\n\(RecipeSchema.markdownTable)")
    }

    /// The worked example of adding a develop option: `tone-shoulder` (the standard curve's b,
    /// until now a constant) is one schema entry, one `DevelopRecipe` field and its use where
    /// `DevelopPlan` builds the `ToneCurve`, plus the `@Option(schema:)` line. From that alone it
    /// has a flag, a recipe-file key, help, limits and a place in the hash that leaves every
    /// earlier recipe's hash unchanged.
    @Test func toneShoulderAddedByOneEntry() throws {
        let c = try DevelopCommand.parse(["in.dng", "-o", "out", "--look", "darkroom", "--highlights", "clip", "--noise-reduction", "off", "--sharpen", "off", "--lens", "off", "--tone-shoulder", "4"])
        let fromFlag = try c.layer()
        let recipe = try fromFlag.resolution().develop
        #expect(recipe.toneShoulder == 4)
        let dir = TestSupport.tempDirectory()
        defer { TestSupport.cleanup(dir) }
        try "look: darkroom\nhighlights: clip\nnoise-reduction: off\nsharpen: off\nlens: off\ntone-shoulder: 4\n".write(toFile: dir + "/r.yaml", atomically: true, encoding: .utf8)
        #expect(try BatchRecipe.load(path: dir + "/r.yaml") == fromFlag)
        // The hash: unchanged when the option is absent or at its default, changed otherwise.
        var atDefault = BatchRecipe()
        try atDefault.set("look", .text("darkroom"))
        try atDefault.set("highlights", .text("clip"))
        try atDefault.set("noise-reduction", .text("off"))
        try atDefault.set("sharpen", .text("off"))
        try atDefault.set("lens", .text("off"))
        try atDefault.set("chroma", .text("444"))
        try atDefault.set("tone-shoulder", .text("2"))
        try atDefault.set("demosaic", .text("gbtf"))
        #expect(atDefault.hash(decode: DecodeOptions()) == "247c22c003f1640f2874eddb4bc27d3cc4154c26b32ae152c0b3039e33039660")
        #expect(fromFlag.hash(decode: DecodeOptions()) != atDefault.hash(decode: DecodeOptions()))
        // The plan uses it: y = (1 + b)·x / (x + b) (ToneCurve's documented formula) at mid-grey.
        let raw = SyntheticSamples.all[0].chart().makeRawImage()
        let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: "chart.dng")
        #expect(plan.tone.shoulder == 4)
        #expect(abs(plan.tone.apply(0.18) - Float(5 * 0.18 / 4.18)) < 1e-6)
        #expect(plan.explanation.contains { $0.contains("y = (1+b)x/(x+b), b = 4.0") })
        var darkroom = DevelopRecipe()
        darkroom.tone = .standard
        let standard = try PlanBuilder.plan(for: raw, recipe: darkroom, path: "chart.dng")
        #expect(abs(standard.tone.apply(0.18) - Float(3 * 0.18 / 2.18)) < 1e-6)
        // Limits and help come from the entry.
        let bad = try CLIProcess.run(["recipe", "--tone-shoulder", "0"])
        #expect(bad.status == 2 && bad.errorLines == ["darkroom: error: --tone-shoulder: must be 0.25…64 (got 0)"], "\(bad.stderr)")
        let help = try CLIProcess.run(["develop", "--help"])
        #expect(help.stdout.contains("--tone-shoulder <b>"))
        let sample = TestSupport.packageRoot.appendingPathComponent("Samples/chart-rggb-12bit-D65.dng").path
        let explain = try CLIProcess.run(["explain", sample, "--look", "darkroom", "--tone-shoulder", "0.5"])
        #expect(explain.status == 0 && explain.stdout.contains("b = 0.5"), "\(explain.stdout)")
    }
}
