// Peer denoisers on bench-quality's synthetic raws (issue 14: "the table also shows darktable-cli's
// and rawtherapee-cli's denoising on the same files where installed").
//
// Each raw bench-quality makes (clean, and the three noise levels with their NoiseProfile) is
// written as a DNG by our DNGWriter and developed by the peer twice, its denoiser off and on, to a
// 16-bit TIFF. A peer's renders are compared with the same peer's render of the noise-free raw, so
// the gain is what its denoiser buys inside its own pipeline (tone curves and colour differ from
// ours and from each other's; PSNR across tools would measure those, not noise).
//
// - rawtherapee-cli 5.x: off = the neutral profile (no `-d`); on = the neutral profile plus the
//   `[Directional Pyramid Denoising]` section of the installed RawTherapee's own bundled
//   "Standard Film Curve - ISO High.pp3" (its high-ISO default: luminance 50, detail 60, median,
//   chroma automatic), read from the installation at run time.
// - darktable-cli 4.x: a sidecar XMP whose history holds "denoise (profiled)" — its default
//   wavelets mode, the noise profile darktable picks for the camera (generic here), luma and
//   chroma at its default curve — enabled (on) or disabled (off), the same sidecar otherwise. The
//   module's parameters come from the installed darktable itself: its built-in preset
//   "wavelets: chroma only" (read from the data.db a first run creates, with `sqlite3`) with the
//   luma curve set to the chroma curves' value, i.e. the module's wavelet defaults.
// Nothing of either tool is committed; a peer that is not installed (or fails) prints why.
import DarkroomCore
import DarkroomIO
import Foundation

/// One peer developer and how it is asked for a 16-bit TIFF with its denoiser off or on.
struct PeerDenoiser {
    let name: String
    /// What "on" is, for the table.
    let setting: String
    /// Renders `dng` to `tiff`, denoiser on or off.
    let develop: (_ dng: String, _ tiff: String, _ denoise: Bool) throws -> Void
}

struct PeerFailure: Error, CustomStringConvertible { let description: String }

/// Runs `arguments` (PATH lookup of the first), stdout and stderr captured; throws on a non-zero exit.
@discardableResult
func runTool(_ arguments: [String]) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out; p.standardError = out
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    guard p.terminationStatus == 0 else {
        throw PeerFailure(description: "\(arguments[0]) exited \(p.terminationStatus): \(text.split(separator: "\n").last ?? "")")
    }
    return text
}

func which(_ tool: String) -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
        let path = "\(dir)/\(tool)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
}

/// RawTherapee with the denoise section of its own bundled high-ISO profile.
func rawTherapeePeer(workDir: String) throws -> PeerDenoiser? {
    guard let cli = which("rawtherapee-cli") else { return nil }
    let share = URL(fileURLWithPath: cli).resolvingSymlinksInPath().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("share/rawtherapee/profiles/Standard Film Curve - ISO High.pp3").path
    guard let text = try? String(contentsOfFile: share, encoding: .utf8) else {
        throw PeerFailure(description: "rawtherapee-cli: its bundled profile \(share) is missing")
    }
    var section: [Substring] = [], inside = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        if line.hasPrefix("[") { inside = line == "[Directional Pyramid Denoising]" }
        if inside { section.append(line) }
    }
    guard section.contains(where: { $0 == "Enabled=true" }) else {
        throw PeerFailure(description: "rawtherapee-cli: no enabled [Directional Pyramid Denoising] in \(share)")
    }
    let pp3 = workDir + "/rt-denoise.pp3"
    try (section.joined(separator: "\n") + "\n").write(toFile: pp3, atomically: true, encoding: .utf8)
    let luma = section.first { $0.hasPrefix("Luma=") }.map(String.init) ?? ""
    return PeerDenoiser(name: "rawtherapee-cli", setting: "its ISO High profile's denoise (\(luma), chroma auto)") { dng, tiff, on in
        try runTool(["rawtherapee-cli", "-q", "-Y", "-t", "-b16", "-o", tiff] + (on ? ["-p", pp3] : []) + ["-c", dng])
    }
}

