import DarkroomTestSupport
import Foundation
import Testing

/// `darkroom explain` on real files whose camera and lens are in the lensfun database: the
/// matched names (as the database spells them), the shot parameters and the corrections.
@Suite("CLI: lens correction in explain")
struct LensExplainTests {
    /// A Canon EOS 6D DNG (Adobe-converted, no lens opcodes) shot with the EF 24-105mm f/4L IS USM
    /// at 65 mm, f/5.6, focused at 1.48 m (exiftool: Make Canon, Model Canon EOS 6D, LensModel
    /// "EF24-105mm f/4L IS USM", FocalLength 65.0 mm, FNumber 5.6, XMP-aux
    /// ApproximateFocusDistance 1.48); the database lists both.
    static let sample = "dng/photoprism_canon_eos_6d.dng"

    @Test func realSampleShowsTheCorrection() throws {
        guard let file = TestSupport.sharedSamples(Self.sample),
              FileManager.default.fileExists(atPath: "/usr/share/lensfun/version_1/slr-canon.xml") else { return }
        let r = try CLIProcess.run(["explain", file.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let head = try #require(lines.first { $0.hasPrefix("lens correction:") }, "\(r.stdout)")
        #expect(head == "lens correction: auto → camera Canon EOS 6D (crop factor 1.005), lens Canon EF 24-105mm f/4L IS USM (lensfun database)")
        // Focus distance: exiftool reads XMP-aux ApproximateFocusDistance 1.48.
        #expect(lines.contains("65 mm, f/5.6, focus 1.48 m (XMP ApproximateFocusDistance)"), "\(lines)")
        #expect(lines.contains("corrects distortion (ptlens), tca, vignetting"))
        // Turned off, it says so and nothing else.
        let off = try CLIProcess.run(["explain", file.path, "--lens", "off"])
        #expect(off.stdout.contains("lens correction: off → none (off)"))
        // A bad value is a usage error naming the flag.
        let bad = try CLIProcess.run(["explain", file.path, "--lens", "distortion,fisheye"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("lens"), "\(bad.stderr)")
    }
}
