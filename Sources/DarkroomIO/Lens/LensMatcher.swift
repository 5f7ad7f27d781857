import CLensfun
import DarkroomCore
import Foundation

/// Resolves `--lens` for one decoded file: identifies the camera and lens from the
/// metadata (EXIF Make/Model, LensMake/LensModel as LibRaw or the DNG reader found them, focal
/// length, f-number), finds them in the lensfun database and builds the lens model.
///
/// Nothing is looked up (and the database is not even loaded) when the recipe says `off` or the
/// file names no lens; a file with no matching camera and lens gets no correction and a reason.
enum LensMatcher {
    /// The correction for `raw` under `spec`. `opcodes` are the file's parsed OpcodeList2/3 and
    /// `opcodesApplied` says which of them the render applies: with `auto`, a file whose applied
    /// lists warp or devignette (WarpRectilinear, WarpRectilinear2, WarpFisheye, FixVignetteRadial)
    /// was corrected by its writer and is not corrected again.
    static func correction(for raw: RawImage, spec: LensCorrectionSpec, opcodes: ParsedOpcodeLists,
                           opcodesApplied: Set<Int>) -> LensCorrection {
        if spec == .off { return .none(spec, reason: "off") }
        if spec == .auto, let op = correctionOpcode(opcodes, applied: opcodesApplied) {
            return .none(spec, reason: "the file's \(op) already corrects the lens")
        }
        let exif = raw.metadata.exif
        guard let make = exif.make, let model = exif.model else {
            return .none(spec, reason: "no camera make and model in the metadata")
        }
        guard let lensName = exif.lensModel, !lensName.isEmpty else {
            return .none(spec, reason: "no lens model in the metadata")
        }
        let db: LensDatabase
        switch LensDatabase.shared {
        case .success(let d): db = d
        case .failure(let e): return .none(spec, reason: e.description)
        }
        guard let camera = db.camera(maker: make, model: model) else {
            return .none(spec, reason: "camera '\(make) \(model)' is not in the lensfun database")
        }
        guard let lens = db.lens(camera: camera, maker: exif.lensMake, model: lensName) else {
            return .none(spec, reason: "lens '\(lensName)' is not in the lensfun database for the \(make) \(model)")
        }
        let l = lens.pointee
        // Focal length: the file's, else a prime lens's own.
        var focal = exif.focalLength ?? 0
        if !(focal > 0 && focal.isFinite), l.MinFocal > 0, l.MinFocal == l.MaxFocal { focal = Double(l.MinFocal) }
        let aperture = exif.fNumber.flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
        let crop = Double(camera.pointee.CropFactor)
        let distance = focusDistance(xmp: exif.xmp)
        var distortion = lfLensCalibDistortion()
        let distortionModel: String? = focal > 0 && lf_lens_interpolate_distortion(lens, Float(focal), &distortion) != 0
            ? modelName(distortion.Model) : nil
        let match = LensCorrection.Match(
            cameraMaker: LensDatabase.string(camera.pointee.Maker), cameraModel: LensDatabase.string(camera.pointee.Model),
            cropFactor: crop, lensMaker: LensDatabase.string(l.Maker), lensModel: LensDatabase.string(l.Model),
            focalLength: focal, aperture: aperture, distanceMetres: distance ?? LensCorrection.defaultDistanceMetres,
            distanceAssumed: distance == nil, distortionModel: distortionModel)
        guard focal > 0, focal.isFinite else {
            return .none(spec, reason: "no focal length in the metadata", match: match)
        }
        // Values from the file go to lensfun as Float: refuse absurd ones (no lens is longer than 10 m).
        guard focal <= 10_000, (aperture ?? 1) <= 1_000 else {
            return .none(spec, reason: "focal length or aperture out of range in the metadata", match: match)
        }
        guard crop > 0, crop.isFinite else {
            return .none(spec, reason: "the database gives the camera no crop factor", match: match)
        }

        var requested = spec.requested
        var unavailable = Set<LensCorrectionKind>()
        if aperture == nil && requested.contains(.vignetting) {
            // lensfun's vignetting depends on the aperture: without one it is not corrected.
            requested.remove(.vignetting)
            unavailable.insert(.vignetting)
        }
        var flags: Int32 = 0
        if requested.contains(.distortion) { flags |= Int32(LF_MODIFY_DISTORTION) }
        if requested.contains(.tca) { flags |= Int32(LF_MODIFY_TCA) }
        if requested.contains(.vignetting) { flags |= Int32(LF_MODIFY_VIGNETTING) }
        func build(scale: Float) -> LensfunModifier? {
            LensfunModifier(lens: lens, cropFactor: Float(crop), width: raw.width, height: raw.height, focal: Float(focal),
                            aperture: Float(aperture ?? 8), distance: Float(match.distanceMetres),
                            scale: scale, flags: flags)
        }
        guard flags != 0, var modifier = build(scale: 1) else {
            return LensCorrection(spec: spec, match: match, applied: [], unavailable: unavailable,
                                  reason: flags == 0 ? "no aperture in the metadata for vignetting" : "lensfun could not set up the lens model",
                                  modifier: nil)
        }
        var applied = Set<LensCorrectionKind>()
        if modifier.appliedFlags & Int32(LF_MODIFY_DISTORTION) != 0 { applied.insert(.distortion) }
        if modifier.appliedFlags & Int32(LF_MODIFY_TCA) != 0 { applied.insert(.tca) }
        if modifier.appliedFlags & Int32(LF_MODIFY_VIGNETTING) != 0 { applied.insert(.vignetting) }
        unavailable.formUnion(requested.subtracting(applied))
        guard !applied.isEmpty else {
            return LensCorrection(spec: spec, match: match, applied: [], unavailable: unavailable,
                                  reason: "the database has no \(requested.sorted().map(\.rawValue).joined(separator: ", ")) data for this lens",
                                  modifier: nil)
        }
        // Geometric corrections: lensfun's automatic scale, so the corrected frame stays inside the source.
        var scale: Float = 1
        if applied.contains(.distortion) || applied.contains(.tca) {
            let auto = modifier.autoScale
            if auto.isFinite, auto > 0, auto != 1, let scaled = build(scale: auto) {
                modifier = scaled
                scale = auto
            }
        }
        // Positions from a fixed grid of lensfun's, interpolated (LensfunModifier.buildGrid).
        modifier.buildGrid()
        return LensCorrection(spec: spec, match: match, applied: applied, unavailable: unavailable, reason: nil,
                              scale: Double(scale), modifier: modifier)
    }

