import DarkroomCore
import Foundation

/// The value grammars entries share: one parser per kind, used for flags and YAML alike.
extension RecipeSchema {
    /// A raw value as one trimmed scalar.
    static func scalar(_ raw: RecipeRawValue) throws(Reason) -> String {
        switch raw {
        case .text(let t): return t.trimmingCharacters(in: .whitespaces)
        case .flag(let b): return b ? "true" : "false"
        case .sequence: throw Reason("must be a single value, not a list")
        case .mapping: throw Reason("must be a single value, not a mapping (quote text with braces: \"{stem}\")")
        }
    }

    /// `true`/`false` (also yes/no, on/off, as YAML 1.1 spells them).
    static func bool(_ raw: RecipeRawValue) throws(Reason) -> Bool {
        if case .flag(let b) = raw { return b }
        switch try scalar(raw).lowercased() {
        case "true", "yes", "on": return true
        case "false", "no", "off": return false
        case let t: throw Reason("must be true or false (got '\(t)')")
        }
    }

    /// A decimal integer within `range`.
    static func integer(_ raw: RecipeRawValue, _ range: ClosedRange<Int>) throws(Reason) -> Int {
        let t = try scalar(raw)
        guard let v = Int(t) else { throw Reason("'\(t)' is not an integer in \(range.lowerBound)…\(range.upperBound)") }
        guard range.contains(v) else { throw Reason("must be \(range.lowerBound)…\(range.upperBound) (got \(t))") }
        return v
    }

    /// A finite number within `range`.
    static func number(_ raw: RecipeRawValue, _ range: ClosedRange<Double>) throws(Reason) -> Double {
        let t = try scalar(raw)
        guard let v = Double(t), v.isFinite else { throw Reason("'\(t)' is not a finite number in \(num(range.lowerBound))…\(num(range.upperBound))") }
        guard range.contains(v) else { throw Reason("must be \(num(range.lowerBound))…\(num(range.upperBound)) (got \(t))") }
        return v
    }

    /// One of `values` (case-insensitive; `aliases` map other spellings to a value).
    static func choice(_ raw: RecipeRawValue, _ values: [String], aliases: [String: String] = [:]) throws(Reason) -> String {
        let t = try scalar(raw).lowercased()
        if values.contains(t) { return t }
        if let a = aliases[t] { return a }
        throw Reason("'\(t)' is not one of \(values.joined(separator: ", "))")
    }

    /// A comma-separated text or a YAML sequence, each item one of `values` (aliases allowed),
    /// duplicates removed, order kept.
    static func choices(_ raw: RecipeRawValue, _ values: [String], aliases: [String: String] = [:],
                        allowEmpty: Bool) throws(Reason) -> [String] {
        let items: [String]
        switch raw {
        case .text(let t): items = t.split(separator: ",").map { String($0) }
        case .sequence(let s): items = s
        case .flag: throw Reason("needs a value")
        case .mapping: throw Reason("must be a list, not a mapping")
        }
        var out: [String] = []
        for item in items {
            let t = item.trimmingCharacters(in: .whitespaces).lowercased()
            if t.isEmpty { continue }
            guard let v = values.contains(t) ? t : aliases[t] else {
                throw Reason("unknown value '\(t)' (\(values.joined(separator: ", ")))")
            }
            if !out.contains(v) { out.append(v) }
        }
        if out.isEmpty && !allowEmpty { throw Reason("give at least one of \(values.joined(separator: ", "))") }
        return out
    }

    /// A YAML mapping, or repeated `KEY=VALUE` texts, as pairs (later pairs win).
    static func pairs(_ raw: RecipeRawValue, what: String) throws(Reason) -> [(String, String)] {
        switch raw {
        case .mapping(let m): return m
        case .sequence(let items):
            var out: [(String, String)] = []
            for item in items {
                let p = item.split(separator: "=", maxSplits: 1).map(String.init)
                guard p.count == 2, !p[0].isEmpty, !p[1].isEmpty else { throw Reason("must be \(what) (got '\(item)')") }
                out.append((p[0], p[1]))
            }
            return out
        case .text(let item):
            return try pairs(.sequence([item]), what: what)
        case .flag: throw Reason("needs a value")
        }
    }

    /// A size in bytes: a number with an optional binary suffix K, M, G or T (e.g. 4G, 512M,
    /// 1.5G, 1048576), 1 byte … 1 EiB; the product is checked before conversion.
    static func byteSize(_ raw: RecipeRawValue) throws(Reason) -> Int64 {
        let original = try scalar(raw)
        var t = original.uppercased()
        if t.hasSuffix("IB") { t.removeLast(2) } else if t.hasSuffix("B") { t.removeLast() }
        var mult = 1.0
        switch t.last {
        case "K": mult = 1024; t.removeLast()
        case "M": mult = 1_048_576; t.removeLast()
        case "G": mult = 1_073_741_824; t.removeLast()
        case "T": mult = 1_099_511_627_776; t.removeLast()
        default: break
        }
        let limit = Double(1 << 60)
        guard let v = Double(t), v.isFinite, v > 0 else {
            throw Reason("must be a size like 4G, 512M or 1048576 (got '\(original)')")
        }
        let bytes = (v * mult).rounded(.down)
        guard bytes >= 1, bytes <= limit else { throw Reason("must be 1 byte … 1 EiB (got '\(original)')") }
        return Int64(bytes)
    }

    /// `WIDTHxHEIGHT`, each 16…65535.
    static func imageSize(_ raw: RecipeRawValue) throws(Reason) -> (width: Int, height: Int) {
        let t = try scalar(raw)
        let p = t.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard p.count == 2, let w = Int(p[0]), let h = Int(p[1]) else { throw Reason("must be WIDTHxHEIGHT, e.g. 4032x3024 (got '\(t)')") }
        guard (16...65535).contains(w), (16...65535).contains(h) else { throw Reason("each side must be 16…65535 (got '\(t)')") }
        return (w, h)
    }

    /// A number as recipe text: integral values without a fraction (`0`, `-1`), others as Swift prints them.
    static func num(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}
