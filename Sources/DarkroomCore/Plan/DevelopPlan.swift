import Foundation

/// A recipe resolved against one file's metadata: every number the render uses, in the order
/// the stages run (DNG spec order). The plan is data — `darkroom explain` prints it.
///
/// Stages (`RenderStage`), per output tile:
/// 1. linearise: `(raw − black(x, y)) / (white − maxBlack)`, black per CFA site
///    (BlackLevel with BlackLevelRepeatDim, plus BlackLevelDeltaH/V) — DNG spec ch. 5; one scale
///    per sample plane, from the largest black any site can have, as the DNG SDK 1.7.1 scales
///    (dng_linearization_info.cpp, `MaxBlackLevel`);
/// 2. OpcodeList2 (pointwise opcodes, per tile);
/// 3. white balance: multiply each CFA colour by `1 / cameraNeutral` (≥ 1), clip at 1.0
///    (clipped highlights become neutral);
/// 4. demosaic (`recipe.demosaic`), balanced camera RGB;
/// 5. OpcodeList3 (pointwise opcodes, per tile);
/// 6. one 3×3 matrix: balanced camera → camera (diag(neutral)) → XYZ D50 (DNG colour model,
///    ch. 6) → output linear RGB, times 2^(BaselineExposure + offset + user stops);
/// 7. gamut: negative components desaturated toward luminance (hue and Y kept);
/// 8. tone curve (`ToneCurve`), hue-preserving;
/// 9. transfer function of the output space and quantisation (8 or 16 bit);
/// then DefaultCrop and Orientation decide where the pixel lands.
public struct DevelopPlan: Sendable {
    public let recipe: DevelopRecipe
    /// Size of the decoded (active-area) image.
    public let width: Int
    public let height: Int
    public let samplesPerPixel: Int
    public let cfa: CFAPattern?
    /// Black level for every (row mod repeatRows, column mod repeatColumns[, sample]) position.
    public let blackRepeatRows: Int
    public let blackRepeatColumns: Int
    public let blackLevels: [Float]
    public let blackDeltaH: [Float]?
    public let blackDeltaV: [Float]?
    /// White level per sample.
    public let whiteLevels: [Float]
    /// Linearisation range per sample plane: `white − maxBlack`, maxBlack the largest BlackLevel of
    /// the repeat pattern plus the largest BlackLevelDeltaH of its column phase and the largest
    /// BlackLevelDeltaV of its row phase (the DNG SDK's `MaxBlackLevel`); samples are divided by it.
    public let linearRange: [Float]
    /// The colour solution (white balance, interpolated matrices).
    public let color: ColorSolution
    /// White-balance gains for red, green, blue CFA sites (`1 / cameraNeutral`, all ≥ 1).
    public let whiteBalanceGains: SIMD3<Float>
    /// Balanced camera RGB → output linear RGB, exposure included (row-major).
    public let cameraToOutput: Matrix3
    /// The camera profile used (the file's own, an embedded one by name, or an external DCP).
    public let profile: CameraProfile?
    /// HueSatMap/LookTable of the profile, applied in linear ProPhoto between camera and output.
    public let profileTables: ProfileRenderTables?
    /// With profile tables: balanced camera → linear ProPhoto (exposure included), and ProPhoto → output.
    public let cameraToProPhoto: Matrix3
    public let proPhotoToOutput: Matrix3
    /// Total exposure applied, in stops (baseline + offset + user).
    public let exposureStops: Double
    /// The ProfileGainTableMap(2) to apply (the rendering profile's, else the file's), resolved for
    /// this image's size and BaselineExposure; nil without one, with `--tone linear`, or when
    /// `recipe.applyProfileLook` is off. See `gainTableMapSampler`.
    public let gainTableMap: ProfileGainTableMap.Sampler?
    /// The file's NoiseProfile as a noise model (nil: none or malformed; noise reduction then
    /// measures the image).
    public let noiseModel: NoiseModel?
    /// With `--tone reference`: the DNG SDK renderer's stages 6–8 (`ReferenceLook`), which then
    /// replace the matrix, gamut, profile-table and tone stages.
    public let reference: ReferenceLook?
    public let tone: ToneCurve
    /// Luminance weights of the output space (the Y row of its RGB → XYZ matrix).
    public let luminance: SIMD3<Float>
    /// The part of the image that is rendered (DefaultCrop, or everything).
    public let crop: PixelRect
    public let orientation: Orientation
    public let demosaicHalo: Int
    public let opcodeList2: OpcodeList?
    public let opcodeList3: OpcodeList?
    /// True when the list holds opcodes that need the whole image (bad pixels, warps): the render
    /// then runs staged for that list (see `TileRenderer`).
    public let opcodeList2NeedsWholeImage: Bool
    public let opcodeList3NeedsWholeImage: Bool
    /// Things the user should know (opcodes skipped, profile fallbacks, …).
    public let warnings: [String]
    /// The lens correction (`recipe.lensCorrection`, resolved by the IO layer against the lens
    /// database; nil: not resolved, nothing runs). See `LensCorrection`, `LensResampler`.
    public var lens: LensCorrection?