    /// The focus distance in metres from the XMP packet's `aux:ApproximateFocusDistance` (what
    /// Adobe's converters record from the maker notes; a rational such as "148/100"), limited to
    /// `LensCorrection.defaultDistanceMetres` (4294967295/1 means infinity); nil when absent or
    /// not a positive number.
    static func focusDistance(xmp: String?) -> Double? {
        guard let xmp, let key = xmp.range(of: "ApproximateFocusDistance") else { return nil }
        // Attribute form `…Distance="v"` or element form `…Distance>v<`.
        var rest = xmp[key.upperBound...].drop(while: { $0 == " " || $0 == "=" || $0 == ">" || $0 == "\"" })
        rest = rest.prefix(while: { $0 != "\"" && $0 != "<" })
        let text = rest.trimmingCharacters(in: .whitespaces)
        guard text.count <= 40 else { return nil }
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        var value: Double?
        if parts.count == 1 { value = Double(parts[0]) }
        if parts.count == 2, let n = Double(parts[0]), let d = Double(parts[1]), d != 0 { value = n / d }
        guard let v = value, v.isFinite, v > 0 else { return nil }
        return min(v, LensCorrection.defaultDistanceMetres)
    }

    /// The first lens-correcting opcode in the lists the render applies, by name.
    static func correctionOpcode(_ opcodes: ParsedOpcodeLists, applied: Set<Int>) -> String? {
        for (n, list) in [(2, opcodes.list2), (3, opcodes.list3)] where applied.contains(n) {
            guard case .success(let l)? = list else { continue }
            for op in l.opcodes {
                switch op {
                case .warpRectilinear: return "OpcodeList\(n) WarpRectilinear"
                case .warpRectilinear2: return "OpcodeList\(n) WarpRectilinear2"
                case .warpFisheye: return "OpcodeList\(n) WarpFisheye"
                case .fixVignetteRadial: return "OpcodeList\(n) FixVignetteRadial"
                default: continue
                }
            }
        }
        return nil
    }

    private static func modelName(_ m: lfDistortionModel) -> String? {
        switch m {
        case LF_DIST_MODEL_POLY3: return "poly3"
        case LF_DIST_MODEL_POLY5: return "poly5"
        case LF_DIST_MODEL_PTLENS: return "ptlens"
        default: return nil
        }
    }
}
