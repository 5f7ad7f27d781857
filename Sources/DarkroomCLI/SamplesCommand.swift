import ArgumentParser
import DarkroomIO

/// `darkroom make-samples`: regenerates the synthetic chart DNGs kept in Samples/.
struct SamplesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "make-samples",
        abstract: "Write the synthetic colour-chart DNGs (4 CFA orders, 12/14-bit, D65 and A) to a directory.")

    @Option(name: [.short, .customLong("output")], help: "Directory to write into.")
    var outputDirectory: String = "Samples"

    func run() throws {
        do {
            for p in try SyntheticSamples.writeAll(to: outputDirectory) { Console.out(p) }
        } catch { throw CLIError("\(outputDirectory): cannot write samples (\(error))") }
    }
}
