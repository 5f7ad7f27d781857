import ArgumentParser
import DarkroomCore
import DarkroomIO

/// `darkroom explain FILE`
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Print the develop plan for a file: every stage with its resolved numbers.")

    @Argument(help: "The RAW/DNG file.")
    var file: String

    @OptionGroup var recipeOptions: RecipeOptions

    func run() throws {
        let recipe = try recipeOptions.recipe()
        let decode = try recipeOptions.decodeOptions()
        let raw: RawImage
        do throws(DecodeError) { raw = try RawDecoder.decode(path: file, options: decode) } catch {
            Console.err("darkroom: error: \(error.description)"); throw ExitCode(1)
        }
        do throws(DevelopFailure) {
            let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: file)
            Console.out("\(file)")
            for line in plan.explanation { Console.out("  " + line) }
        } catch {
            Console.err("darkroom: error: \(error.description)"); throw ExitCode(1)
        }
    }
}
