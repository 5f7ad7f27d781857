import Foundation

/// A CGATS.17 / ANSI CGATS text file as ArgyllCMS (`.ti3`, `.cie`) and X-Rite / i1Profiler
/// (`.txt`) write them: a file-type line, `KEYWORD value` header lines, a field list between
/// `BEGIN_DATA_FORMAT` and `END_DATA_FORMAT`, and whitespace-separated rows between `BEGIN_DATA`
/// and `END_DATA` (strings may be double-quoted). Only the first table is read.
public struct CGATSFile: Sendable, Equatable {
    /// Header keywords and values (quotes removed), in file order.
    public var header: [(key: String, value: String)]
    /// Field names, upper-cased.
    public var fields: [String]
    /// Rows of `fields.count` values.
    public var rows: [[String]]

    public static func == (a: CGATSFile, b: CGATSFile) -> Bool {
        a.fields == b.fields && a.rows == b.rows && a.header.map(\.key) == b.header.map(\.key) && a.header.map(\.value) == b.header.map(\.value)
    }

    /// Why a file is not a usable CGATS table; one line.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var reason: String
        public var line: Int
        public var description: String { "line \(line): \(reason)" }
    }

    /// Largest file accepted (a CGATS chart file is kilobytes; this bounds hostile input).
    public static let maximumBytes = 16 << 20

    public init(text: String) throws(ParseError) {
        var header: [(String, String)] = []
        var fields: [String] = []
        var rows: [[String]] = []
        enum State { case header, format, data, done }
        var state = State.header
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" }).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let tokens = Self.tokens(line)
            guard let first = tokens.first else { continue }
            switch state {
            case .header:
                if first == "BEGIN_DATA_FORMAT" {
                    state = .format
                    fields += tokens.dropFirst().map { $0.uppercased() }
                } else if first == "BEGIN_DATA" {
                    guard !fields.isEmpty else { throw ParseError(reason: "BEGIN_DATA before BEGIN_DATA_FORMAT", line: number + 1) }
                    state = .data
                } else {
                    header.append((first, tokens.dropFirst().joined(separator: " ")))
                }
            case .format:
                if first == "END_DATA_FORMAT" { state = .header } else { fields += tokens.map { $0.uppercased() } }
            case .data:
                if first == "END_DATA" { state = .done; continue }
                guard tokens.count == fields.count else {
                    throw ParseError(reason: "\(tokens.count) values in a row of \(fields.count) fields", line: number + 1)
                }
                rows.append(tokens)
            case .done:
                break
            }
        }
        guard !fields.isEmpty else { throw ParseError(reason: "no BEGIN_DATA_FORMAT … END_DATA_FORMAT field list", line: 1) }
        guard !rows.isEmpty else { throw ParseError(reason: "no BEGIN_DATA … END_DATA rows", line: 1) }
        self.header = header; self.fields = fields; self.rows = rows
    }

    /// The index of the first of `names` present among the fields.
    public func field(_ names: String...) -> Int? {
        for n in names { if let i = fields.firstIndex(of: n) { return i } }
        return nil
    }

    /// Splits a line on whitespace, keeping double-quoted strings whole (quotes removed).
    static func tokens(_ line: String) -> [String] {
        var out: [String] = []
        var current = ""
        var quoted = false, inToken = false
        for ch in line {
            if ch == "\"" { quoted.toggle(); inToken = true; continue }
            if !quoted && (ch == " " || ch == "\t") {
                if inToken { out.append(current); current = ""; inToken = false }
                continue
            }
            current.append(ch); inToken = true
        }
        if inToken { out.append(current) }
        return out
    }
}
