import Testing
import DarkroomTestSupport
import Foundation
import DarkroomCore
@testable import DarkroomFormats
@testable import DarkroomIO

/// Every file of `../shared/samples/cameras` and `../shared/samples/raw` (none when absent)
/// against LibRaw's own processing, `dcraw_emu` from Debian's libraw-bin (skipped when absent):
/// one recognition (what develops also converts, or is refused with its reason), the same output
/// size and orientation, the same white-balance multipliers, and colour within a mean CIEDE2000
/// bound of LibRaw's linear sRGB render at the same multipliers.
///
/// The comparison is made where the two pipelines are meant to agree: LibRaw's half-size render
/// (`-h`: one RGB pixel per 2×2 cell, no demosaic) and ours with bilinear demosaic, both averaged
/// to cells of about 8×8 output pixels (demosaic and sharpening differences average out), linear
/// sRGB, highlights clipped, no tone curve, noise reduction, sharpening or lens corrections, and
/// our render scaled by one factor to LibRaw's brightness (exposure conventions — BaselineExposure,
/// LibRaw's scaling of the smallest multiplier to white — are not colour). Cells where either
/// render clips are left out.
@Suite(.serialized) struct CameraReferenceTests {
    /// Mean ΔE2000 bound. For the same matrix LibRaw's path (one D65 matrix or `rgb_cam`, sRGB)
    /// and ours (the DNG colour model: the matrix normalised by the white it maps, Bradford to D50
    /// and back to sRGB's D65) give the same colour; what is left is black and white handling,
    /// rounding and averaging different sample sites (2×2 superpixels vs interpolated pixels)
    /// over few samples per cell. Measured 2026-12-07: 0.0–0.7 on the files of 1 MP and more,
    /// 1.85–2.61 on the QuickTake 100 (0.08–0.3 MP, 8-bit) and Kodak DC50 (0.4 MP) files, whose
    /// cells hold 16–64 noisy samples. A wrong matrix is well above 3: 5.4–6.4 on the DC50 files
    /// with camera RGB treated as sRGB (this suite before `rgb_cam` was used).
    static let meanDeltaEBound = 3.0

    /// Files where our colour departs from LibRaw's for a stated reason, with that reason.
    static let departures: [String: String] = [:]

    /// Files whose white balance is not LibRaw's camera white balance (`dcraw_emu -w`), with the
    /// reason. Their colour is compared at our multipliers (`dcraw_emu -r`).
    static let whiteBalanceDepartures: [String: String] = [
        "KDE_RAW_KODAK_C330_FORMAT_NONE_YRGB.raw": "no white balance in the file: ours is the grey-world estimate, LibRaw applies 1 1 1",
        "colinleroy_GILLESCHR.QTK": "no as-shot multipliers (LibRaw cam_mul 0 1 0): ours are LibRaw's daylight pre_mul, dcraw_emu -w does not use them",
        "colinleroy_TEST100.QTK": "no as-shot multipliers (LibRaw cam_mul 0 1 0): ours are LibRaw's daylight pre_mul, dcraw_emu -w does not use them",
        "evanoberholster_imagemeta_CRW.CRW": "no as-shot multipliers (LibRaw cam_mul[0] = -1): ours are LibRaw's daylight pre_mul, dcraw_emu -w then uses its grey-world estimate",
        "boostgil_RAW_CANON_D30_SRGB.CRW": "no as-shot multipliers (LibRaw cam_mul[0] = -1): ours are LibRaw's daylight pre_mul, dcraw_emu -w then uses its grey-world estimate",
    ]

    static var files: [String] {
        (TestSupport.files(in: "cameras") + TestSupport.files(in: "raw")).map(\.path)
    }

    static let dcrawEmu = TestSupport.tool("/usr/bin/dcraw_emu", "/usr/local/bin/dcraw_emu")

    /// A binary PPM (P6, 16-bit big-endian) as linear RGB in 0…1.
    struct PPM {
        var width: Int, height: Int
        var rgb: [Double]
        init?(path: String) {
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            let b = [UInt8](data)
            var fields: [Int] = [], i = 2, token = ""
            guard b.count > 2, b[0] == 0x50, b[1] == 0x36 else { return nil }
            while fields.count < 3 && i < b.count {
                let c = b[i]; i += 1
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 {
                    if !token.isEmpty { fields.append(Int(token) ?? 0); token = "" }
                } else { token.append(Character(UnicodeScalar(c))) }
            }
            guard fields.count == 3, fields[2] == 65535 else { return nil }
            width = fields[0]; height = fields[1]
            let n = width * height * 3
            guard b.count - i >= n * 2 else { return nil }
            rgb = (0..<n).map { Double(UInt16(b[i + 2 * $0]) << 8 | UInt16(b[i + 2 * $0 + 1])) / 65535 }
        }
    }

