import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO

/// `darkroom explain FILE`
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Print the develop plan for a file: every stage with its resolved numbers.",
        discussion: "The recipe is the one `develop` would use: defaults ← --recipe FILE ← flags (keys: `darkroom recipe --help`).")

    @Argument(help: "The RAW/DNG file.")
    var file: String

    @OptionGroup var recipeFile: RecipeFileOption
    @OptionGroup var recipeOptions: RecipeOptions
    @OptionGroup var bayerOptions: BayerOptions

    func resolved() throws -> ResolvedRecipe {
        try EffectiveRecipe.resolve(try EffectiveRecipe.layer(file: recipeFile.recipe, [recipeOptions, bayerOptions]))
    }

    func run() throws {
        let r = try resolved()
        // --profile is read and checked before the input: a bad one is a usage error (exit 2).
        if let p = r.develop.profilePath {
            do throws(ProfileLibraryError) { _ = try ProfileLibrary.readDCP(path: p) } catch {
                Console.err("darkroom: error: --profile: \(error.description)"); throw ExitCode(2)
            }
        }
        let raw: RawImage
        do throws(DecodeError) { raw = try RawDecoder.decode(path: file, options: r.decode) } catch {
            Console.err("darkroom: error: \(error.description)"); throw ExitCode(1)
        }
        do throws(DevelopFailure) {
            let plan = try PlanBuilder.plan(for: raw, recipe: r.develop, path: file)
            Console.out("\(file)")
            for line in plan.explanation(for: raw) { Console.out("  " + line) }
            for line in SemanticMatteBuilder.explanation(r.export.computedMattes) { Console.out("  " + line) }
        } catch {
            Console.err("darkroom: error: \(error.description)"); throw ExitCode(1)
        }
    }
}
