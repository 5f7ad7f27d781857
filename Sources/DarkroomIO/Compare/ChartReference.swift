import DarkroomCore
import Foundation

/// The reference colours of a ColorChecker 24's patches, in chart order.
///
/// - `colorchecker24`: BabelColor's average spectral reflectances (`ColorCheckerClassic`), turned
///   into XYZ under the comparison's illuminant spectrum (`Spectral.xyz`, perfect diffuser Y = 1)
///   and adapted to the D50 PCS with the linear Bradford transform from the spectrum's own white,
///   as the DNG colour model adapts a scene white to D50 (`ColorMath.bradford`).
/// - A CGATS file (`.ti3`, `.cie`, `.txt`): spectral fields (`SPEC_380`…, `SPECTRAL_380`…,
///   `NM380`…; 0…1 or 0…100), which are treated like the built-in spectra; otherwise `XYZ_X/Y/Z`
///   (0…100 or 0…1) or `LAB_L/A/B`, taken as D50-relative colorimetry (the ICC convention) and used
///   as they are under every illuminant. Patches are matched by `SAMPLE_ID`/`SAMPLE_NAME` A1…F4
///   (letter = column, digit = row, A1 = dark skin) when the file names all 24 that way, otherwise
///   taken as the first 24 rows in chart order.
public struct ChartReference: Sendable {
    /// "colorchecker24" or the file's path.
    public var name: String
    /// Patch identifiers (A1…F4) and names.
    public var ids: [String]
    public var names: [String]
    enum Values: Sendable {
        case spectral([SampledSpectrum])
        case colorimetric([SIMD3<Double>])
    }
    var values: Values

    /// True when the reference depends on the illuminant (spectral data).
    public var isSpectral: Bool { if case .spectral = values { return true } else { return false } }

    /// The built-in ColorChecker 24 (BabelColor average spectra).
    public static let colorChecker24 = ChartReference(
        name: "colorchecker24", ids: ColorCheckerClassic.ids, names: ColorCheckerClassic.names,
        values: .spectral((0..<24).map(ColorCheckerClassic.reflectance)))

    /// Largest magnitude accepted for a CGATS number (reflectance 0…100 %, XYZ 0…100, L*a*b* within
    /// a few hundred): anything larger is damage, and would overflow the colour maths.
    public static let maximumValue = 1000.0

    /// `colorchecker24` or a CGATS file.
    public static func load(_ spec: String) throws(CompareError) -> ChartReference {
        if spec.lowercased() == "colorchecker24" { return colorChecker24 }
        let data: Data
        do { data = Data(try OptionFile.read(spec, kind: .chartReference)) } catch { throw .reference(path: spec, reason: error.reason) }
        guard data.count <= CGATSFile.maximumBytes else { throw .reference(path: spec, reason: "\(data.count) bytes is too large for a chart file") }
        guard let text = String(data: data, encoding: .utf8) ?? String(data: data, encoding: .isoLatin1) else {
            throw .reference(path: spec, reason: "not text")
        }
        let file: CGATSFile
        do { file = try CGATSFile(text: text) } catch { throw .reference(path: spec, reason: "not a CGATS file: \(error.description)") }
        return try fromCGATS(file, path: spec)
    }

