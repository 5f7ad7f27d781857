import ArgumentParser
import CShims
import DarkroomCore

/// `darkroom`: batch RAW/DNG development.
public struct DarkroomCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "darkroom",
        abstract: "Develop camera RAW and DNG files into colour-managed JPEG, HEIF and TIFF.",
        version: DarkroomCommand.versionLine,
        subcommands: [DevelopCommand.self, ThumbnailCommand.self, RecipeCommand.self, InfoCommand.self, ExplainCommand.self, ProfilesCommand.self, SamplesCommand.self, ConvertCommand.self, VerifyCommand.self, ExtractCommand.self, CompareCommand.self, ConstantColourCommand.self, ProfileCommand.self, ReportCommand.self, GenerateDocsCommand.self]
    )
    public init() {}

    /// `darkroom --version`: the release and the git commit the binary was built from
    /// (`dr_build_commit`: "unknown" for a build made without `make` or without git).
    public static var versionLine: String { "\(DarkroomVersion.string) (commit \(String(cString: dr_build_commit())))" }
}
