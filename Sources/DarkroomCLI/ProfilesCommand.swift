import ArgumentParser
import DarkroomCore
import DarkroomIO

/// `darkroom profiles FILE...`: lists the camera profiles each file offers (embedded ones and
/// matching `.dcp` files in the profile directories), with the tables each carries.
/// `darkroom profiles --write-icc DIR`: regenerates the ICC profiles kept in Profiles/.
struct ProfilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List the camera profiles a RAW file offers, or write the output-space ICC profiles.",
        discussion: """
            Profiles listed can be chosen with `develop --profile-name NAME` (or a .dcp file with \
            `--profile FILE.dcp`). External .dcp files are matched by UniqueCameraModel.
            """)

    @Argument(help: "RAW/DNG files whose camera profiles to list.")
    var files: [String] = []

    @Option(name: .customLong("profiles-dir"), help: "Directory searched for .dcp files (repeatable; default Profiles).")
    var profileDirectories: [String] = []

    @Option(name: .customLong("write-icc"), help: "Write the ICC v4 profiles of every output colour space (lcms2) to this directory.")
    var iccDirectory: String?

    /// The old spelling (`profiles -o DIR`), kept so `make profiles` works until it says `--write-icc`.
    @Option(name: [.customShort("o"), .customLong("output")], help: .hidden)
    var legacyOutput: String?

    func validate() throws {
        if files.isEmpty && iccDirectory == nil && legacyOutput == nil {
            throw ValidationError("give FILE... to list camera profiles, or --write-icc DIR")
        }
    }

    func run() throws {
        if let dir = iccDirectory ?? legacyOutput {
            do { try ICCProfileFactory.writeAll(to: dir) } catch {
                throw CLIError("\(dir): cannot write profiles (\(error))")
            }
            for s in OutputColorSpace.allCases { Console.out("\(dir)/\(s.iccFileName)  \(s.displayName)") }
        }
        let dirs = profileDirectories.isEmpty ? ProfileLibrary.defaultSearchDirectories : profileDirectories
        var failed = false
        for path in files {
            do throws(DecodeError) {
                let md = try RawDecoder.metadata(path: path)
                Console.out("\(path):")
                let entries = ProfileLibrary.entries(metadata: md, searchDirectories: dirs)
                if entries.isEmpty { Console.out("  (no camera profile)") }
                for e in entries { Console.out("  \(Self.describe(e))") }
            } catch {
                Console.err("darkroom: error: \(error.description)"); failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    /// "NAME  [source]  2 illuminants (17, 21), ForwardMatrix, HueSatMap 90×30×1, LookTable 36×8×16 sRGB, ToneCurve 257 points".
    static func describe(_ e: ProfileLibrary.Entry) -> String {
        let p = e.profile
        var parts: [String] = []
        let illuminants = [p.calibrationIlluminant1, p.calibrationIlluminant2, p.calibrationIlluminant3].compactMap { $0 }
        let matrices = [p.colorMatrix1, p.colorMatrix2, p.colorMatrix3].compactMap { $0 }.count
        if matrices > 0 { parts.append("\(matrices) ColorMatrix (illuminants \(illuminants.map(String.init).joined(separator: ", ")))") }
        if p.forwardMatrix1 != nil || p.forwardMatrix2 != nil { parts.append("ForwardMatrix") }
        if let d = p.hueSatMapDims { parts.append("HueSatMap \(d.map(String.init).joined(separator: "×"))\(p.hueSatMapEncoding == 1 ? " sRGB" : "")") }
        if let d = p.lookTableDims { parts.append("LookTable \(d.map(String.init).joined(separator: "×"))\(p.lookTableEncoding == 1 ? " sRGB" : "")") }
        if let c = p.toneCurve { parts.append("ToneCurve \(c.count / 2) points") }
        return "\(e.name)  [\(e.source)]  \(parts.joined(separator: ", "))"
    }
}
