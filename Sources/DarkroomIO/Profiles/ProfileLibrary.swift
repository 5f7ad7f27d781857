import DarkroomCore
import DarkroomNeural
import Foundation

/// Why a camera profile could not be chosen. One line, naming the file.
public enum ProfileLibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case notAProfile(path: String, reason: String)
    case nameNotFound(name: String, offered: [String])

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): return "\(path): cannot read camera profile (\(reason))"
        case .notAProfile(let path, let reason): return "\(path): not a DNG camera profile (.dcp): \(reason)"
        case .nameNotFound(let name, let offered):
            return "camera profile '\(name)' not found; offered: \(offered.isEmpty ? "none" : offered.joined(separator: ", "))"
        }
    }
}

/// Chooses the camera profile a file is developed with, from the profiles embedded in it and
/// external DNG camera profiles (`.dcp`, the TIFF-structured format of Adobe's DNG Profile
/// Editor, magic "IIRC"/"MMCR").
///
/// Precedence in `resolve`: an explicit file (`--profile FILE.dcp`) > a profile name
/// (`--profile-name`, matched exactly, then case-insensitively, against the embedded profiles
/// — `metadata.profile` then `extraProfiles` — then the matching external ones) > the first
/// `.dcp` (sorted by path) in the search directories whose UniqueCameraModel equals the file's
/// > nil (develop with the file's own profile).
public enum ProfileLibrary {
    /// One profile a file can be developed with.
    public struct Entry: Sendable, Equatable {
        public var name: String
        /// "embedded", "extra" (ExtraCameraProfiles) or the `.dcp` path.
        public var source: String
        public var profile: CameraProfile
    }

    /// The default directories searched for `.dcp` files: `Profiles` (relative to the working
    /// directory, as in the source tree), then the installed `PREFIX/share/darkroom/profiles`
    /// beside an installed executable (`ModelLocator.installedDataDirectory`).
    public static let defaultSearchDirectories: [String] =
        ["Profiles"] + (ModelLocator.installedDataDirectory.map { [($0 as NSString).appendingPathComponent("profiles")] } ?? [])

    /// Reads a `.dcp` file; the profile's name is its ProfileName, else the file name without extension.
    public static func readDCP(path: String) throws(ProfileLibraryError) -> (profile: CameraProfile, uniqueCameraModel: String?) {
        let bytes: [UInt8]
        do { bytes = try OptionFile.read(path, kind: .cameraProfile) } catch {
            switch error {
            case .wrongHeader: throw .notAProfile(path: path, reason: "no IIRC/MMCR header")
            default: throw .unreadable(path: path, reason: error.reason)
            }
        }
        do {
            var profile = try DNGMetadataReader.readDCP(bytes)
            let file = try TIFFFile(bytes: bytes, acceptedMagic: [TIFFFile.dcpMagic])
            let model = try file.ifd0?.string(TIFFTag.uniqueCameraModel)
            if profile.name == nil || profile.name?.isEmpty == true {
                profile.name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            }
            guard profile.colorMatrix1 != nil || profile.colorMatrix2 != nil || profile.hueSatMapDims != nil
                    || profile.lookTableDims != nil || profile.toneCurve != nil else {
                throw ProfileLibraryError.notAProfile(path: path, reason: "no ColorMatrix, HueSatMap, LookTable or ProfileToneCurve")
            }
            if let problem = valueProblem(profile) { throw ProfileLibraryError.notAProfile(path: path, reason: problem) }
            return (profile, model)
        } catch let e as ProfileLibraryError {
            throw e
        } catch {
            throw .notAProfile(path: path, reason: "\(error)")
        }
    }

    /// Largest magnitude accepted for a matrix entry (real ColorMatrix/ForwardMatrix entries are
    /// within ±5) and for a HueSatMap/LookTable entry (hue shifts in degrees, scales near 1):
    /// finite values beyond these are damage and overflow the colour maths (inverses, Lab).
    public static let maximumMatrixEntry = 1000.0
    public static let maximumTableEntry: Float = 10_000