    /// Resolves `recipe` against `metadata` for a decoded image of `width × height`.
    /// `profile` overrides the file's own camera profile (resolved by the IO layer from
    /// `recipe.profilePath/profileName`); `raw` lets image-dependent white balance
    /// (`recipe.whiteBalanceRequest`: auto, neutral rectangle) be resolved.
    /// `opcodes` holds `metadata`'s OpcodeList2/3 as parsed by DarkroomFormats
    /// (`ParsedOpcodeLists(metadata)`): file bytes are parsed only there.
    public init(metadata: RawMetadata, width: Int, height: Int, samplesPerPixel: Int,
                recipe: DevelopRecipe, opcodes: ParsedOpcodeLists, profile: CameraProfile? = nil,
                raw: RawImage? = nil) throws(DevelopError) {
        var recipe = recipe
        // A blend whose windows need more than a small mosaic has renders it with its
        // colour-difference member (adaptive-ri: msgd), which needs less; decided by the size alone.
        if samplesPerPixel == 1, let member = recipe.demosaic.smallImageMember,
           min(width, height) < 2 * recipe.demosaic.halo + 2 {
            recipe.demosaic = member
        }
        self.recipe = recipe
        self.width = width
        self.height = height
        self.samplesPerPixel = samplesPerPixel
        var warnings: [String] = metadata.warnings

        guard recipe.tileSize >= 16, recipe.tileSize <= 8192 else {
            throw .invalidRecipe("tile size \(recipe.tileSize) is outside 16…8192")
        }
        guard recipe.bitsPerSample == 8 || recipe.bitsPerSample == 16 || recipe.bitsPerSample == 32 else {
            throw .invalidRecipe("bits per sample must be 8, 16 or 32, not \(recipe.bitsPerSample)")
        }
        if samplesPerPixel == 1 {
            guard let cfa = metadata.cfa else { throw .badLevels("mosaic image without a CFA pattern") }
            self.cfa = cfa
            self.demosaicHalo = recipe.demosaic.halo
        } else if samplesPerPixel == 3 {
            self.cfa = nil
            self.demosaicHalo = 0
        } else {
            throw .invalidRecipe("\(samplesPerPixel) samples per pixel are not supported")
        }
        let minimum = 2 * demosaicHalo + 2
        guard width >= minimum, height >= minimum else {
            throw .imageTooSmall(width: width, height: height, minimum: minimum)
        }

        // Levels.
        let rows = max(metadata.blackLevelRepeatRows, 1), cols = max(metadata.blackLevelRepeatColumns, 1)
        let perPosition = rows * cols * samplesPerPixel
        var black = metadata.blackLevel.map { Float($0) }
        if black.count == 1 && perPosition > 1 { black = [Float](repeating: black[0], count: perPosition) }
        guard black.count == perPosition, rows <= 64, cols <= 64 else {
            throw .badLevels("BlackLevel has \(black.count) values for a \(rows)x\(cols) repeat of \(samplesPerPixel) samples")
        }
        self.blackRepeatRows = rows
        self.blackRepeatColumns = cols
        self.blackLevels = black
        if let dh = metadata.blackLevelDeltaH, dh.count == width, dh.contains(where: { $0 != 0 }) {
            blackDeltaH = dh.map { Float($0) }
        } else { blackDeltaH = nil }
        if let dv = metadata.blackLevelDeltaV, dv.count == height, dv.contains(where: { $0 != 0 }) {
            blackDeltaV = dv.map { Float($0) }
        } else { blackDeltaV = nil }
        var white = metadata.whiteLevel.map { Float($0) }
        if white.isEmpty { white = [65535] }
        if white.count < samplesPerPixel { white = [Float](repeating: white[0], count: samplesPerPixel) }
        self.whiteLevels = white
        let maxBlack = black.max() ?? 0
        guard white.allSatisfy({ $0.isFinite && $0 > maxBlack + 1 }), black.allSatisfy(\.isFinite) else {
            throw .badLevels("white level \(white) is not above black level \(maxBlack)")
        }
        let planeMaxBlack = Self.maxBlackLevels(black: black, rows: rows, columns: cols, planes: samplesPerPixel,
                                                deltaH: blackDeltaH, deltaV: blackDeltaV)
        var ranges: [Float] = []
        for s in 0..<samplesPerPixel {
            let range = Float(Double(white[s]) - planeMaxBlack[s])
            guard range > 0, range.isFinite else {
                throw .badLevels("white level \(white[s]) is not above the largest black level \(planeMaxBlack[s]) (BlackLevel + deltas)")
            }
            ranges.append(range)
        }
        self.linearRange = ranges

        // Colour.
        let model: DNGColorModel
        do { model = try DNGColorModel(metadata: metadata, profile: profile) } catch {
            throw .colorModel(error.description)
        }
        var wb = recipe.whiteBalance
        if let request = recipe.whiteBalanceRequest {
            if let raw, let problem = request.problem(in: raw) { throw .invalidRecipe(problem) }
            if let raw { wb = request.resolve(raw: raw, model: model) } else if case .asShot = request {} else {
                warnings.append("white balance \(request) needs the image; using as-shot")
            }
        }
        let solution = model.solve(wb)
        let usedProfile = profile ?? metadata.profile
        self.profile = usedProfile
        warnings += solution.warnings
        self.color = solution
        let n = solution.cameraNeutral
        guard n.min() > 0, n.max().isFinite else { throw .colorModel("camera neutral \(n) is not positive") }
        let gains = SIMD3<Double>(1 / n.x, 1 / n.y, 1 / n.z) * n.max()
        self.whiteBalanceGains = SIMD3<Float>(gains / gains.min())
        let balancedToCamera = Matrix3.diagonal(SIMD3(1, 1, 1) / (gains / gains.min()))
        var stops = recipe.exposureStops
        if recipe.applyBaselineExposure {
            stops += metadata.baselineExposure ?? 0
            stops += metadata.profile?.baselineExposureOffset ?? 0
        }
        self.exposureStops = stops
        let space = recipe.colorSpace
        let matrix = pow(2, stops) * (space.xyzD50ToLinearRGB * solution.cameraToXYZD50 * balancedToCamera)
        guard matrix.isFinite else { throw .colorModel("camera → output matrix is not finite") }
        self.cameraToOutput = matrix
        var tables: ProfileRenderTables?
        if recipe.applyProfileLook, let p = usedProfile, let t = ProfileRenderTables(profile: p, weight1: solution.weight1, tripleIlluminantWeights: solution.tripleIlluminantWeights) {
            tables = t
            warnings += t.warnings
        }
        self.profileTables = tables?.hasTables == true && recipe.tone != .reference ? tables : nil
        let gainMap = Self.gainTableMapSampler(metadata: metadata, profile: usedProfile, recipe: recipe, width: width, height: height,
                                               exposureStops: stops)
        self.gainTableMap = gainMap
        self.reference = recipe.tone == .reference
            ? ReferenceLook(balancedCameraToXYZD50: solution.cameraToXYZD50 * balancedToCamera, tables: tables,
                            profileToneCurve: recipe.applyProfileLook ? usedProfile?.toneCurve : nil,
                            exposureStops: stops, defaultBlackRender: usedProfile?.defaultBlackRender, space: space,
                            gainTableMap: gainMap)
            : nil
        let proPhoto = OutputColorSpace.prophotoLinear
        self.cameraToProPhoto = pow(2, stops) * (proPhoto.xyzD50ToLinearRGB * solution.cameraToXYZD50 * balancedToCamera)
        self.proPhotoToOutput = space.xyzD50ToLinearRGB * proPhoto.linearRGBToXYZD50
        let yRow = space.linearRGBToXYZD50.row(1)
        self.luminance = SIMD3<Float>(Float(yRow.x), Float(yRow.y), Float(yRow.z))
        self.tone = ToneCurve(mode: recipe.tone, shoulder: Float(recipe.toneShoulder), headroom: Float(max(1, pow(2, stops))),
                              profileCurve: recipe.tone == .standard ? tables?.toneCurve : nil)

        // Geometry.
        let full = PixelRect(x: 0, y: 0, width: width, height: height)
        if recipe.applyDefaultCrop, let c = metadata.defaultCrop, !c.isEmpty {
            if full.contains(c) { crop = c } else {
                crop = full
                warnings.append("DefaultCrop \(c) lies outside the \(width)x\(height) image; not applied")
            }
        } else { crop = full }
        orientation = recipe.applyOrientation ? Orientation(metadata.orientation) : Orientation(1)

        // Opcodes: validated against the image (hostile lists fail here, before any pixel work);
        // optional opcodes that cannot run are skipped with a warning; TrimBounds is reported, not
        // applied (the crop already decides the rendered area).
        func parsed(_ parsedList: Result<OpcodeList, OpcodeError>?, _ index: Int, planes: Int) throws(DevelopError) -> OpcodeList? {
            let name = "OpcodeList\(index)"
            guard let parsedList else { return nil }
            guard recipe.applyOpcodes, recipe.opcodeLists.contains(index) else {
                warnings.append("\(name) present but not applied (--opcodes)")
                return nil
            }
            var list: OpcodeList
            switch parsedList {
            case .success(let l): list = l
            case .failure(let error): throw .opcode("\(name): \(error.description)")
            }
            warnings += list.warnings.map { "\(name): \($0)" }
            warnings += list.skippedOpcodes(imageWidth: width, imageHeight: height, planes: planes).map { "\(name): \($0)" }
            let trims = list.opcodes.filter { if case .trimBounds = $0 { return true } else { return false } }
            if !trims.isEmpty {
                warnings.append("\(name): TrimBounds not applied (DefaultCrop decides the rendered area)")
                list.opcodes.removeAll { if case .trimBounds = $0 { return true } else { return false } }
            }
            do { _ = try list.validate(imageWidth: width, imageHeight: height, planes: planes) } catch {
                throw .opcode("\(name): \(error.description)")
            }
            return list.opcodes.isEmpty ? nil : list
        }
        opcodeList2 = try parsed(opcodes.list2, 2, planes: samplesPerPixel)
        opcodeList3 = try parsed(opcodes.list3, 3, planes: 3)
        opcodeList2NeedsWholeImage = !(opcodeList2?.isPointwise ?? true)
        opcodeList3NeedsWholeImage = !(opcodeList3?.isPointwise ?? true)
        noiseModel = metadata.noiseProfile.flatMap(NoiseModel.init(noiseProfile:))
        self.warnings = warnings
    }

