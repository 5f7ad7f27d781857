import DarkroomCore
import Foundation

/// `darkroom constant-colour`: a flash / no-flash pair of RAW/DNG files → the materials' colour
/// under D65 (`ConstantColourSolver`, whose doc gives the method), a confidence map as an
/// auxiliary plane (`MatteKind.constantColourConfidence`), the centre-weighted confidence in XMP
/// and in a JSON report, and optionally the ordinary render of the ambient frame as a fallback.
public enum ConstantColourDeveloper {
    /// Why a pair failed; one line naming the file (or flag) and the reason.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case decode(DecodeError)
        case input(path: String, reason: String)
        case profile(source: String, reason: String)
        case pair(ambient: String, flash: String, reason: String)
        case encode(path: String, reason: String)
        case write(AtomicWriter.Failure)
        case fallback(DevelopFailure)

        public var description: String {
            switch self {
            case .decode(let e): return e.description
            case .input(let p, let r): return "\(p): \(r)"
            case .profile(let s, let r): return "\(s): no usable flash profile (\(r))"
            case .pair(let a, let f, let r): return "\(a) + \(f): \(r)"
            case .encode(let p, let r): return "\(p): cannot encode output (\(r))"
            case .write(let e): return e.description
            case .fallback(let e): return "fallback render: \(e.description)"
            }
        }
    }

    /// One linearised frame and the file's metadata.
    public struct LoadedFrame: Sendable {
        public var path: String
        public var frame: ConstantColourFrame
        public var metadata: RawMetadata
        public var warnings: [String]
    }

    /// Step 1: the file's DNG stage 3 (linearised, OpcodeList1–3, demosaiced with msg, as
    /// `darkroom develop --stage 3 --demosaic msg` writes it) as planar Float camera RGB, 1.0 = the
    /// white level; clipping from stage 2 (any CFA sample ≥ `clipLevel` in the pixel's 3×3
    /// neighbourhood); noise from NoiseProfile (else `ConstantColourFrame.assumedNoise`, with a warning).
    public static func load(path: String, clipLevel: Double, threads: Int) throws(Failure) -> LoadedFrame {
        var options = DecodeOptions()
        options.applyOpcodeList1 = true
        options.threads = threads
        let raw: RawImage
        do { raw = try RawDecoder.decode(path: path, options: options) } catch { throw .decode(error) }
        var recipe = DevelopRecipe()
        recipe.threads = threads
        // msg, the demosaic the method's figures were measured with (issue 17: Spearman of
        // confidence and error −0.806 on the synthetic set); the develop default since 2026-11-27,
        // adaptive-ri, measured −0.788 there (its fallback renders the flash pair's coloured
        // edges differently in the two frames).
        recipe.demosaic = .msg
        let plan: DevelopPlan
        do { plan = try PlanBuilder.plan(for: raw, recipe: recipe, path: path) } catch {
            throw .input(path: path, reason: "cannot plan the development (\(error.description))")
        }
        func list(_ bytes: [UInt8]?, _ name: String) throws(Failure) -> OpcodeList? {
            guard let bytes, !bytes.isEmpty else { return nil }
            do { return try OpcodeList.parse(bytes) } catch { throw .input(path: path, reason: "\(name): \(error.description)") }
        }
        let two: StageImage, three: StageImage
        do { two = try TileRenderer.stage2(raw, plan: plan, opcodeList2: try list(raw.metadata.opcodeList2, "OpcodeList2")) } catch {
            throw .input(path: path, reason: "OpcodeList2: \(error)")
        }
        do { three = try TileRenderer.stage3(two, demosaic: recipe.demosaic, opcodeList3: try list(raw.metadata.opcodeList3, "OpcodeList3")) } catch {
            throw .input(path: path, reason: "OpcodeList3: \(error)")
        }
        guard three.planes == 3, three.width > 0, three.height > 0 else {
            throw .input(path: path, reason: "stage 3 has \(three.planes) planes; constant colour needs three-colour camera RGB")
        }
        let w = three.width, h = three.height, n = w * h
        var rgb = [Float](repeating: 0, count: 3 * n)
        for i in 0..<n { for c in 0..<3 { rgb[c * n + i] = Float(three.pixels[3 * i + c]) / 65535 } }
        let level = UInt16(max(0, min(65535, (clipLevel * 65535).rounded(.up))))
        var hot = [UInt8](repeating: 0, count: n)
        if two.width == w, two.height == h {
            let spp = two.planes
            for i in 0..<n { for s in 0..<spp where two.pixels[i * spp + s] >= level { hot[i] = 1 } }
        } else {
            for i in 0..<n { for c in 0..<3 where three.pixels[3 * i + c] >= level { hot[i] = 1 } }
        }
        var clipped = [UInt8](repeating: 0, count: n)
        for y in 0..<h { for x in 0..<w where hot[y * w + x] != 0 {
            for yy in max(0, y - 1)...min(h - 1, y + 1) { for xx in max(0, x - 1)...min(w - 1, x + 1) { clipped[yy * w + xx] = 1 } }
        } }
        var warnings: [String] = []
        var noise = ConstantColourFrame.noise(fromProfile: raw.metadata.noiseProfile)
        if noise == nil {
            warnings.append("\(path): no usable NoiseProfile; assuming a 4000 e- full well and 1/2000 read noise")
            noise = ConstantColourFrame.assumedNoise
        }
        return LoadedFrame(path: path, frame: ConstantColourFrame(width: w, height: h, rgb: rgb, clipped: clipped, noise: noise ?? ConstantColourFrame.assumedNoise),
                           metadata: raw.metadata, warnings: warnings)
    }

    /// Step 2: the ambient frame's value × k = the ambient light's share of the flash frame,
    /// k = (t_f·ISO_f / N_f²) / (t_a·ISO_a / N_a²) · 2^(BE_a − BE_f) (BE = BaselineExposure +
    /// the profile's BaselineExposureOffset, stops).
    public static func exposureRatio(ambient: LoadedFrame, flash: LoadedFrame) throws(Failure) -> Double {
        func exposure(_ f: LoadedFrame) throws(Failure) -> Double {
            let x = f.metadata.exif
            guard let t = x.exposureTime, t > 0, t.isFinite else { throw .input(path: f.path, reason: "no usable ExposureTime (needed to normalise the exposures)") }
            guard let iso = x.isoSpeed, iso > 0 else { throw .input(path: f.path, reason: "no usable ISOSpeedRatings (needed to normalise the exposures)") }
            guard let n = x.fNumber, n > 0, n.isFinite else { throw .input(path: f.path, reason: "no usable FNumber (needed to normalise the exposures)") }
            return t * Double(iso) / (n * n)
        }
        func baseline(_ f: LoadedFrame) -> Double {
            let v = (f.metadata.baselineExposure ?? 0) + (f.metadata.profile?.baselineExposureOffset ?? 0)
            return v.isFinite ? max(-16, min(16, v)) : 0
        }
        let hf = try exposure(flash), ha = try exposure(ambient)
        let k = hf / ha * pow(2, baseline(ambient) - baseline(flash))
        guard k.isFinite, k > 0 else { throw .pair(ambient: ambient.path, flash: flash.path, reason: "exposure ratio \(k) is not usable") }
        return k
    }

    /// Step 5's matrix: flash camera RGB → XYZ D50 at the flash's white, from `option`; with the
    /// white and a description of the source.
    public static func flashCameraToXYZD50(_ option: ConstantColourOptions.FlashProfile, flash: LoadedFrame) throws(Failure)
        -> (matrix: Matrix3, white: Chromaticity, source: String) {
        func flashWhite(_ p: CameraProfile) -> Chromaticity? {
            let sets: [(Int?, Chromaticity?)] = [(p.calibrationIlluminant1, p.illuminantData1),
                                                  (p.calibrationIlluminant2, p.illuminantData2),
                                                  (p.calibrationIlluminant3, p.illuminantData3)]
            for (code, data) in sets {
                if code == 4, let w = ColorMath.lightSourceWhite(4) { return w }
                if code == 255, let d = data, d.x > 0, d.y > 0, d.x + d.y < 1 { return d }
            }
            return nil
        }
        func solve(_ profile: CameraProfile?, _ white: Chromaticity, _ source: String) throws(Failure) -> (Matrix3, Chromaticity, String) {
            let model: DNGColorModel
            do { model = try DNGColorModel(metadata: flash.metadata, profile: profile) } catch {
                throw .profile(source: source, reason: "\(error)")
            }
            let m = model.solve(.whiteXY(white)).cameraToXYZD50
            guard m.isFinite, m.inverse != nil else { throw .profile(source: source, reason: "singular camera → XYZ matrix") }
            return (m, white, source)
        }
        switch option {
        case .fromFlashFile:
            guard let p = flash.metadata.profile, let white = flashWhite(p) else {
                throw .profile(source: flash.path, reason: "its CalibrationIlluminant is neither Flash (4) nor Other (255) with IlluminantData; give --flash-profile or --flash-xy")
            }
            return try solve(p, white, "flash file")
        case .dcp(let path):
            let p: CameraProfile
            do { p = try ProfileLibrary.readDCP(path: path).profile } catch { throw .profile(source: path, reason: error.description) }
            guard let white = flashWhite(p) else {
                throw .profile(source: path, reason: "its CalibrationIlluminant is neither Flash (4) nor Other (255) with IlluminantData")
            }
            return try solve(p, white, path)
        case .spectrum(let path):
            let xy: Chromaticity
            do { xy = try FlashSpectrum.white(path: path) } catch { throw .profile(source: path, reason: error.description) }
            return try solve(nil, xy, path)
        case .whiteXY(let xy):
            guard xy.x > 0, xy.y > 0, xy.x + xy.y < 1 else { throw .profile(source: "--flash-xy", reason: "\(xy) is not a chromaticity") }
            return try solve(nil, xy, "--flash-xy")
        }
    }

    /// Everything the method computes for a pair, before encoding.
    public struct Solved: Sendable {
        public var result: ConstantColourResult
        public var ambient: LoadedFrame
        public var flash: LoadedFrame
        public var flashWhite: Chromaticity
        public var flashSource: String
        /// The flash profile's camera RGB → XYZ D50 at the flash's white (step 5).
        public var flashCameraToXYZD50: Matrix3
        public var warnings: [String]
    }

    /// Steps 1–6 for the pair.
    public static func solve(ambient ambientPath: String, flash flashPath: String, options: ConstantColourOptions) throws(Failure) -> Solved {
        let threads = options.threads > 0 ? options.threads : ProcessInfo.processInfo.activeProcessorCount
        let ambient = try load(path: ambientPath, clipLevel: options.parameters.clipLevel, threads: threads)
        let flash = try load(path: flashPath, clipLevel: options.parameters.clipLevel, threads: threads)
        guard ambient.frame.width == flash.frame.width, ambient.frame.height == flash.frame.height else {
            throw .pair(ambient: ambientPath, flash: flashPath, reason: "the frames differ in size (\(ambient.frame.width)x\(ambient.frame.height) and \(flash.frame.width)x\(flash.frame.height))")
        }
        let k = try exposureRatio(ambient: ambient, flash: flash)
        let (fm, white, source) = try flashCameraToXYZD50(options.flashProfile, flash: flash)
        let am: Matrix3
        do { am = try DNGColorModel(metadata: ambient.metadata).solve(.asShot).cameraToXYZD50 } catch {
            throw .input(path: ambientPath, reason: "colour model: \(error)")
        }
        let input = ConstantColourSolver.Input(ambient: ambient.frame, flash: flash.frame, ambientScale: k,
                                               flashCameraToXYZD50: fm, ambientCameraToXYZD50: am)
        let result: ConstantColourResult
        do { result = try ConstantColourSolver.solve(input, parameters: options.parameters, threads: threads) } catch {
            throw .pair(ambient: ambientPath, flash: flashPath, reason: error.description)
        }
        return Solved(result: result, ambient: ambient, flash: flash, flashWhite: white, flashSource: source, flashCameraToXYZD50: fm,
                      warnings: ambient.warnings + flash.warnings)
    }
}