/// darktable with "denoise (profiled)" at its wavelet defaults, parameters taken from the installed darktable.
func darktablePeer(workDir: String, firstDNG: String) throws -> PeerDenoiser? {
    guard which("darktable-cli") != nil else { return nil }
    guard which("sqlite3") != nil else {
        throw PeerFailure(description: "darktable-cli: sqlite3 is needed to read its module parameters (make bench-peers installs it)")
    }
    let conf = workDir + "/darktable-conf"
    let common = ["--core", "--configdir", conf, "--conf", "plugins/imageio/format/tiff/bpp=16",
                  "--conf", "plugins/imageio/format/tiff/compress=0"]
    // A first run creates data.db with the built-in presets of this darktable version.
    try runTool(["darktable-cli", firstDNG, workDir + "/dt-first.tif"] + common)
    let row = try runTool(["sqlite3", conf + "/data.db",
                           "select hex(op_params), op_version, hex(blendop_params), blendop_version from presets where operation = 'denoiseprofile' and name = 'wavelets: chroma only'"])
        .trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
    guard row.count == 4, var params = hexBytes(row[0]), let version = Int(row[1]) else {
        throw PeerFailure(description: "darktable-cli: no 'wavelets: chroma only' preset of denoiseprofile in its data.db")
    }
    // Version 11's layout (darktable 4.x): 15 words (radius … mode), x[6][7], y[6][7], 4 flags;
    // curve 4 of y is Y0 (luma), set to the value of curve 5 (U0V0, chroma).
    guard version == 11, params.count == 103 * 4 else {
        throw PeerFailure(description: "darktable-cli: denoiseprofile parameters version \(version), \(params.count) bytes (this bench knows version 11, 412 bytes)")
    }
    let y0 = (15 + 42 + 4 * 7) * 4, uv = (15 + 42 + 5 * 7) * 4
    for i in 0..<(7 * 4) { params[y0 + i] = params[uv + i] }
    func xmp(enabled: Bool) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:darktable="http://darktable.sf.net/"
           darktable:xmp_version="5" darktable:auto_presets_applied="0" darktable:history_end="1">
           <darktable:history>
            <rdf:Seq>
             <rdf:li darktable:num="0" darktable:operation="denoiseprofile" darktable:enabled="\(enabled ? 1 : 0)"
              darktable:modversion="\(version)" darktable:params="\(params.map { String(format: "%02x", $0) }.joined())"
              darktable:multi_name="" darktable:multi_priority="0"
              darktable:blendop_version="\(row[3])" darktable:blendop_params="\(row[2].lowercased())"/>
            </rdf:Seq>
           </darktable:history>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>

        """
    }
    let on = workDir + "/dt-denoise-on.xmp", off = workDir + "/dt-denoise-off.xmp"
    try xmp(enabled: true).write(toFile: on, atomically: true, encoding: .utf8)
    try xmp(enabled: false).write(toFile: off, atomically: true, encoding: .utf8)
    return PeerDenoiser(name: "darktable-cli", setting: "denoise (profiled), wavelets, its defaults") { dng, tiff, denoise in
        try? FileManager.default.removeItem(atPath: tiff)
        try runTool(["darktable-cli", dng, denoise ? on : off, tiff] + common)
    }
}

func hexBytes(_ s: String) -> [UInt8]? {
    let chars = Array(s.utf8)
    guard chars.count % 2 == 0 else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(chars.count / 2)
    for i in stride(from: 0, to: chars.count, by: 2) {
        guard let b = UInt8(String(decoding: chars[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
        out.append(b)
    }
    return out
}

/// The peers' tables: per set, per noise level, mean PSNR / SSIM of each peer's render with its
/// denoiser off and on against its own render of the noise-free raw. Skipped peers say why.
func peerTables(sets: [(String, [TestImage])], levels: [(name: String, S: Double, O: Double)], markdown: Bool,
                raw: (TestImage, Double, Double, [Double]?) throws -> RawImage) {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("bench-quality-peers-\(getpid())").path
    try? FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: work) }
    guard let first = sets.first?.1.first else { return }
    var peers: [PeerDenoiser] = []
    do {
        let dng = work + "/first.dng"
        try DNGWriter.write(try raw(first, 0, 0, nil), to: dng)
        for (tool, make) in [("rawtherapee-cli", { try rawTherapeePeer(workDir: work) }),
                             ("darktable-cli", { try darktablePeer(workDir: work, firstDNG: dng) })] as [(String, () throws -> PeerDenoiser?)] {
            do {
                if let p = try make() { peers.append(p) } else { print("\n\(tool): not installed (make bench-peers installs it); no row") }
            } catch { print("\n\(tool): \(error); no row") }
        }
    } catch { print("\npeers: cannot write the DNGs (\(error)); no rows"); return }
    func f(_ v: Double, _ d: Int = 2) -> String { String(format: "%.\(d)f", v) }
    func read(_ path: String) throws -> (w: Int, h: Int, px: [UInt16]) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let t = try OutputInspector.decodeRGB16(bytes)
        return (t.width, t.height, t.pixels)
    }
    for peer in peers {
        for (title, images) in sets {
            var sums = [[Double]](repeating: [0, 0, 0, 0], count: levels.count)
            var done = 0
            do {
                for img in images {
                    let cleanDNG = work + "/clean.dng"
                    try DNGWriter.write(try raw(img, 0, 0, nil), to: cleanDNG)
                    try peer.develop(cleanDNG, work + "/clean.tif", false)
                    let clean = try read(work + "/clean.tif")
                    for (k, level) in levels.enumerated() {
                        let dng = work + "/noisy.dng"
                        try DNGWriter.write(try raw(img, level.S, level.O, [level.S, level.O]), to: dng)
                        try peer.develop(dng, work + "/off.tif", false)
                        try peer.develop(dng, work + "/on.tif", true)
                        let off = try read(work + "/off.tif"), on = try read(work + "/on.tif")
                        guard off.w == clean.w, off.h == clean.h, on.w == clean.w, on.h == clean.h else {
                            throw PeerFailure(description: "\(img.name): renders of different sizes")
                        }
                        sums[k][0] += psnr(off.px, clean.px, clean.w, clean.h)
                        sums[k][1] += psnr(on.px, clean.px, clean.w, clean.h)
                        sums[k][2] += ssim(off.px, clean.px, clean.w, clean.h)
                        sums[k][3] += ssim(on.px, clean.px, clean.w, clean.h)
                    }
                    done += 1
                    FileHandle.standardError.write(Data("\(peer.name) \(img.name) done\n".utf8))
                }
            } catch { print("\n\(peer.name) on \(title): \(error); no row"); continue }
            let n = Double(done)
            print(markdown ? "\n### \(peer.name): \(peer.setting), \(title), \(done) images (mean)\n"
                           : "\n\(peer.name): \(peer.setting), \(title), \(done) images (mean)")
            print("| noise (σ at mid-grey) | PSNR off | PSNR on | gain | SSIM off | SSIM on |")
            print("|---|---|---|---|---|---|")
            for (k, level) in levels.enumerated() {
                let s = sums[k].map { $0 / n }
                let sigma = (level.S * 0.18 + level.O).squareRoot()
                print("| \(level.name) (\(f(sigma, 4))) | \(f(s[0])) dB | \(f(s[1])) dB | \(s[1] - s[0] >= 0 ? "+" : "")\(f(s[1] - s[0])) dB | \(f(s[2], 4)) | \(f(s[3], 4)) |")
            }
        }
    }
}