    /// The gain table map a render applies (DNG 1.7.1 precedence: the rendering profile's
    /// ProfileGainTableMap2, else the file's — IFD 0's, else the raw IFD's), over the whole
    /// `width × height` stage-3 image (positions before DefaultCrop, as the SDK's render).
    ///
    /// The map is part of the file's intended rendering, like HueSatMap/LookTable/ProfileToneCurve
    /// ("a starting point for user adjustments", DNG 1.6): it applies to `--tone reference` (as the
    /// SDK's render) and `--tone standard`, and is off with `applyProfileLook` off. It never
    /// applies to `--tone linear`, the colorimetric render (scene colour from the DNG colour model
    /// only; a local tone map would break that promise).
    ///
    /// A map whose gains are all 1 changes no pixel and is skipped (nil).
    ///
    /// The table input is the pixel after the file's BaselineExposure (+ BaselineExposureOffset),
    /// whatever the recipe does with exposure: the spec defines the map's input after
    /// BaselineExposure, and the user's exposure does not change it (the SDK's render does the
    /// same). `--tone reference` applies the map before any exposure (input scale 2^baseline, as
    /// the SDK); `--tone standard` after the plan's `exposureStops` (scale 2^(baseline − stops)).
    static func gainTableMapSampler(metadata: RawMetadata, profile: CameraProfile?, recipe: DevelopRecipe,
                                    width: Int, height: Int, exposureStops: Double) -> ProfileGainTableMap.Sampler? {
        guard recipe.applyProfileLook, recipe.tone != .linear,
              let map = profile?.profileGainTableMap ?? metadata.profileGainTableMap,
              map.gains.contains(where: { $0 != 1 }) else { return nil }   // every gain 1: a no-op, skipped
        var stops = (metadata.baselineExposure ?? 0) + (metadata.profile?.baselineExposureOffset ?? 0)
        if recipe.tone != .reference { stops -= exposureStops }
        return ProfileGainTableMap.Sampler(map: map, imageWidth: width, imageHeight: height,
                                           weightScale: Float(pow(2, stops.isFinite ? stops : 0)))
    }

