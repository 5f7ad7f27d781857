import DarkroomCore
import Foundation

/// Everything `darkroom profile fit` is asked to do.
public struct ProfileFitOptions: Sendable {
    public var files: [String]
    /// One scene illuminant for every file, or one per file in order (default: as shot).
    public var illuminants: [CompareIlluminant] = [.asShot]
    /// `colorchecker24` or a CGATS reference file (as `compare --reference`).
    public var reference = "colorchecker24"
    public var chart: ChartLocation = .auto
    /// The `.dcp` to write; the fit report goes next to it (`NAME.fit.json`, `NAME.fit.txt`).
    public var outputPath: String
    /// ProfileName (default "Darkroom fit, MODEL").
    public var profileName: String?
    public var overwrite = false
    /// Render threads (0 = one per core): changes speed, never a byte of the output.
    public var threads = 0
    /// False: stop at the white-preserving least-squares matrices (no ΔE2000 refinement).
    public var refine = true
    /// False: ColorMatrix1/2 only, no ForwardMatrix (`--no-forward-matrix`; `ProfileMatrixFit`).
    public var forwardMatrix = true
    /// Also fit ProfileHueSatMapData1/2 (`--hue-sat-map`; `HueSatMapFit`).
    public var hueSatMap = false

    public init(files: [String], outputPath: String) { self.files = files; self.outputPath = outputPath }

    /// The report paths for `outputPath`: its extension replaced by `.fit.json` and `.fit.txt`.
    public var reportPaths: (json: String, text: String) {
        let base = (outputPath as NSString).deletingPathExtension
        return (base + ".fit.json", base + ".fit.txt")
    }
}

/// `darkroom profile fit`: a DNG camera profile (ColorMatrix1/2, ForwardMatrix1/2) fitted to chart
/// shots under one or two illuminants, and a report of the fit.
///
/// 1. Each file is measured as `compare` measures it (`CompareRunner`: the chart found through the
///    file's own profile, robust patch means; unbalanced, so nothing clips that the raw did not) —
///    camera-native RGB per patch, and the
///    reference XYZ D50 under the file's illuminant (spectral references are integrated under its
///    spectrum and Bradford-adapted, exactly as compare's evaluation does).
/// 2. Each file's camera RGB is divided by its own exposure (`ProfileMatrixFit.neutralAndExposure`)
///    so several shots under one illuminant pool into one fit.
/// 3. Files are grouped by illuminant chromaticity (to 1e-3); one or two groups are allowed. The
///    group of lower correlated colour temperature becomes calibration set 1. Each group is fitted
///    by `ProfileMatrixFit` (white-preserving least squares, then Nelder–Mead on mean ΔE2000).
/// 4. CalibrationIlluminant is the EXIF code of the standard illuminant whose DNG white
///    (`ColorMath.lightSourceWhite`) is within 0.0015 in x and y of the group's white (A 17, D65 21,
///    D50 23, D55 20, D75 22), otherwise 255 with the white in IlluminantData (DNG 1.6).
public enum ProfileFitter {
    /// Why a fit could not be made or written: one line naming the file or flag and the reason.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case usage(flag: String, reason: String)
        case measure(CompareError)
        case fit(illuminant: String, reason: String)
        case write(path: String, reason: String)

        public var description: String {
            switch self {
            case .usage(let flag, let reason): return "\(flag): \(reason)"
            case .measure(let e): return e.description
            case .fit(let illuminant, let reason): return "cannot fit the profile under \(illuminant): \(reason)"
            case .write(let path, let reason): return "\(path): \(reason)"
            }
        }