    /// LibRaw's half-size linear sRGB render at user multipliers `mul` (R G B G), or with the
    /// camera's (`-w`) when nil.
    static func libRawRender(_ path: String, multipliers mul: [Double]?, dir: String) throws -> PPM? {
        guard let tool = dcrawEmu else { return nil }
        let out = dir + "/libraw-\(mul == nil ? "w" : "r").ppm"
        var args = ["-o", "1", "-4", "-h", "-H", "0", "-Z", out]
        if let mul { args = ["-r"] + mul.map { String(format: "%.6f", $0) } + args } else { args = ["-w"] + args }
        _ = try TestSupport.runTool(tool, args + [path])
        return PPM(path: out)
    }

    /// Our render: linear sRGB floats, bilinear demosaic, highlights clipped, nothing else.
    static func ourRender(_ image: RawImage, path: String) throws -> RenderedImage {
        var recipe = DevelopRecipe()
        recipe.colorSpace = .srgbLinear
        recipe.tone = .linear
        recipe.demosaic = .bilinear
        recipe.highlights = .clip
        recipe.gamut = .clip
        recipe.noiseReduction = .off
        recipe.sharpen = .off
        recipe.lensCorrection = .off
        recipe.applyDefaultCrop = false
        recipe.applyProfileLook = false
        recipe.bitsPerSample = 32
        recipe.dither = false
        let plan = try PlanBuilder.plan(for: image, recipe: recipe, path: path)
        return TileRenderer.render(image, plan: plan)
    }

    /// `rgb` (interleaved, `w×h`) averaged to `cw×ch` cells; a cell is nil when any of its
    /// pixels has a channel at or above `clip`.
    static func cells(_ rgb: [Double], w: Int, h: Int, cw: Int, ch: Int, clip: Double) -> [SIMD3<Double>?] {
        var sum = [SIMD3<Double>](repeating: .zero, count: cw * ch), n = [Int](repeating: 0, count: cw * ch)
        var clipped = [Bool](repeating: false, count: cw * ch)
        for y in 0..<h {
            let cy = y * ch / h
            for x in 0..<w {
                let c = cy * cw + x * cw / w, i = (y * w + x) * 3
                let p = SIMD3(rgb[i], rgb[i + 1], rgb[i + 2])
                if p.max() >= clip { clipped[c] = true }
                sum[c] += p; n[c] += 1
            }
        }
        return (0..<sum.count).map { clipped[$0] || n[$0] == 0 ? nil : sum[$0] / Double(n[$0]) }
    }

    static let srgbToXYZ = Matrix3([0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522, 0.0721750,
                                    0.0193339, 0.1191920, 0.9503041])

    /// Mean ΔE2000 (Lab, D65 white) between our cells scaled by one gain and LibRaw's, over
    /// the cells neither clips; the gain is the ratio of their summed luminance.
    static func meanDeltaE(ours: [SIMD3<Double>?], libRaw: [SIMD3<Double>?]) -> (mean: Double, cells: Int) {
        let pairs = zip(ours, libRaw).compactMap { a, b -> (SIMD3<Double>, SIMD3<Double>)? in
            guard let a, let b else { return nil }
            return (a, b)
        }
        guard !pairs.isEmpty else { return (0, 0) }
        let ya = pairs.reduce(0) { $0 + (srgbToXYZ * $1.0).y }, yb = pairs.reduce(0) { $0 + (srgbToXYZ * $1.1).y }
        let gain = ya > 1e-9 && yb > 1e-9 ? yb / ya : 1
        func lab(_ p: SIMD3<Double>) -> SIMD3<Double> {
            ColorMath.xyzToLab(srgbToXYZ * simd_clamp01(p), white: ColorMath.d65)
        }
        let total = pairs.reduce(0.0) { $0 + ColorMath.ciede2000(lab($1.0 * gain), lab($1.1)) }
        return (total / Double(pairs.count), pairs.count)
    }

    static func simd_clamp01(_ p: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(min(max(p.x, 0), 1), min(max(p.y, 0), 1), min(max(p.z, 0), 1))
    }

    /// The table row `make test` prints for each camera.
    static func row(_ name: String, _ cells: [String]) {
        print("camera | \(name) | " + cells.joined(separator: " | "))
    }

