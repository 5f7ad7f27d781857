import ArgumentParser
import DarkroomIO
import Foundation

/// `darkroom verify FILE.dng...`: digests, full decode, and optionally the original's values.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check DNGs: decode every stored sample, recompute RawImageDigest/NewRawImageDigest (and OriginalRawFileDigest).",
        discussion: """
        Prints one line per file, OK or FAIL with the reason. With --original (one DNG only) the \
        decoded samples are also compared, value by value, with LibRaw's unpacking of the original \
        RAW. A DNG without either raw digest fails. Exit status: 0 all OK, 1 any failure, 2 usage error.
        """)

    @Argument(help: "DNG files.")
    var files: [String]

    @Option(help: "The RAW file the DNG was converted from (only with one DNG).")
    var original: String?

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one DNG") }
        if original != nil, files.count != 1 { throw ValidationError("--original needs exactly one DNG") }
    }

    func run() throws {
        var failed = false
        for f in files {
            let r = DNGVerifier.verify(path: f, original: original)
            if r.ok { Console.out(r.line) } else { failed = true; Console.out(r.line) }
        }
        if failed { throw ExitCode(1) }
    }
}
