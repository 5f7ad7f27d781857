import DarkroomCore
import DarkroomIO
import Foundation
import Testing

/// `--tone reference` against the Adobe DNG SDK 1.7.1's own renders of the same files
/// (`../shared/reference/dngsdk/NAME.srgb.tif` = `dng_validate -16 -cs1 -tif`, `NAME.p3.tif` =
/// `-csP3`; see that folder's README). Both images are read with libtiff (`OutputInspector`),
/// decoded to linear light with the sRGB curve, box-averaged over 4×4 blocks (so demosaic
/// differences do not count), taken to XYZ D50 with the space's matrix and to CIE Lab (D50),
/// and compared with CIEDE2000: mean and 99th percentile per file.
///
/// Darkroom renders with its defaults otherwise (DefaultCrop, opcodes, orientation; no profile
/// library: the file's own profile, as the SDK uses), except the demosaic: the asserted figures use
/// `--demosaic bilinear`, the interpolation closest to the SDK's own, because the synthetic
/// charts' razor-sharp patch edges keep demosaic differences alive even after the 4×4 average
/// (with the default demosaic their p99 is ~21 ΔE at the edges while patch interiors agree
/// within ~20 codes of 65535). The figures with the default demosaic are printed beside them. Files whose decode is `unsupported` (JPEG XL,
/// floating point — other work) are listed and skipped. The whole suite skips when
/// `../shared/reference/dngsdk` is absent. `REFERENCE_LOOK_BASELINE=1` also measures the
/// `standard` tone (today's default) for the before/after table.
@Suite("Reference look vs DNG SDK", .serialized)
struct ReferenceLookTests {
    static var referenceDir: URL? {
        let u = TestSupport.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/reference/dngsdk")
        return FileManager.default.fileExists(atPath: u.path) ? u : nil
    }

    /// Reference renders with a DNG we can find: `Samples/NAME.dng` or `../shared/samples/dng/NAME.dng`.
    static func cases() -> [(name: String, dng: URL)] {
        guard let dir = referenceDir else { return [] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [])
            .filter { $0.hasSuffix(".srgb.tif") }.map { String($0.dropLast(".srgb.tif".count)) }.sorted()
        var out: [(String, URL)] = []
        for n in names {
            let local = TestSupport.packageRoot.appendingPathComponent("Samples/\(n).dng")
            if FileManager.default.fileExists(atPath: local.path) { out.append((n, local)); continue }
            if let shared = TestSupport.sharedSamples?.appendingPathComponent("dng/\(n).dng"),
               FileManager.default.fileExists(atPath: shared.path) { out.append((n, shared)) }
        }
        return out
    }

    /// Allowed (mean, p99) ΔE2000 per file where the target (0.5, 2.0) is not reached yet; each
    /// names the gap. Keys are "NAME space".
    static let allowances: [String: (mean: Double, p99: Double, why: String)] = {
        // The SDK applies these files' ProfileGainTableMap2 (a local gain by position and
        // brightness); Darkroom does not read that tag yet, so only the global look matches.
        let pgtm = (mean: 11.0, p99: 29.0, why: "(ProfileGainTableMap not applied yet)")
        return ["adobesdk_05_PGTM2_unsigned8 srgb": pgtm, "adobesdk_05_PGTM2_unsigned8 p3": pgtm,
                "adobesdk_07_PGTM2_float16 srgb": pgtm, "adobesdk_07_PGTM2_float16 p3": pgtm]
    }()

    struct Image { var width: Int; var height: Int; var pixels: [UInt16] }

    enum Outcome { case image(Image), skipped(String) }

