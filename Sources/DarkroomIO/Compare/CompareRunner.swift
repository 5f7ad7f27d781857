import DarkroomCore
import Foundation

/// `darkroom compare`: renders chart files through camera profiles on the DNG colour path and
/// compares the patches with reference colours.
///
/// Per file × illuminant × profile:
/// 1. plan: the file's metadata with the profile (`DevelopPlan`, `--tone linear`, no look), white
///    balance as shot or at the illuminant's chromaticity (`CompareIlluminant.whiteBalance`);
/// 2. balanced camera RGB of the whole image (`TileRenderer.cameraRGB`: the render's own stages
///    1–5 in Float) and robust patch means inside the chart (`PatchSampler`);
/// 3. each mean through the plan's colour stages: balanced camera → linear ProPhoto (exposure
///    included, `plan.cameraToProPhoto`) → [HueSatMap → LookTable, `ProfileRenderTables`] → XYZ
///    D50. The tables are applied to the patch mean (for a flat patch the same as the mean of the
///    rendered pixels); the stages are reported cumulatively (`matrix`, `hue-sat-map`, `look-table`);
/// 4. normalisation (`CompareNormalisation`), CIELAB D50, `ColorDifference` against the reference
///    (`ChartReference.xyzD50`, computed under the illuminant's spectrum; for `as-shot` the
///    spectrum at the white the file's own profile gives its AsShotNeutral, the same for every
///    profile so they are compared against the same numbers).
/// The chart is located once per file (the first profile's render) and reused.
public enum CompareRunner {
    /// Runs the comparison; nothing is written. A file or a profile that fails (undecodable,
    /// no chart, colours that overflow to a non-finite value) is left out with one line in
    /// `failures` and the rest is measured; throws (the first failure) only when nothing could be.
    /// Camera profiles are read and checked before any file (a bad one is a usage error).
    public static func run(_ options: CompareOptions, reference: ChartReference) throws(CompareError) -> CompareReport {
        var runs: [CompareReport.Run] = []
        var failures: [CompareError] = []
        let layout = ChartLayout.colorChecker24
        var profiles: [(name: String, source: String, profile: CameraProfile?)] = []
        for p in options.profiles {
            if p.lowercased() == "embedded" { profiles.append(("embedded", "embedded", nil)); continue }
            do {
                let dcp = try ProfileLibrary.readDCP(path: p)
                guard dcp.profile.colorMatrix1 != nil || dcp.profile.colorMatrix2 != nil else {
                    throw CompareError.profile(path: p, reason: "the profile has no ColorMatrix1/2 (a look-only profile cannot render)")
                }
                profiles.append((dcp.profile.name ?? p, p, dcp.profile))
            } catch let e as CompareError { throw e } catch let e as ProfileLibraryError { throw .option(e.description) } catch {
                throw .option("\(p): \(error)")
            }
        }
        for file in options.files {
            let raw: RawImage
            var decode = DecodeOptions()
            decode.threads = options.threads
            do { raw = try RawDecoder.decode(path: file, options: decode) } catch { failures.append(.named(error.description)); continue }
            let ownWhite: Chromaticity
            if let model = try? DNGColorModel(metadata: raw.metadata) { ownWhite = model.solve(.asShot).whiteXY } else { ownWhite = ColorMath.d65 }
            var corners: [SIMD2<Double>]?
            var found = false
            if case .corners(let c) = options.chart { corners = c }
            for illuminant in options.illuminants {
                let spectrum = illuminant.spectrum(asShotWhite: ownWhite)
                let referenceXYZ = reference.xyzD50(illuminant: spectrum)
                for profile in profiles {
                  do throws(CompareError) {
                    var recipe = DevelopRecipe()
                    recipe.tone = .linear
                    recipe.colorSpace = .prophotoLinear
                    recipe.bitsPerSample = 16
                    recipe.whiteBalance = options.measurementWhiteBalance ?? illuminant.whiteBalance(spectrum: spectrum)
                    recipe.threads = options.threads
                    recipe.demosaic = options.demosaic
                    recipe.thumbnailSize = 0
                    let plan: DevelopPlan
                    do {
                        plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height,
                                               samplesPerPixel: raw.samplesPerPixel, recipe: recipe,
                                               opcodes: ParsedOpcodeLists(raw.metadata), profile: profile.profile, raw: raw)
                    } catch { throw .file(path: file, reason: "profile \(profile.name): \(error.description)") }
                    let image = TileRenderer.cameraRGB(raw, plan: plan)
                    if corners == nil {
                        do {
                            corners = try ChartFinder.find(image, layout: layout, reference: referenceXYZ).corners
                            found = true
                        } catch {
                            throw .chart(path: file, reason: error.description)
                        }
                    }
                    guard let corners else { throw .chart(path: file, reason: "no chart corners") }
                    let samples: [PatchSampler.Sample]
                    do { samples = try PatchSampler.sample(image, corners: corners, layout: layout) } catch {
                        throw .chart(path: file, reason: error.description)
                    }
                    runs.append(try measure(file: file, illuminant: illuminant, spectrum: spectrum, profile: profile,
                                            plan: plan, samples: samples, referenceXYZ: referenceXYZ, reference: reference,
                                            corners: corners, found: found, normalisation: options.normalisation))
                  } catch {
                    // Once per cause: the same chart failure under every profile is one line.
                    if !failures.contains(error) { failures.append(error) }
                  }
                }
            }
        }
        if runs.isEmpty, let first = failures.first { throw first }
        var report = CompareReport(tool: "Darkroom \(DarkroomVersion.string)", reference: reference.name,
                                   normalisation: options.normalisation.rawValue, runs: runs, ranking: ranking(runs))
        report.failures = failures.isEmpty ? nil : failures.map(\.description)
        return report
    }

    /// The colour stages and differences for one run (see the type's steps 3–4).
    static func measure(file: String, illuminant: CompareIlluminant, spectrum: SampledSpectrum,
                        profile: (name: String, source: String, profile: CameraProfile?), plan: DevelopPlan,
                        samples: [PatchSampler.Sample], referenceXYZ: [SIMD3<Double>], reference: ChartReference,
                        corners: [SIMD2<Double>], found: Bool, normalisation: CompareNormalisation) throws(CompareError) -> CompareReport.Run {
        let toProPhoto = plan.cameraToProPhoto
        let proPhotoToXYZ = OutputColorSpace.prophotoLinear.linearRGBToXYZD50
        let gains = SIMD3<Double>(Double(plan.whiteBalanceGains.x), Double(plan.whiteBalanceGains.y), Double(plan.whiteBalanceGains.z))
        let proPhoto = samples.map { toProPhoto * $0.mean }
        var stages: [(String, [SIMD3<Double>])] = [("matrix", proPhoto.map { proPhotoToXYZ * $0 })]
        var current = proPhoto
        func through(_ table: ProfileRenderTables.Table, _ name: String) {
            current = current.map { p in
                let v = table.apply(SIMD3<Float>(Float(p.x), Float(p.y), Float(p.z)))
                return SIMD3(Double(v.x), Double(v.y), Double(v.z))
            }
            stages.append((name, current.map { proPhotoToXYZ * $0 }))
        }
        if let t = plan.profileTables?.hueSatMap { through(t, "hue-sat-map") }
        if let t = plan.profileTables?.lookTable { through(t, "look-table") }
        // Finite inputs can still overflow (a damaged profile's 1e300 matrix or table entry):
        // every measured colour must be a number before it is compared, rounded or reported.
        for (name, measured) in stages {
            if let i = measured.firstIndex(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
                throw .profile(path: profile.source, reason: "profile \(profile.name) gives patch \(reference.ids[i]) a non-finite colour at stage \(name) (a value overflows)")
            }
        }
        let clipped = samples.map { $0.clippedFraction > 0 }
        let outStages = stages.map { name, measured in
            stage(name, measured: measured, reference: referenceXYZ, clipped: clipped, samples: samples, gains: gains,
                  ids: reference.ids, names: reference.names, normalisation: normalisation)
        }
        let c = plan.color
        let r6 = CompareReport.r6
        let illuminantXY = Spectral.chromaticity(spectrum)
        return CompareReport.Run(
            file: file, illuminant: illuminant.description, illuminantXY: [r6(illuminantXY.x), r6(illuminantXY.y)],
            profile: profile.name == "embedded" ? (plan.profile?.name ?? "embedded") : profile.name,
            profileSource: profile.source,
            whiteXY: [r6(c.whiteXY.x), r6(c.whiteXY.y)], kelvin: r6(c.temperatureKelvin), tint: r6(c.tint), weight1: r6(c.weight1),
            cameraNeutral: [r6(c.cameraNeutral.x), r6(c.cameraNeutral.y), r6(c.cameraNeutral.z)],
            exposureStops: r6(plan.exposureStops), chartCorners: corners.map { [r6($0.x), r6($0.y)] }, chartFound: found,
            stages: outStages, warnings: plan.warnings)
    }

    /// The normalisation factor for measured XYZ `m` against reference `r` (see `CompareNormalisation`).
    public static func scale(_ mode: CompareNormalisation, measured m: [SIMD3<Double>], reference r: [SIMD3<Double>],
                             clipped: [Bool], whitePatch: Int = 18) -> Double {
        switch mode {
        case .none: return 1
        case .white:
            guard whitePatch < m.count, m[whitePatch].y > 0 else { return 1 }
            return r[whitePatch].y / m[whitePatch].y
        case .scale:
            var num = 0.0, den = 0.0
            for i in m.indices where !clipped[i] { num += (m[i] * r[i]).sum(); den += (m[i] * m[i]).sum() }
            return den > 0 ? num / den : 1
        }
    }

    static func stage(_ name: String, measured: [SIMD3<Double>], reference: [SIMD3<Double>], clipped: [Bool],
                      samples: [PatchSampler.Sample], gains: SIMD3<Double>, ids: [String], names: [String],
                      normalisation: CompareNormalisation) -> CompareReport.Stage {
        let k = scale(normalisation, measured: measured, reference: reference, clipped: clipped)
        let r6 = CompareReport.r6
        func v(_ x: SIMD3<Double>) -> [Double] { [r6(x.x), r6(x.y), r6(x.z)] }
        var patches: [CompareReport.Patch] = []
        for i in measured.indices {
            let m = k * measured[i]
            let labR = ColorMath.xyzToLab(reference[i]), labM = ColorMath.xyzToLab(m)
            let d = ColorDifference(reference: labR, sample: labM)
            patches.append(CompareReport.Patch(
                id: ids[i], name: names[i], cameraRGB: v(samples[i].mean / gains), cameraSigma: v(samples[i].sigma / gains),
                pixels: samples[i].pixelCount, keptPixels: samples[i].keptCount, clipped: clipped[i],
                referenceXYZ: v(reference[i]), measuredXYZ: v(m), referenceLab: v(labR), measuredLab: v(labM),
                referenceSRGB: srgbHex(reference[i]), measuredSRGB: srgbHex(m),
                deltaE2000: r6(d.deltaE2000), deltaL: r6(d.deltaL), deltaC: r6(d.deltaC), deltaH: r6(d.deltaH),
                deltaE76: r6(d.deltaE76), deltaE94: r6(d.deltaE94)))
        }
        let s = DifferenceSummary(patches.map(\.deltaE2000))
        return CompareReport.Stage(stage: name, scale: r6(k),
                                   summary: .init(mean: r6(s.mean), median: r6(s.median), p90: r6(s.p90), max: r6(s.max),
                                                  worst: s.worst.map { ids[$0] }),
                                   patches: patches)
    }

    /// XYZ D50 → 8-bit sRGB hex ("rrggbb"), each channel clipped to 0…1.
    public static func srgbHex(_ xyz: SIMD3<Double>) -> String {
        let rgb = OutputColorSpace.srgb.xyzD50ToLinearRGB * xyz
        // NaN compares false both ways, so min/max would pass it on; a NaN channel is black.
        func byte(_ v: Double) -> Int { v.isFinite ? Int((TransferFunction.srgb.encode(min(max(v, 0), 1)) * 255).rounded()) : (v > 0 ? 255 : 0) }
        return String(format: "%02x%02x%02x", byte(rgb.x), byte(rgb.y), byte(rgb.z))
    }

    /// Profiles ranked per illuminant by the final stage's mean ΔE2000 over all files' patches.
    static func ranking(_ runs: [CompareReport.Run]) -> [CompareReport.Rank] {
        struct Row { var illuminant: String; var profile: String; var source: String; var values: [Double] }
        var rows: [Row] = []
        for run in runs {
            let values = run.stages.last?.patches.map(\.deltaE2000) ?? []
            if let i = rows.firstIndex(where: { $0.illuminant == run.illuminant && $0.profile == run.profile && $0.source == run.profileSource }) {
                rows[i].values += values
            } else {
                rows.append(Row(illuminant: run.illuminant, profile: run.profile, source: run.profileSource, values: values))
            }
        }
        var illuminants: [String] = []
        for r in rows where !illuminants.contains(r.illuminant) { illuminants.append(r.illuminant) }
        let r6 = CompareReport.r6
        var out: [CompareReport.Rank] = []
        for illuminant in illuminants {
            let ranked: [(row: Row, summary: DifferenceSummary)] = rows.filter { $0.illuminant == illuminant }
                .map { ($0, DifferenceSummary($0.values)) }
                .sorted { a, b in a.summary.mean != b.summary.mean ? a.summary.mean < b.summary.mean : a.row.profile < b.row.profile }
            for (n, e) in ranked.enumerated() {
                let s = e.summary
                out.append(CompareReport.Rank(rank: n + 1, profile: e.row.profile, illuminant: illuminant, patches: e.row.values.count,
                                              mean: r6(s.mean), median: r6(s.median), p90: r6(s.p90), max: r6(s.max)))
            }
        }
        return out
    }
}
