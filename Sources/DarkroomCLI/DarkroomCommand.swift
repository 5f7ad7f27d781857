import ArgumentParser
import DarkroomCore

/// `darkroom`: batch RAW/DNG development.
public struct DarkroomCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "darkroom",
        abstract: "Develop camera RAW and DNG files into colour-managed JPEG, HEIF and TIFF.",
        version: DarkroomVersion.string,
        subcommands: [DevelopCommand.self, ThumbnailCommand.self, RecipeCommand.self, InfoCommand.self, ExplainCommand.self, ProfilesCommand.self, SamplesCommand.self, ConvertCommand.self, VerifyCommand.self, ExtractCommand.self, CompareCommand.self, ConstantColourCommand.self, ProfileCommand.self, ReportCommand.self]
    )
    public init() {}
}