    static func render(_ dng: URL, space: OutputColorSpace, tone: ToneCurve.Mode,
                       demosaic: DemosaicAlgorithm = .bilinear) throws -> Outcome {
        let raw: RawImage
        do { raw = try RawDecoder.decode(path: dng.path) } catch {
            if case .unsupported(_, let reason) = error { return .skipped(reason) }
            throw error
        }
        var recipe = DevelopRecipe()
        recipe.tone = tone
        recipe.demosaic = demosaic
        recipe.colorSpace = space
        recipe.bitsPerSample = 16
        recipe.thumbnailSize = 0
        let plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: dng.path, profileSearchDirectories: [])
        let img = Developer.render(raw, plan: plan)
        return .image(Image(width: img.width, height: img.height, pixels: img.pixels16))
    }

    static func readSDK(_ url: URL) throws -> Image {
        let bytes = [UInt8](try Data(contentsOf: url))
        let t = try OutputInspector.decodeRGB16(bytes)
        return Image(width: t.width, height: t.height, pixels: t.pixels)
    }

    /// 4×4 box average in linear light → Lab D50, one entry per whole block.
    static func blockLab(_ img: Image, space: OutputColorSpace) -> [SIMD3<Double>] {
        let toXYZ = space.linearVariant.linearRGBToXYZD50
        let decode = (0...65535).map { space.transfer.decode(Double($0) / 65535) }
        let bw = img.width / 4, bh = img.height / 4
        var out: [SIMD3<Double>] = []
        out.reserveCapacity(bw * bh)
        for by in 0..<bh {
            for bx in 0..<bw {
                var s = SIMD3<Double>(0, 0, 0)
                for y in (by * 4)..<(by * 4 + 4) {
                    for x in (bx * 4)..<(bx * 4 + 4) {
                        let i = (y * img.width + x) * 3
                        s += SIMD3(decode[Int(img.pixels[i])], decode[Int(img.pixels[i + 1])], decode[Int(img.pixels[i + 2])])
                    }
                }
                out.append(ColorMath.xyzToLab(toXYZ * (s / 16)))
            }
        }
        return out
    }

    /// (mean, 99th percentile) CIEDE2000 between two same-size images.
    static func deltaE(_ a: Image, _ b: Image, space: OutputColorSpace) -> (mean: Double, p99: Double) {
        let la = blockLab(a, space: space), lb = blockLab(b, space: space)
        var d = zip(la, lb).map { ColorMath.ciede2000($0, $1) }
        d.sort()
        let mean = d.reduce(0, +) / Double(max(d.count, 1))
        let p99 = d.isEmpty ? 0 : d[min(d.count - 1, Int((Double(d.count) * 0.99).rounded(.down)))]
        return (mean, p99)
    }

    @Test func rendersMatchTheDNGSDK() throws {
        guard let dir = Self.referenceDir else { return }
        let baseline = ProcessInfo.processInfo.environment["REFERENCE_LOOK_BASELINE"] == "1"
        var table = ["file | space | reference mean / p99 (bilinear) | reference mean / p99 (default demosaic)"
                     + (baseline ? " | standard mean / p99 (default demosaic)" : "")]
        var compared = 0
        for c in Self.cases() {
            for (space, suffix) in [(OutputColorSpace.srgb, "srgb"), (.p3, "p3")] {
                let sdkURL = dir.appendingPathComponent("\(c.name).\(suffix).tif")
                guard FileManager.default.fileExists(atPath: sdkURL.path) else { continue }
                let sdk = try Self.readSDK(sdkURL)
                let ours: Image
                switch try Self.render(c.dng, space: space, tone: .reference) {
                case .image(let i): ours = i
                case .skipped(let why):
                    table.append("\(c.name) | \(suffix) | skipped (decode unsupported): \(why)")
                    continue
                }
                #expect(ours.width == sdk.width && ours.height == sdk.height, "\(c.name) \(suffix): size \(ours.width)x\(ours.height), SDK \(sdk.width)x\(sdk.height)")
                guard ours.width == sdk.width, ours.height == sdk.height else { continue }
                let e = Self.deltaE(ours, sdk, space: space)
                func fmt(_ e: (mean: Double, p99: Double)) -> String { String(format: "%.2f / %.2f", e.mean, e.p99) }
                var row = "\(c.name) | \(suffix) | \(fmt(e))"
                if case .image(let d) = try Self.render(c.dng, space: space, tone: .reference, demosaic: .default) {
                    row += " | \(fmt(Self.deltaE(d, sdk, space: space)))"
                }
                if baseline, case .image(let std) = try Self.render(c.dng, space: space, tone: .standard, demosaic: .default) {
                    row += " | \(fmt(Self.deltaE(std, sdk, space: space)))"
                }
                table.append(row)
                compared += 1
                let limit = Self.allowances["\(c.name) \(suffix)"] ?? (0.5, 2.0, "")
                #expect(e.mean <= limit.mean, "\(c.name) \(suffix): mean ΔE2000 \(e.mean) > \(limit.mean) \(limit.why)")
                #expect(e.p99 <= limit.p99, "\(c.name) \(suffix): p99 ΔE2000 \(e.p99) > \(limit.p99) \(limit.why)")
            }
        }
        print(table.joined(separator: "\n"))
        #expect(compared > 0)
    }
}