    /// The DNG SDK's `dng_linearization_info::MaxBlackLevel` per sample plane: the largest
    /// BlackLevel[row][col][plane] + max DeltaH of column phase col + max DeltaV of row phase row.
    static func maxBlackLevels(black: [Float], rows: Int, columns: Int, planes: Int,
                               deltaH: [Float]?, deltaV: [Float]?) -> [Double] {
        var maxH = [Double](repeating: 0, count: columns), maxV = [Double](repeating: 0, count: rows)
        if let deltaH {
            for (j, d) in deltaH.enumerated() { maxH[j % columns] = j < columns ? Double(d) : max(maxH[j % columns], Double(d)) }
        }
        if let deltaV {
            for (j, d) in deltaV.enumerated() { maxV[j % rows] = j < rows ? Double(d) : max(maxV[j % rows], Double(d)) }
        }
        return (0..<planes).map { s in
            var m = -Double.infinity
            for r in 0..<rows { for c in 0..<columns {
                m = max(m, Double(black[(r * columns + c) * planes + s]) + maxH[c] + maxV[r])
            } }
            return m
        }
    }

    /// Output size after crop and orientation.
    public var outputSize: (width: Int, height: Int) {
        orientation.displaySize(width: crop.width, height: crop.height)
    }

    /// One line about a gain table map: tag, grid, encoding, gain range, weights, gamma.
    static func describe(_ s: ProfileGainTableMap.Sampler) -> String {
        let m = s.map
        func f(_ v: Float) -> String { String(format: "%.4g", Double(v)) }
        let lo = m.gains.min() ?? 1, hi = m.gains.max() ?? 1
        return "\(m.version == 2 ? "ProfileGainTableMap2" : "ProfileGainTableMap"): \(m.pointsV)x\(m.pointsH) tables of \(m.pointsN) (\(m.dataType)), gains \(f(lo))…\(f(hi)), weights R G B min max \(m.inputWeights.map(f).joined(separator: " ")), gamma \(f(m.gamma)), input × \(f(s.weightScale)) (BaselineExposure), over \(s.imageWidth)x\(s.imageHeight) in linear ProPhoto"
    }

