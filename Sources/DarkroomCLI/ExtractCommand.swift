import ArgumentParser
import DarkroomIO
import Foundation

/// `darkroom extract FILE.dng -o DIR`: the embedded original, byte for byte.
struct ExtractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Write the original RAW embedded in each DNG (OriginalRawFileData) back to DIR, byte for byte.",
        discussion: """
        The file takes its OriginalRawFileName (its last path component). OriginalRawFileDigest, \
        when present, is checked before anything is written; the output appears atomically and \
        an existing file is never replaced without --overwrite. Even with --overwrite, an input \
        DNG is never replaced, and when two DNGs embed the same name the later one fails. \
        Exit status: 0 all extracted, 1 some failed, 2 usage error.
        """)

    @Argument(help: "DNG files with an embedded original.")
    var files: [String]

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one DNG") }
    }

    func run() throws {
        do { try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true) } catch {
            throw CLIError("\(outputDirectory): cannot create output directory (\((error as NSError).localizedDescription))")
        }
        var failed = false
        // No output replaces an input, and no two outputs of this run share a name (the later fails).
        let inputs = Set(files.compactMap(AtomicWriter.FileIdentity.of(path:)))
        var written: [AtomicWriter.FileIdentity: String] = [:]
        for f in files {
            do {
                let r = try OriginalRawExtractor.extract(dng: f, to: outputDirectory, overwrite: overwrite,
                                                         inputs: inputs, written: written)
                if let id = AtomicWriter.FileIdentity.of(path: r.path) { written[id] = f }
                Console.out("\(f) → \(r.path) (\(r.bytes) bytes, SHA-256 \(r.sha256))")
            } catch {
                failed = true
                Console.err("darkroom: error: \(error)")
            }
        }
        if failed { throw ExitCode(1) }
    }
}
