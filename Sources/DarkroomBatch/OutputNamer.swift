import DarkroomCore
import Foundation

/// Turns a `--name` template into output base names (no extension) relative to OUTDIR.
///
/// Placeholders: `{stem}` input name without extension, `{ext}` its extension (lower case),
/// `{dir}` its folder relative to its input root (empty for files named directly), `{camera}`
/// make and model, `{make}`, `{model}`, `{date}` capture date YYYY-MM-DD, `{time}` HHMMSS,
/// `{seq}` 1-based position in the sorted input list (4 digits). The default, `{dir}/{stem}`,
/// keeps the input folder structure, so equal names from different folders never meet.
///
/// Safety: each substituted value has `/`, `\` and control characters replaced by `_`; after
/// substitution the path is split at `/`, empty and `.` components are dropped and `..` becomes
/// `__`, so a name is always a relative path below OUTDIR. Names that still collide (compared
/// case-insensitively) get `-2`, `-3`, … in input order.
public struct OutputNamer: Sendable {
    public static let defaultTemplate = "{dir}/{stem}"
    public static let placeholders = ["stem", "ext", "dir", "camera", "make", "model", "date", "time", "seq"]
    public var template: String

    public init(template: String) throws(BatchError) {
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw .usage("--name: unclosed '{' in '\(template)'") }
            let key = String(rest[rest.index(after: open)..<close])
            guard Self.placeholders.contains(key) else {
                throw .usage("--name: unknown placeholder {\(key)} (known: \(Self.placeholders.map { "{\($0)}" }.joined(separator: " ")))")
            }
            rest = rest[rest.index(after: close)...]
        }
        guard !template.trimmingCharacters(in: .whitespaces).isEmpty else { throw .usage("--name must not be empty") }
        self.template = template
    }

    /// Whether names need the file's metadata (camera, date).
    public var needsMetadata: Bool { ["{camera}", "{make}", "{model}", "{date}", "{time}"].contains { template.contains($0) } }

    /// The raw (not yet de-collided) relative base name for one input.
    public func name(for input: BatchInput, seq: Int, exif: ExifInfo?) -> String {
        let rel = input.relativePath as NSString
        let file = rel.lastPathComponent as NSString
        let dir = rel.deletingLastPathComponent
        let date = exif?.dateTimeOriginal ?? ""
        let dparts = date.split(whereSeparator: { $0 == ":" || $0 == " " || $0 == "-" || $0 == "T" })
        let make = exif?.make?.trimmingCharacters(in: .whitespaces) ?? ""
        var model = exif?.model?.trimmingCharacters(in: .whitespaces) ?? ""
        if !make.isEmpty, model.lowercased().hasPrefix(make.lowercased()) { model = String(model.dropFirst(make.count)).trimmingCharacters(in: .whitespaces) }
        let values: [String: String] = [
            "stem": file.deletingPathExtension, "ext": file.pathExtension.lowercased(), "dir": dir,
            "camera": [make, model].filter { !$0.isEmpty }.joined(separator: " ").nonEmpty ?? "unknown-camera",
            "make": make.nonEmpty ?? "unknown-make", "model": model.nonEmpty ?? "unknown-model",
            "date": dparts.count >= 3 ? "\(dparts[0])-\(dparts[1])-\(dparts[2])" : "unknown-date",
            "time": dparts.count >= 6 ? "\(dparts[3])\(dparts[4])\(dparts[5])" : "unknown-time",
            "seq": String(format: "%04d", seq),
        ]
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let key = String(rest[rest.index(after: open)..<close])
            // {dir} may hold several folders; every other value is one path component.
            out += key == "dir" ? (values[key] ?? "").split(separator: "/").map { Self.clean(String($0)) }.joined(separator: "/")
                                : Self.clean(values[key] ?? "")
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return Self.confine(out)
    }

    static func clean(_ v: String) -> String {
        String(v.map { c -> Character in (c == "/" || c == "\\" || c.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true) ? "_" : c })
    }

    /// A relative path that cannot leave the output directory.
    static func confine(_ path: String) -> String {
        let comps = path.split(separator: "/").map(String.init).filter { !$0.isEmpty && $0 != "." }.map { $0 == ".." ? "__" : $0 }
        return comps.isEmpty ? "_" : comps.joined(separator: "/")
    }

    /// Names for every input in order, made unique (case-insensitively) with `-2`, `-3`, ….
    public func names(for inputs: [BatchInput], exif: (Int) -> ExifInfo?) -> [String] {
        var used = Set<String>()
        var out: [String] = []
        for (i, input) in inputs.enumerated() {
            let base = name(for: input, seq: i + 1, exif: needsMetadata ? exif(i) : nil)
            var candidate = base
            var n = 2
            while used.contains(candidate.lowercased()) { candidate = "\(base)-\(n)"; n += 1 }
            used.insert(candidate.lowercased())
            out.append(candidate)
        }
        return out
    }
}

extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
