import ArgumentParser
import DarkroomBatch
import DarkroomCore
import DarkroomIO
import Foundation

/// `darkroom thumbnail FILE... -o DIR`: the largest usable embedded preview, without developing.
struct ThumbnailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Extract each file's largest embedded preview as DIR/NAME.jpg (fast contact sheets).",
        discussion: """
        DNG previews come from the file's own IFDs (the largest JPEG preview); other RAWs from \
        LibRaw's thumbnail API. An embedded JPEG is used only when libjpeg-turbo decodes it \
        completely; a corrupt or truncated one is never copied out (the output line names it as \
        refused) and the next source is tried. A file without a usable preview is rendered with \
        the default recipe (camera profile lookup included; 2×2 CFA quads binned to half size \
        when --size allows) and box-filtered to --size. Exit status: 0 all written, 1 some \
        failed, 2 usage error.
        """)

    @Argument(help: "RAW/DNG files.")
    var files: [String]

    @Option(name: [.short, .customLong("output")], help: "Output directory (created if missing).")
    var outputDirectory: String

    @Option(help: "Long side of the fallback render in pixels.")
    var size: Int = 1024

    @Flag(help: "Replace existing outputs.")
    var overwrite = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one input file") }
        guard (16...16384).contains(size) else { throw ValidationError("--size must be 16…16384") }
    }

    func run() throws {
        do { try FileManager.default.createDirectory(atPath: outputDirectory, withIntermediateDirectories: true) } catch {
            throw CLIError("\(outputDirectory): cannot create output directory (\((error as NSError).localizedDescription))")
        }
        var used = Set<String>()
        var failed = false
        for f in files {
            let stem = URL(fileURLWithPath: f).deletingPathExtension().lastPathComponent
            var name = stem, n = 2
            while used.contains(name.lowercased()) { name = "\(stem)-\(n)"; n += 1 }
            used.insert(name.lowercased())
            let out = (outputDirectory as NSString).appendingPathComponent(name + ".jpg")
            do {
                let preview = try PreviewExtractor.preview(path: f, longSide: size)
                do { try AtomicWriter.write(preview.jpeg, to: out, overwrite: overwrite) } catch { throw CLIError(error.description) }
                if !quiet { Console.out("\(f) → \(out) (\(preview.summary))") }
            } catch {
                failed = true
                Console.err("darkroom: error: \(error)")
            }
        }
        if failed { throw ExitCode(1) }
    }
}