        /// 2 for usage errors, 1 otherwise.
        public var exitCode: Int32 {
            switch self {
            case .usage: return 2
            case .measure(let e): return e.exitCode
            default: return 1
            }
        }
    }

    /// The standard illuminants a calibration set is labelled with, by EXIF LightSource code.
    public static let standardCodes = [17, 21, 23, 20, 22]

    /// Measures, fits and returns the profile and its report; nothing is written.
    public static func fit(_ o: ProfileFitOptions) throws(Failure) -> (profile: CameraProfile, uniqueCameraModel: String?, report: ProfileFitReport) {
        guard !o.files.isEmpty else { throw .usage(flag: "CHART", reason: "give one or more chart files") }
        guard o.illuminants.count == 1 || o.illuminants.count == o.files.count else {
            throw .usage(flag: "--illuminant", reason: "give one for all files or one per file (\(o.files.count)), got \(o.illuminants.count)")
        }
        let reference: ChartReference
        // An unusable --reference is a usage error (exit 2), found before any chart is read.
        do { reference = try ChartReference.load(o.reference) } catch { throw .measure(.option(error.description)) }
        struct Group { var key: String; var white: Chromaticity; var illuminant: String; var files: [String]; var patches: [ProfileMatrixFit.Observation]; var ids: [String] }
        var groups: [Group] = []
        var model: String?
        for (i, file) in o.files.enumerated() {
            let illuminant = o.illuminants.count == 1 ? o.illuminants[0] : o.illuminants[i]
            var c = CompareOptions(files: [file], outputDirectory: "")
            c.profiles = ["embedded"]; c.illuminants = [illuminant]; c.chart = o.chart; c.threads = o.threads
            var report: CompareReport
            do {
                // Locate the chart with the file's own rendering, then measure camera RGB unbalanced
                // (neutral 1, 1, 1): a poor profile's white balance must not clip bright patches.
                if case .auto = c.chart {
                    report = try CompareRunner.run(c, reference: reference)
                    if let corners = report.runs.first?.chartCorners, corners.count == 4 {
                        c.chart = .corners(corners.map { SIMD2($0.first ?? 0, $0.last ?? 0) })
                    }
                }
                c.measurementWhiteBalance = .cameraNeutral([1, 1, 1])
                report = try CompareRunner.run(c, reference: reference)
            } catch { throw .measure(error) }
            guard let run = report.runs.first, let stage = run.stages.first, run.illuminantXY.count == 2 else {
                throw .measure(.file(path: file, reason: "no measurement"))
            }
            if model == nil, let md = try? RawDecoder.metadata(path: file) { model = ProfileLibrary.cameraModel(md) }
            let white = Chromaticity(x: run.illuminantXY[0], y: run.illuminantXY[1])
            var patches = stage.patches.map { p in
                ProfileMatrixFit.Observation(cameraRGB: SIMD3(p.cameraRGB[0], p.cameraRGB[1], p.cameraRGB[2]),
                                             referenceXYZD50: SIMD3(p.referenceXYZ[0], p.referenceXYZ[1], p.referenceXYZ[2]), usable: !p.clipped)
            }
            let exposure: Double
            do { exposure = try ProfileMatrixFit.neutralAndExposure(patches, white: white).exposure } catch {
                throw .fit(illuminant: run.illuminant, reason: "\(file): \(error.description)")
            }
            for j in patches.indices { patches[j].cameraRGB /= exposure }
            let key = String(format: "%.3f,%.3f", white.x, white.y)
            if let g = groups.firstIndex(where: { $0.key == key }) {
                groups[g].files.append(file); groups[g].patches += patches; groups[g].ids += stage.patches.map(\.id)
            } else {
                groups.append(Group(key: key, white: white, illuminant: run.illuminant, files: [file], patches: patches, ids: stage.patches.map(\.id)))
            }
        }
        guard groups.count <= 2 else {
            throw .usage(flag: "--illuminant", reason: "the files were shot under \(groups.count) illuminants (\(groups.map(\.illuminant).joined(separator: ", "))); a profile has one or two calibration illuminants")
        }
        groups.sort { Spectral.correlatedColorTemperature($0.white) < Spectral.correlatedColorTemperature($1.white) }
        var profile = CameraProfile()
        profile.name = o.profileName ?? "Darkroom fit, \(model ?? "camera")"
        profile.embedPolicy = 0
        var sets: [ProfileFitReport.CalibrationSet] = []
        for (n, g) in groups.enumerated() {
            let r: ProfileMatrixFit.Result
            do { r = try ProfileMatrixFit.fit(g.patches, white: g.white, refine: o.refine, forwardMatrix: o.forwardMatrix) } catch {
                throw .fit(illuminant: g.illuminant, reason: error.description)
            }
            let code = standardCodes.first { c in
                guard let w = ColorMath.lightSourceWhite(c) else { return false }
                return abs(w.x - g.white.x) < 0.0015 && abs(w.y - g.white.y) < 0.0015
            } ?? 255
            let usable = ProfileMatrixFit.usableIndices(g.patches)
            // The HueSatMap: from the matrices' result toward the reference, in linear ProPhoto.
            var table: [Float]?
            var tableDeltaE: [Double]?
            if o.hueSatMap {
                let toProPhoto = OutputColorSpace.prophotoLinear.xyzD50ToLinearRGB, fromProPhoto = OutputColorSpace.prophotoLinear.linearRGBToXYZD50
                let measured = usable.map { toProPhoto * r.fittedXYZD50[$0] }
                let target = usable.map { toProPhoto * g.patches[$0].referenceXYZD50 }
                let data = HueSatMapFit.fit(measured: measured, target: target)
                if let t = ProfileRenderTables.Table(dims: [HueSatMapFit.hueDivisions, HueSatMapFit.saturationDivisions, 1], data: data, encoding: 0) {
                    var after = [SIMD3<Double>](repeating: .zero, count: g.patches.count)
                    for i in usable {
                        let p = toProPhoto * r.fittedXYZD50[i]
                        let v = t.apply(SIMD3<Float>(Float(p.x), Float(p.y), Float(p.z)))
                        after[i] = fromProPhoto * SIMD3(Double(v.x), Double(v.y), Double(v.z))
                    }
                    let k = after[r.whitePatch].y > 0 ? g.patches[r.whitePatch].referenceXYZD50.y / after[r.whitePatch].y : 1
                    var de = [Double](repeating: 0, count: g.patches.count)
                    for i in usable {
                        de[i] = ColorMath.ciede2000(ColorMath.xyzToLab(g.patches[i].referenceXYZD50), ColorMath.xyzToLab(k * after[i]))
                    }
                    table = data; tableDeltaE = de
                }
            }
            if n == 0 {
                profile.calibrationIlluminant1 = code; profile.colorMatrix1 = r.colorMatrix; profile.forwardMatrix1 = r.forwardMatrix
                if code == 255 { profile.illuminantData1 = g.white }
                profile.hueSatMapData1 = table
            } else {
                profile.calibrationIlluminant2 = code; profile.colorMatrix2 = r.colorMatrix; profile.forwardMatrix2 = r.forwardMatrix
                if code == 255 { profile.illuminantData2 = g.white }
                profile.hueSatMapData2 = table
            }
            if table != nil { profile.hueSatMapDims = [HueSatMapFit.hueDivisions, HueSatMapFit.saturationDivisions, 1] }
            func summary(_ v: [Double]) -> ProfileFitReport.Summary {
                let s = DifferenceSummary(usable.map { v[$0] })
                let r6 = CompareReport.r6
                return .init(mean: r6(s.mean), median: r6(s.median), p90: r6(s.p90), max: r6(s.max), worst: s.worst.map { g.ids[usable[$0]] })
            }
            let r6 = CompareReport.r6
            sets.append(ProfileFitReport.CalibrationSet(
                set: n + 1, illuminant: g.illuminant, illuminantXY: [r6(g.white.x), r6(g.white.y)], calibrationIlluminant: code,
                files: g.files, patches: usable.count, neutralPatches: r.neutralPatches.map { g.ids[$0] },
                cameraNeutral: [r6(r.neutral.x), r6(r.neutral.y), r6(r.neutral.z)],
                colorMatrix: r.colorMatrix.m.map(r6), forwardMatrix: r.forwardMatrix?.m.map(r6),
                leastSquaresForwardMatrix: r.leastSquaresForwardMatrix?.m.map(r6),
                leastSquares: summary(r.leastSquaresDeltaE), fitted: summary(r.fittedDeltaE),
                hueSatMap: tableDeltaE.map(summary), iterations: r.iterations))
        }
        let report = ProfileFitReport(tool: "Darkroom \(DarkroomVersion.string)", method: ProfileFitReport.methodText(refine: o.refine, forwardMatrix: o.forwardMatrix),
                                      reference: reference.name, profileName: profile.name ?? "", uniqueCameraModel: model,
                                      profile: o.outputPath, sets: sets)
        return (profile, model, report)
    }

    /// Fits, writes the profile and its report (every path checked before any is written; each
    /// written atomically), reads the profile back with `ProfileLibrary.readDCP` and checks its
    /// matrices survived, and returns the report.
    public static func run(_ o: ProfileFitOptions) throws(Failure) -> ProfileFitReport {
        let (json, text) = o.reportPaths
        // Never over an input (chart files, the reference), whatever --overwrite says.
        let inputs = Set((o.files + [o.reference]).compactMap(AtomicWriter.FileIdentity.of(path:)))
        if let clash = [o.outputPath, json, text].first(where: { AtomicWriter.FileIdentity.of(path: $0).map(inputs.contains) == true }) {
            throw .write(path: clash, reason: "it is an input of this run; never replaced")
        }
        if !o.overwrite, let existing = [o.outputPath, json, text].first(where: { FileManager.default.fileExists(atPath: $0) }) {
            throw .write(path: existing, reason: "exists (use --overwrite to replace it)")
        }
        let (profile, model, report) = try fit(o)
        let jsonBytes: [UInt8]
        do { jsonBytes = try report.jsonBytes() } catch { throw .write(path: json, reason: "\(error)") }
        do { try DCPWriter.write(profile, uniqueCameraModel: model, to: o.outputPath, overwrite: o.overwrite) } catch {
            throw .write(path: o.outputPath, reason: error.description)
        }
        do {
            let back = try ProfileLibrary.readDCP(path: o.outputPath).profile
            guard back.colorMatrix1 == profile.colorMatrix1, back.colorMatrix2 == profile.colorMatrix2,
                  back.forwardMatrix1 == profile.forwardMatrix1, back.forwardMatrix2 == profile.forwardMatrix2,
                  back.hueSatMapDims == profile.hueSatMapDims, back.hueSatMapData1 == profile.hueSatMapData1,
                  back.hueSatMapData2 == profile.hueSatMapData2 else {
                throw ProfileFitter.Failure.write(path: o.outputPath, reason: "the written profile does not read back with the fitted matrices")
            }
        } catch let e as ProfileFitter.Failure { throw e } catch { throw .write(path: o.outputPath, reason: "\(error)") }
        for (path, bytes) in [(json, jsonBytes), (text, Array(report.text().utf8))] {
            do { try AtomicWriter.write(bytes, to: path, overwrite: o.overwrite) } catch { throw .write(path: path, reason: error.description) }
        }
        return report
    }
}