    @Test(arguments: files) func cameraFileAgreesWithLibRaw(path: String) throws {
        let name = (path as NSString).lastPathComponent
        let dir = TestSupport.tempDirectory("camera-\(name)")
        defer { TestSupport.cleanup(dir) }

        // One recognition: develop and convert accept the same files.
        var developed: RawImage?
        var developError: DecodeError?
        do throws(DecodeError) { developed = try RawDecoder.decode(path: path) } catch { developError = error }
        var convertOutcome = "converted"
        var convertError: DNGConvertError?
        do throws(DNGConvertError) {
            _ = try DNGConverter.convert(input: path, output: dir + "/out.dng", options: DNGConvertOptions())
        } catch { convertError = error }
        if let convertError {
            convertOutcome = "refused: \(convertError.description)"
            #expect(convertError.description.contains(name), "\(name): the refusal names the file")
            // A refusal is only for a file develop refuses too, or where a DNG cannot hold the
            // values exactly (lossy data in).
            if developed != nil {
                if case .unsupported(_, let reason) = convertError {
                    #expect(reason.contains("lossy"), "\(name): develops but convert refuses: \(reason)")
                } else {
                    Issue.record("\(name): develops but convert fails: \(convertError)")
                }
            }
        } else if let developed {
            // The DNG holds what develop decodes: our decode of it gives the same samples.
            let back = try RawDecoder.decode(path: dir + "/out.dng")
            #expect(back.width == developed.width && back.height == developed.height, "\(name)")
            #expect(back.samplesPerPixel == developed.samplesPerPixel, "\(name)")
            #expect(back.pixels == developed.pixels, "\(name): the converted DNG decodes to other values")
            // The matrix (as signed rationals) is the one develop uses.
            let written = back.metadata.profile?.colorMatrix1?.m ?? [], used = developed.metadata.profile?.colorMatrix1?.m ?? []
            #expect(written.count == 9 && used.count == 9 && zip(written, used).allSatisfy { abs($0 - $1) < 1e-4 },
                    "\(name): ColorMatrix1 \(written) written, \(used) used")
        } else {
            Issue.record("\(name): converts but develop refuses: \(developError?.description ?? "")")
        }
        guard let developed else {
            // Refused by develop: then by LibRaw too (not a file LibRaw reads that we drop).
            let reason = developError?.description ?? ""
            if let identify = TestSupport.tool("/usr/bin/raw-identify", "/usr/local/bin/raw-identify") {
                let libRaw = try TestSupport.runTool(identify, [path])
                let libRawReads = !(libRaw.stdout + libRaw.stderr).contains("Cannot decode")
                #expect(!libRawReads || reason.contains("four-colour"), "\(name): LibRaw reads it but develop refuses: \(reason)")
            }
            Self.row(name, ["-", "refused: \(reason)", convertOutcome])
            return
        }
        let md = developed.metadata
        let model = [md.exif.make, md.exif.model].compactMap { $0 }.joined(separator: " ")
        guard Self.dcrawEmu != nil else { return }
        guard let camera = try Self.libRawRender(path, multipliers: nil, dir: dir) else {
            // LibRaw 0.20 cannot read it (JPEG XL DNG): nothing to compare with.
            Self.row(name, [model, "developed", convertOutcome, "LibRaw 0.20 cannot decode it: no colour check"])
            return
        }
        // Our white balance as LibRaw multipliers (R G B G): 1 / AsShotNeutral.
        let neutral = try #require(md.asShotNeutral)
        let mul = [1 / neutral[0], 1 / neutral[1], 1 / neutral[2], 1 / neutral[1]]
        let atOurs = try #require(try Self.libRawRender(path, multipliers: mul, dir: dir))

        // Same size and orientation: LibRaw's half-size image is half ours (C330's is not halved:
        // a non-mosaic raw has no 2×2 cells).
        let rendered = try Self.ourRender(developed, path: path)
        let scale = developed.samplesPerPixel == 1 ? 2 : 1
        #expect(abs(rendered.width - scale * camera.width) <= 1 && abs(rendered.height - scale * camera.height) <= 1,
                "\(name): ours \(rendered.width)x\(rendered.height), LibRaw \(camera.width)x\(camera.height) at 1/\(scale)")

        // Same white balance: LibRaw's camera multipliers give the same colour ratios as ours.
        let cw = max(1, camera.width / 4), ch = max(1, camera.height / 4)
        let a = Self.cells(camera.rgb, w: camera.width, h: camera.height, cw: cw, ch: ch, clip: 0.98)
        let b = Self.cells(atOurs.rgb, w: atOurs.width, h: atOurs.height, cw: cw, ch: ch, clip: 0.98)
        let wb = Self.meanDeltaE(ours: b, libRaw: a)
        let sameWB = wb.mean < 0.05
        if Self.whiteBalanceDepartures[name] == nil {
            #expect(sameWB, "\(name): our multipliers \(mul) give ΔE2000 \(wb.mean) against LibRaw's camera white balance")
        }

        // Colour: ours against LibRaw's at our multipliers.
        let ours32 = rendered.pixels32.map(Double.init)
        let o = Self.cells(ours32, w: rendered.width, h: rendered.height, cw: cw, ch: ch, clip: 0.98)
        let l = Self.cells(atOurs.rgb, w: atOurs.width, h: atOurs.height, cw: cw, ch: ch, clip: 0.98)
        let colour = Self.meanDeltaE(ours: o, libRaw: l)
        let reason = Self.departures[name]
        if reason == nil {
            #expect(colour.mean <= Self.meanDeltaEBound, "\(name): mean ΔE2000 \(colour.mean) against LibRaw over \(colour.cells) cells")
        }
        Self.row(name, [model, "developed (\(md.profile?.name ?? "no profile"))", convertOutcome,
                        "size \(rendered.width)x\(rendered.height) (LibRaw \(camera.width)x\(camera.height) at 1/\(scale)), "
                            + "WB \(sameWB ? "=" : "≠") LibRaw's camera WB (ΔE \(String(format: "%.2f", wb.mean))), "
                            + "mean ΔE2000 \(String(format: "%.2f", colour.mean)) over \(colour.cells) cells"
                            + (reason.map { " (departure: \($0))" } ?? "")])
    }
}
