import DarkroomCore
import Foundation

/// A flash's spectral power distribution from a CSV file (`--flash-spectrum`): one
/// `wavelength_nm,power` pair per line (comma, semicolon, tab or spaces), wavelengths strictly
/// increasing within 300–830 nm, powers finite and ≥ 0; blank lines, `#` comments and a first
/// header line that is not numeric are skipped. At most 1 MB and 10 000 samples. Its white is the
/// CIE 1931 chromaticity (`CIE1931Observer.chromaticity`).
public enum FlashSpectrum {
    public enum Failure: Error, Sendable, CustomStringConvertible, Equatable {
        case unreadable(path: String, reason: String)
        case bad(path: String, line: Int, reason: String)
        case noWhite(path: String, reason: String)
        public var description: String {
            switch self {
            case .unreadable(let p, let r): return "\(p): cannot read the spectrum (\(r))"
            case .bad(let p, let l, let r): return "\(p):\(l): \(r)"
            case .noWhite(let p, let r): return "\(p): \(r)"
            }
        }
    }

    static let maxBytes = 1 << 20
    static let maxSamples = 10_000
    /// Largest power accepted (relative units; 10 000 samples of it still sum finitely).
    static let maxPower = 1e15

    /// The samples of the CSV at `path`.
    public static func samples(path: String) throws(Failure) -> [(nm: Double, power: Double)] {
        let data: Data
        do { data = Data(try OptionFile.read(path, kind: .spectrum)) } catch { throw .unreadable(path: path, reason: error.reason) }
        guard data.count <= maxBytes else { throw .unreadable(path: path, reason: "larger than 1 MB") }
        let text = String(decoding: data, as: UTF8.self)
        var out: [(nm: Double, power: Double)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == "\t" || $0 == " " })
            let numbers = fields.prefix(2).map { Double($0) }
            guard fields.count >= 2, let nm = numbers[0], let power = numbers[1] else {
                if out.isEmpty && index == 0 { continue }  // a header
                throw .bad(path: path, line: index + 1, reason: "expected 'wavelength_nm,power', found '\(line.prefix(40))'")
            }
            guard nm.isFinite, (300...830).contains(nm) else { throw .bad(path: path, line: index + 1, reason: "wavelength \(nm) is not within 300–830 nm") }
            guard power.isFinite, power >= 0 else { throw .bad(path: path, line: index + 1, reason: "power \(power) is not a finite value ≥ 0") }
            // Relative power: any scale works, but 1e308 overflows the CIE sums to infinity.
            guard power <= maxPower else { throw .bad(path: path, line: index + 1, reason: "power \(power) is larger than \(maxPower) (scale the spectrum down)") }
            if let last = out.last, nm <= last.nm { throw .bad(path: path, line: index + 1, reason: "wavelength \(nm) does not increase") }
            guard out.count < maxSamples else { throw .bad(path: path, line: index + 1, reason: "more than \(maxSamples) samples") }
            out.append((nm, power))
        }
        guard out.count >= 2 else { throw .noWhite(path: path, reason: "needs at least two samples") }
        return out
    }

    /// The CIE 1931 x-y white of the spectrum at `path`.
    public static func white(path: String) throws(Failure) -> Chromaticity {
        let s = try samples(path: path)
        guard let xy = CIE1931Observer.chromaticity(of: s) else {
            throw .noWhite(path: path, reason: "the spectrum has no power between 380 and 780 nm")
        }
        return xy
    }
}