    public static func fromCGATS(_ file: CGATSFile, path: String) throws(CompareError) -> ChartReference {
        guard file.rows.count >= 24 else { throw .reference(path: path, reason: "\(file.rows.count) patches, a ColorChecker 24 needs 24") }
        // Row for each chart patch: by id when all 24 ids are there, else the first 24 rows.
        var order = Array(0..<24)
        if let idField = file.field("SAMPLE_ID", "SAMPLE_NAME", "SAMPLE_LOC") {
            let ids = file.rows.map { $0[idField].uppercased() }
            let byID = ColorCheckerClassic.ids.compactMap { id in ids.firstIndex(of: id) }
            if byID.count == 24 { order = byID }
        }
        func number(_ row: Int, _ field: Int, _ what: String) throws(CompareError) -> Double {
            guard let v = Double(file.rows[row][field]), v.isFinite else {
                throw .reference(path: path, reason: "\(what) '\(file.rows[row][field])' of row \(row + 1) is not a number")
            }
            // Finite is not enough: 1e300 overflows the colour maths (Lab cubes, spectral sums).
            guard abs(v) <= maximumValue else {
                throw .reference(path: path, reason: "\(what) \(file.rows[row][field]) of row \(row + 1) is outside ±\(Int(maximumValue))")
            }
            return v
        }
        /// Every patch's XYZ must be finite (checked after conversion too, not only on input).
        func checked(_ reference: ChartReference) throws(CompareError) -> ChartReference {
            for (i, xyz) in reference.xyzD50(illuminant: Spectral.d50).enumerated()
            where !(xyz.x.isFinite && xyz.y.isFinite && xyz.z.isFinite) {
                throw .reference(path: path, reason: "patch \(reference.ids[i]) has no finite XYZ (\(xyz.x), \(xyz.y), \(xyz.z))")
            }
            return reference
        }
        // Spectral fields.
        var spectralFields: [(nm: Double, index: Int)] = []
        for (i, f) in file.fields.enumerated() {
            for prefix in ["SPEC_", "SPECTRAL_", "NM", "SPECTRAL_NM"] where f.hasPrefix(prefix) {
                if let nm = Double(f.dropFirst(prefix.count)), (300...900).contains(nm) { spectralFields.append((nm, i)) }
            }
        }
        spectralFields.sort { $0.nm < $1.nm }
        if spectralFields.count >= 4 {
            let step = spectralFields[1].nm - spectralFields[0].nm
            guard step > 0, zip(spectralFields, spectralFields.dropFirst()).allSatisfy({ abs($1.nm - $0.nm - step) < 1e-6 }) else {
                throw .reference(path: path, reason: "spectral fields are not evenly spaced")
            }
            var rows: [[Double]] = []
            for r in order {
                var v: [Double] = []
                for f in spectralFields { v.append(try number(r, f.index, "reflectance")) }
                rows.append(v)
            }
            let scale = (rows.flatMap { $0 }.max() ?? 0) > 2 ? 0.01 : 1
            let spectra = rows.map { SampledSpectrum.resampled($0.map { $0 * scale }, start: spectralFields[0].nm, step: step) }
            return try checked(ChartReference(name: path, ids: ColorCheckerClassic.ids, names: ColorCheckerClassic.names, values: .spectral(spectra)))
        }
        if let x = file.field("XYZ_X"), let y = file.field("XYZ_Y"), let z = file.field("XYZ_Z") {
            var xyz: [SIMD3<Double>] = []
            for r in order { xyz.append(SIMD3(try number(r, x, "XYZ_X"), try number(r, y, "XYZ_Y"), try number(r, z, "XYZ_Z"))) }
            let scale = (xyz.map(\.y).max() ?? 0) > 2 ? 0.01 : 1
            return try checked(ChartReference(name: path, ids: ColorCheckerClassic.ids, names: ColorCheckerClassic.names,
                                              values: .colorimetric(xyz.map { $0 * scale })))
        }
        if let l = file.field("LAB_L"), let a = file.field("LAB_A"), let b = file.field("LAB_B") {
            var xyz: [SIMD3<Double>] = []
            for r in order {
                let lab = SIMD3(try number(r, l, "LAB_L"), try number(r, a, "LAB_A"), try number(r, b, "LAB_B"))
                xyz.append(ColorMath.labToXYZ(lab, white: ColorMath.d50))
            }
            return try checked(ChartReference(name: path, ids: ColorCheckerClassic.ids, names: ColorCheckerClassic.names, values: .colorimetric(xyz)))
        }
        throw .reference(path: path, reason: "no SPEC_/SPECTRAL_/NM spectral fields, XYZ_X/Y/Z or LAB_L/A/B")
    }

    /// The reference XYZ (D50 PCS, perfect diffuser Y = 1) of every patch under `illuminant`.
    public func xyzD50(illuminant: SampledSpectrum) -> [SIMD3<Double>] {
        switch values {
        case .colorimetric(let v): return v
        case .spectral(let spectra):
            let adapt = ColorMath.bradford(from: Spectral.chromaticity(illuminant), to: ColorMath.d50)
            return spectra.map { adapt * Spectral.xyz(reflectance: $0, illuminant: illuminant) }
        }
    }
}