    /// The first number of `profile` that cannot enter the colour maths, described; nil when all can.
    public static func valueProblem(_ profile: CameraProfile) -> String? {
        let matrices: [(String, Matrix3?)] = [
            ("ColorMatrix1", profile.colorMatrix1), ("ColorMatrix2", profile.colorMatrix2), ("ColorMatrix3", profile.colorMatrix3),
            ("ForwardMatrix1", profile.forwardMatrix1), ("ForwardMatrix2", profile.forwardMatrix2), ("ForwardMatrix3", profile.forwardMatrix3)]
        for (name, m) in matrices {
            guard let m else { continue }
            if let i = m.m.firstIndex(where: { !$0.isFinite || abs($0) > maximumMatrixEntry }) {
                return "\(name) entry \(i + 1) is \(m.m[i]), outside ±\(Int(maximumMatrixEntry))"
            }
        }
        let tables: [(String, [Float]?)] = [
            ("ProfileHueSatMapData1", profile.hueSatMapData1), ("ProfileHueSatMapData2", profile.hueSatMapData2),
            ("ProfileHueSatMapData3", profile.hueSatMapData3), ("ProfileLookTableData", profile.lookTableData),
            ("ProfileToneCurve", profile.toneCurve)]
        for (name, t) in tables {
            guard let t else { continue }
            if let i = t.firstIndex(where: { !$0.isFinite || abs($0) > maximumTableEntry }) {
                return "\(name) value \(i + 1) is \(t[i]), outside ±\(Int(maximumTableEntry))"
            }
        }
        if let b = profile.baselineExposureOffset, !(b.isFinite && abs(b) <= 100) {
            return "BaselineExposureOffset \(b) is outside ±100 stops"
        }
        return nil
    }

    /// The `.dcp` files in `directories` (not recursive, sorted) whose UniqueCameraModel equals
    /// the file's (`metadata.uniqueCameraModel`, else "Make Model"). Unreadable files are skipped.
    public static func external(metadata: RawMetadata, searchDirectories: [String]) -> [Entry] {
        let model = cameraModel(metadata)
        guard !model.isEmpty else { return [] }
        var out: [Entry] = []
        for dir in searchDirectories {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
            for name in names.sorted() where name.lowercased().hasSuffix(".dcp") {
                let path = (dir as NSString).appendingPathComponent(name)
                guard let dcp = try? readDCP(path: path),
                      let m = dcp.uniqueCameraModel, m.trimmingCharacters(in: .whitespaces) == model else { continue }
                out.append(Entry(name: dcp.profile.name ?? name, source: path, profile: dcp.profile))
            }
        }
        return out
    }

    /// The profiles embedded in the file (its own, then ExtraCameraProfiles); an unnamed one is "Embedded".
    public static func embedded(metadata: RawMetadata) -> [Entry] {
        var out: [Entry] = []
        if let p = metadata.profile { out.append(Entry(name: p.name ?? "Embedded", source: "embedded", profile: p)) }
        for (i, p) in metadata.extraProfiles.enumerated() {
            out.append(Entry(name: p.name ?? "Extra \(i + 1)", source: "extra", profile: p))
        }
        return out
    }

    /// Every profile the file offers: embedded ones, then matching external ones.
    public static func entries(metadata: RawMetadata, searchDirectories: [String] = defaultSearchDirectories) -> [Entry] {
        embedded(metadata: metadata) + external(metadata: metadata, searchDirectories: searchDirectories)
    }

    /// The names of the profiles the file offers (embedded, then matching `.dcp` in the search directories).
    public static func list(metadata: RawMetadata, searchDirectories: [String] = defaultSearchDirectories) -> [String] {
        entries(metadata: metadata, searchDirectories: searchDirectories).map(\.name)
    }

    /// The profile to develop with (see the type's precedence), or nil for the file's own.
    public static func resolve(metadata: RawMetadata, profilePath: String?, profileName: String?,
                               searchDirectories: [String] = defaultSearchDirectories) throws(ProfileLibraryError) -> CameraProfile? {
        if let profilePath { return try readDCP(path: profilePath).profile }
        if let profileName {
            let all = entries(metadata: metadata, searchDirectories: searchDirectories)
            if let e = all.first(where: { $0.name == profileName }) { return e.profile }
            if let e = all.first(where: { $0.name.caseInsensitiveCompare(profileName) == .orderedSame }) { return e.profile }
            throw .nameNotFound(name: profileName, offered: all.map(\.name))
        }
        return external(metadata: metadata, searchDirectories: searchDirectories).first?.profile
    }

    static func cameraModel(_ m: RawMetadata) -> String {
        if let u = m.uniqueCameraModel?.trimmingCharacters(in: .whitespaces), !u.isEmpty { return u }
        return [m.exif.make, m.exif.model].compactMap { $0 }.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