    /// Human-readable description of every resolved number, in stage order.
    public var explanation: [String] {
        func f(_ v: Double, _ d: Int = 4) -> String { String(format: "%.\(d)f", v) }
        func m(_ a: Matrix3) -> String {
            (0..<3).map { r in "[" + (0..<3).map { c in f(a[r, c]) }.joined(separator: " ") + "]" }.joined(separator: " ")
        }
        var lines: [String] = []
        lines.append("input: \(width)x\(height), \(samplesPerPixel == 1 ? "CFA \(cfa?.description ?? "?")" : "linear RGB")")
        lines.append("\(RenderStage.linearize.label): black \(blackLevels.map { f(Double($0), 1) }.joined(separator: " ")) (repeat \(blackRepeatRows)x\(blackRepeatColumns))\(blackDeltaH != nil ? " + DeltaH" : "")\(blackDeltaV != nil ? " + DeltaV" : ""), white \(whiteLevels.map { f(Double($0), 0) }.joined(separator: " "))")
        if let l = opcodeList2 { lines.append("\(RenderStage.opcodeList2.label) (\(opcodeList2NeedsWholeImage ? "whole image" : "per tile")): " + l.summary.joined(separator: "; ")) }
        lines.append("\(RenderStage.whiteBalance.label): neutral \(f(color.cameraNeutral.x)) \(f(color.cameraNeutral.y)) \(f(color.cameraNeutral.z)) → gains R \(f(Double(whiteBalanceGains.x))) G \(f(Double(whiteBalanceGains.y))) B \(f(Double(whiteBalanceGains.z))); white xy \(color.whiteXY), \(f(color.temperatureKelvin, 0)) K tint \(f(color.tint, 1))")
        lines.append(recipe.highlights == .reconstruct
            ? "highlights: reconstruct (clipped channels rebuilt from the unclipped neighbours' ratios, \(HighlightRecovery.cell) px ratio grid; scaled back into 0…1 keeping hue; nothing changes where nothing clips)"
            : "highlights: clip (clipped channels run to white, as the DNG SDK)")
        if samplesPerPixel == 1 { lines.append("\(RenderStage.demosaic.label): \(recipe.demosaic.rawValue) (halo \(demosaicHalo))") }
        switch recipe.noiseReduction {
        case .off: lines.append("noise reduction: off")
        case _ where samplesPerPixel != 1 && samplesPerPixel != 3:
            lines.append("noise reduction: none (\(samplesPerPixel) samples per pixel)")
        case _ where samplesPerPixel == 3 && noiseModel == nil:
            lines.append("noise reduction: \(recipe.noiseReduction == .auto ? "auto" : recipe.noiseReduction.text) → none (LinearRaw without a NoiseProfile: its noise is not estimated from the image)")
        default:
            let strength = recipe.noiseReduction == .auto ? "auto, strength 1,1" : recipe.noiseReduction.text
            let model = noiseModel.map { m in
                String(format: "NoiseProfile S %.3g %.3g %.3g, O %.3g %.3g %.3g; σ at mid-grey %.4f%@", m.scale.x, m.scale.y, m.scale.z,
                       m.offset.x, m.offset.y, m.offset.z, m.sigmaAtMidGrey,
                       recipe.noiseReduction == .auto && m.sigmaAtMidGrey < NoiseReduction.visibility ? " (below visibility: none)" : "")
            } ?? "no NoiseProfile: estimated from the image when rendering"
            lines.append("noise reduction: \(strength); \(samplesPerPixel == 3 ? NoiseReduction.linearSummary : NoiseReduction.summary); \(model)")
        }
        if let (a, r) = recipe.sharpen.amountAndRadius, samplesPerPixel == 1 || (samplesPerPixel == 3 && recipe.sharpen != .auto) {
            lines.append(String(format: "sharpening: %@ — amount %.2f, radius %.0f px, on luminance, gated by the local variance against %@", recipe.sharpen == .auto ? "auto" : "manual", a, r,
                                noiseModel != nil ? "the NoiseProfile's luminance noise"
                                    : samplesPerPixel == 3 ? "the quantisation floor only (LinearRaw without a NoiseProfile: its noise is not estimated)"
                                    : "the luminance noise of the model estimated from the image"))
        } else {
            lines.append(recipe.sharpen == .off ? "sharpening: off"
                : samplesPerPixel == 3 ? "sharpening: auto → none (LinearRaw: whoever demosaiced it shaped its detail; give an AMOUNT to sharpen)"
                : "sharpening: none (\(samplesPerPixel) samples per pixel)")
        }
        if let l = opcodeList3 { lines.append("\(RenderStage.opcodeList3.label) (\(opcodeList3NeedsWholeImage ? "whole image" : "per tile")): " + l.summary.joined(separator: "; ")) }
        if let lens { lines += lens.explanation }
        if let w = color.tripleIlluminantWeights {
            lines.append("\(RenderStage.colour.label): weights(ColorMatrix1/2/3) \(f(w.x)) \(f(w.y)) \(f(w.z)); ColorMatrix \(m(color.colorMatrix))")
        } else {
            lines.append("\(RenderStage.colour.label): weight(ColorMatrix1) \(f(color.weight1)); ColorMatrix \(m(color.colorMatrix))")
        }
        if let fm = color.forwardMatrix { lines.append("  ForwardMatrix \(m(fm))") }
        lines.append("  camera → XYZ D50 \(m(color.cameraToXYZD50))")
        // Where the matrices came from (the file's profile, LibRaw's Adobe matrix or rgb_cam, or the sRGB fallback).
        if let name = profile?.name { lines.append("  matrix source: \(name)") }
        if reference == nil {
            lines.append("  balanced camera → \(recipe.colorSpace.rawValue) linear (× 2^\(f(exposureStops, 2))) \(m(cameraToOutput))")
        }
        if let t = profileTables {
            lines.append("  profile \(profile?.name ?? "(unnamed)"): HueSatMap \(t.hueSatMap.map { "\($0.hueDivisions)x\($0.saturationDivisions)x\($0.valueDivisions)" } ?? "none"), LookTable \(t.lookTable.map { "\($0.hueDivisions)x\($0.saturationDivisions)x\($0.valueDivisions)" } ?? "none") (in linear ProPhoto)")
        } else if let p = profile, reference == nil { lines.append("  profile \(p.name ?? "(unnamed)"): no HueSatMap/LookTable") }
        if reference == nil, let g = gainTableMap { lines.append("  " + Self.describe(g) + ", between HueSatMap and LookTable") }
        if let r = reference {
            lines.append("\(RenderStage.span(.colour, .tone)) reference look (DNG SDK dng_render): camera → linear ProPhoto \(m(r.cameraToProPhoto)), pinned 0…1")
            if let g = r.gainTableMap { lines.append("  " + Self.describe(g) + ", after the HueSatMap, before the exposure ramp") }
            if let t = r.tables {
                lines.append("  profile \(profile?.name ?? "(unnamed)"): HueSatMap \(t.hueSatMap.map { "\($0.hueDivisions)x\($0.saturationDivisions)x\($0.valueDivisions)" } ?? "none") before, LookTable \(t.lookTable.map { "\($0.hueDivisions)x\($0.saturationDivisions)x\($0.valueDivisions)" } ?? "none") after the exposure ramp")
            }
            lines.append("  exposure ramp: white \(f(r.ramp.white)) black \(f(r.ramp.black)) (× 2^\(f(exposureStops, 2)))")
            lines.append("  tone: \(r.usesProfileToneCurve ? "ProfileToneCurve" : "ACR3 default curve")\(exposureStops < 0 ? " after exposure darkening" : ""), RGB tone (hue-preserving); ProPhoto → \(recipe.colorSpace.rawValue) linear \(m(r.proPhotoToOutput)), pinned 0…1")
        } else {
        lines.append(recipe.gamut == .preserveHue ? "\(RenderStage.gamut.label): negative components desaturated toward luminance (hue and Y kept)" : "\(RenderStage.gamut.label): per-channel clipping")
        lines.append("\(RenderStage.tone.label): \(tone.mode.rawValue)\(tone.mode == .standard ? " (\(tone.profileCurve != nil ? "ProfileToneCurve" : "y = (1+b)x/(x+b), b = \(tone.shoulder)"), headroom \(String(format: "%.2f", Double(tone.headroom))), hue-preserving)" : "")")
        }
        lines.append("\(RenderStage.encode.label): \(recipe.colorSpace.displayName), \(recipe.bitsPerSample)-bit")
        lines.append("crop \(crop), orientation \(orientation.value) (\(orientation)), output \(outputSize.width)x\(outputSize.height)")
        lines.append("schedule: tiles \(recipe.tileSize), threads \(recipe.threads == 0 ? "auto" : "\(recipe.threads)")")
        for w in warnings { lines.append("warning: \(w)") }
        return lines
    }
}
