import CLCMS2
import CShims
import DarkroomCore
import Foundation

/// Why an ICC profile could not be built or written. One-line messages.
public enum ICCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// lcms2 failed (`step` names the call, `reason` is lcms2's last error, if any).
    case lcms(step: String, reason: String)
    /// A profile file could not be written.
    case write(path: String, reason: String)

    public var description: String {
        switch self {
        case .lcms(let step, let reason): return "ICC profile: \(step) failed\(reason.isEmpty ? "" : " (\(reason))")"
        case .write(let path, let reason): return "\(path): cannot write ICC profile (\(reason))"
        }
    }
}

/// Builds the ICC profiles embedded in Darkroom's outputs, with lcms2.
///
/// Each profile is an ICC.1 v4.3 display-class RGB matrix/TRC profile with a D50 PCS:
/// rXYZ/gXYZ/bXYZ are the space's primaries Bradford-adapted to D50, `chad` holds the
/// adaptation from the space's own white, `wtpt` is D50, the TRCs are the space's
/// `TransferFunction.iccParametric` curve (`para`), `desc` is `OutputColorSpace.displayName` and
/// `cprt` names Darkroom. Profiles are byte-deterministic: the creation date is fixed to
/// `creationDate` and the profile ID is the MD5 of the final bytes (ICC.1 §7.2.18).
public enum ICCProfileFactory {
    /// The creation date written into every profile header (year, month, day, hour, minute, second).
    public static let creationDate: [UInt16] = [2025, 1, 1, 0, 0, 0]
    /// The `cprt` text.
    public static let copyright = "Darkroom. No copyright, use freely."

    private static let cacheLock = NSLock()
    nonisolated(unsafe) private static var cache: [OutputColorSpace: [UInt8]] = [:]

    /// The profile for `space` (built once per process, then cached).
    public static func profile(for space: OutputColorSpace) throws -> [UInt8] {
        cacheLock.lock()
        let cached = cache[space]
        cacheLock.unlock()
        if let cached { return cached }
        let bytes = try generate(space)
        cacheLock.lock()
        cache[space] = bytes
        cacheLock.unlock()
        return bytes
    }

    /// Writes every space's profile to `dir/<iccFileName>` (creating `dir` if needed).
    public static func writeAll(to dir: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw ICCError.write(path: dir, reason: error.localizedDescription)
        }
        for space in OutputColorSpace.allCases {
            let path = (dir as NSString).appendingPathComponent(space.iccFileName)
            let bytes = try profile(for: space)
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw ICCError.write(path: path, reason: error.localizedDescription)
            }
        }
    }

    // MARK: Generation

    /// An owned lcms2 profile handle.
    private struct Profile: ~Copyable {
        let handle: cmsHPROFILE
        init(_ handle: cmsHPROFILE?, step: String) throws(ICCError) {
            guard let handle else { throw ICCProfileFactory.failure(step) }
            self.handle = handle
        }
        deinit { cmsCloseProfile(handle) }

        func save() throws(ICCError) -> [UInt8] {
            var size: cmsUInt32Number = 0
            guard cmsSaveProfileToMem(handle, nil, &size) != 0, size > 128 else {
                throw ICCProfileFactory.failure("cmsSaveProfileToMem (size)")
            }
            var bytes = [UInt8](repeating: 0, count: Int(size))
            let ok = bytes.withUnsafeMutableBytes { cmsSaveProfileToMem(handle, $0.baseAddress, &size) }
            guard ok != 0 else { throw ICCProfileFactory.failure("cmsSaveProfileToMem") }
            return Array(bytes.prefix(Int(size)))
        }
    }

    private static func failure(_ step: String) -> ICCError {
        return .lcms(step: step, reason: String(cString: dr_lcms_last_error()))
    }

    private static func writeText(_ profile: borrowing Profile, _ tag: cmsTagSignature, _ text: String) throws(ICCError) {
        guard let mlu = cmsMLUalloc(nil, 1) else { throw failure("cmsMLUalloc") }
        defer { cmsMLUfree(mlu) }
        guard cmsMLUsetASCII(mlu, "en", "US", text) != 0, cmsWriteTag(profile.handle, tag, UnsafeRawPointer(mlu)) != 0 else {
            throw failure("writing text tag")
        }
    }

    /// Builds a fresh profile for `space` (uncached).
    static func generate(_ space: OutputColorSpace) throws(ICCError) -> [UInt8] {
        dr_lcms_install_handler()
        var white = cmsCIExyY(x: space.white.x, y: space.white.y, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: space.red.x, y: space.red.y, Y: 1),
            Green: cmsCIExyY(x: space.green.x, y: space.green.y, Y: 1),
            Blue: cmsCIExyY(x: space.blue.x, y: space.blue.y, Y: 1))
        let (iccType, parameters) = space.transfer.iccParametric
        // lcms2 numbers ICC parametric types from 1: ICC type 0 (gamma) = 1, ICC type 3 = 4.
        let lcmsType: cmsInt32Number = iccType == 0 ? 1 : 4
        guard let curve = parameters.withUnsafeBufferPointer({ cmsBuildParametricToneCurve(nil, lcmsType, $0.baseAddress) }) else {
            throw failure("cmsBuildParametricToneCurve")
        }
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]

        let first = try Profile(curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) },
                                step: "cmsCreateRGBProfile")
        cmsSetProfileVersion(first.handle, 4.3)
        cmsSetDeviceClass(first.handle, cmsSigDisplayClass)
        cmsSetHeaderRenderingIntent(first.handle, cmsUInt32Number(INTENT_PERCEPTUAL))
        cmsSetHeaderFlags(first.handle, 0)
        try writeText(first, cmsSigProfileDescriptionTag, space.displayName)
        try writeText(first, cmsSigCopyrightTag, copyright)
        var bytes = try first.save()

        // Fix the creation date (header bytes 24–35, six big-endian UInt16), clear the ID, then
        // reopen so lcms2 carries the fixed date, compute the MD5 profile ID and save again.
        for (i, v) in creationDate.enumerated() {
            bytes[24 + 2 * i] = UInt8(v >> 8)
            bytes[25 + 2 * i] = UInt8(v & 0xFF)
        }
        for i in 84..<100 { bytes[i] = 0 }
        let count = cmsUInt32Number(bytes.count)
        let second = try Profile(bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, count) },
                                 step: "cmsOpenProfileFromMem")
        guard cmsMD5computeID(second.handle) != 0 else { throw failure("cmsMD5computeID") }
        return try second.save()
    }
}
