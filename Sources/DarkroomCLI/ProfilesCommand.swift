import ArgumentParser
import DarkroomCore
import DarkroomIO

/// `darkroom profiles [--output DIR]`: regenerates the ICC profiles kept in Profiles/.
struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "Write the ICC v4 profiles of every output colour space (made with lcms2) to a directory.")

    @Option(name: [.short, .customLong("output")], help: "Directory to write into.")
    var outputDirectory: String = "Profiles"

    func run() throws {
        do { try ICCProfileFactory.writeAll(to: outputDirectory) } catch {
            throw CLIError("\(outputDirectory): cannot write profiles (\(error))")
        }
        for s in OutputColorSpace.allCases { Console.out("\(outputDirectory)/\(s.iccFileName)  \(s.displayName)") }
    }
}
