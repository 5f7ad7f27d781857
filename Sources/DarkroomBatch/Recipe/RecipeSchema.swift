import DarkroomCore
import DarkroomIO
import Foundation

/// The one description of every recipe option: its key (the YAML key and the long flag name),
/// which commands take it, what it changes, its grammar and limits, its default and help, how
/// it is parsed and validated (the same code for a flag and a YAML value), how it is applied to
/// the develop/export/decode values, and how the resolved value reads back (for
/// `darkroom recipe --print` and the recipe hash).
///
/// Everything else derives from `RecipeSchema.entries`: the command-line flags (each
/// `@Option(schema:)`/`@Flag(schema:)` in DarkroomCLI takes its name and help from an entry, and a
/// test checks the flag set equals the entries, one flag per entry), the YAML keys
/// (`BatchRecipe.load`), `darkroom recipe --help` (`RecipeSchema.listing`), validation, and the
/// recipe hash (`BatchRecipe.hash`, over the entries whose `effect` changes output bytes).
///
/// Adding a develop option: one entry in `RecipeSchema+Entries.swift` (plus the `DevelopRecipe`
/// field the plan reads, and one `@Option(schema: "key") var key: String?` line in DarkroomCLI's
/// `RecipeOptions`, which the schema test demands).
public enum RecipeSchema {
    /// Which command-line group (and so which commands) an option belongs to, and whether it is
    /// a recipe-file key.
    public enum Scope: String, Sendable, CaseIterable {
        /// How a file is rendered: `develop`, `explain`, `recipe`; a YAML key.
        case develop
        /// How outputs are written and named: `develop`, `recipe`; a YAML key.
        case output
        /// How a headerless Bayer dump is read: `develop`, `explain`, `info`, `recipe`; flag only
        /// (it describes the input files, not the render).
        case bayer
        /// How a batch runs: `develop` only; flag only.
        case run

        /// Whether the option is a recipe-file key.
        public var inRecipeFile: Bool { self == .develop || self == .output }
    }

    /// What an option changes.
    public enum Effect: String, Sendable {
        /// The rendered pixels; in the recipe hash.
        case pixels
        /// The output file's bytes but not its pixels (encoder, metadata, thumbnail,
        /// auxiliary planes); in the recipe hash.
        case bytes
        /// How input bytes are read (Bayer dumps); in the recipe hash through the decode options.
        case input
        /// Speed only, never a byte of output; not in the hash.
        case speed
        /// Which outputs are written and their names (recorded per output); not in the hash.
        case naming
        /// How the batch runs; not in the hash.
        case run

        public var inHash: Bool { self == .pixels || self == .bytes }
    }

    /// How an entry's value enters the recipe hash. The canonical form must not change for the
    /// entries that existed when manifests were first written (`resolved`, `asGiven`), or every
    /// existing output would look stale; entries added since use `unlessDefault`, so adding an
    /// option never changes the hash of a recipe that does not use it.
    public enum Hashing: Sendable, Equatable {
        /// The resolved value, always.
        case resolved
        /// The value as given; absent when not given.
        case asGiven
        /// The resolved value, omitted when it equals the default.
        case unlessDefault
        /// Never: another entry's resolved value already holds its effect (`look` is in `tone`'s).
        case never
        /// The resolved value, omitted when it equals this one: for an entry added with a new
        /// default whose earlier, fixed behaviour is this value (`highlights`: every render was
        /// `clip` before the entry existed). Earlier manifests then stay valid for exactly the
        /// renders they describe, and the new default hashes differently, so `--resume` redoes
        /// outputs an earlier version made.
        case unlessEqual(RecipeValue)
    }

    /// The flag form an entry takes.
    public enum FlagKind: Sendable {
        /// `--key`/`--no-key`.
        case toggle
        /// `--key VALUE` where VALUE may start with '-' (numbers).
        case numeric
        /// `--key VALUE`.
        case text
        /// `--key VALUE`, repeatable.
        case repeatable
    }

    /// Why a value is unusable (the entry's key and origin are added by the caller).
    public struct Reason: Error, Sendable {
        public var text: String
        public init(_ text: String) { self.text = text }
    }

    /// One option.
    public struct Entry: Sendable {
        public let key: String
        public let scope: Scope
        public let effect: Effect
        public let flagKind: FlagKind
        /// Placeholder for the value in help (`stops`, `K/N`, …).
        public let valueName: String
        /// The values accepted, for help (`−10…10`, `srgb | p3 | …`).
        public let allowed: String
        /// The default, for help.
        public let defaultText: String
        public let help: String
        /// How the value enters the recipe hash (when `effect.inHash`).
        let hashing: Hashing
        let parser: @Sendable (RecipeRawValue) throws -> RecipeValue
        let applier: @Sendable (RecipeValue, inout ResolvedRecipe) throws -> Void
        let reader: @Sendable (ResolvedRecipe) -> RecipeValue?

        /// Parses and validates a raw value (flag text, YAML scalar, sequence or mapping).
        public func parse(_ raw: RecipeRawValue) throws(Reason) -> RecipeValue {
            do { return try parser(raw) } catch let r as Reason { throw r } catch { throw Reason("\(error)") }
        }

        /// Applies a parsed value.
        public func apply(_ v: RecipeValue, to r: inout ResolvedRecipe) throws(Reason) {
            do { try applier(v, &r) } catch let e as Reason { throw e } catch { throw Reason("\(error)") }
        }

        /// The resolved value in recipe form (nil: nothing to print).
        public func read(_ r: ResolvedRecipe) -> RecipeValue? { reader(r) }

        /// The flag's help line: help, allowed values, default.
        public var flagHelp: String {
            var s = help
            if !allowed.isEmpty && flagKind != .toggle { s += " Values: \(allowed)." }
            if !defaultText.isEmpty { s += " Default: \(defaultText)." }
            if effect == .speed { s += " Changes speed, never output." }
            return s
        }
    }

    /// The entry for a key.
    public static func entry(_ key: String) -> Entry? { byKey[key] }

    static let byKey: [String: Entry] = Dictionary(entries.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })

    /// The recipe-file keys, in schema order.
    public static var fileKeys: [String] { entries.filter(\.scope.inRecipeFile).map(\.key) }

    /// `colorSpace` → `color-space` (a Swift property name to its key).
    public static func key(forProperty name: String) -> String {
        var out = ""
        for ch in name {
            if ch.isUppercase { out += "-" + ch.lowercased() } else { out.append(ch) }
        }
        return out
    }

    /// The schema as text: every key with its values, default, effect and help, grouped by scope
    /// (`darkroom recipe --help` and README's Recipes section).
    public static var listing: String {
        var lines: [String] = []
        let titles: [Scope: String] = [
            .develop: "Develop keys (recipe file and flags of develop, explain, recipe):",
            .output: "Output keys (recipe file and flags of develop, recipe):",
            .bayer: "Bayer-dump flags (develop, explain, info, recipe; not in recipe files):",
            .run: "Batch flags (develop only; not in recipe files):",
        ]
        for scope in Scope.allCases {
            lines.append(titles[scope] ?? scope.rawValue)
            for e in entries where e.scope == scope {
                var head = "  \(e.key)"
                if !e.allowed.isEmpty { head += ": \(e.allowed)" }
                if !e.defaultText.isEmpty { head += " (default \(e.defaultText))" }
                head += " [\(e.effect.rawValue)]"
                lines += wrap(head, indent: "      ")
                lines += wrap("      " + e.help, indent: "      ")
            }
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// `text` broken at spaces into lines of at most `width` characters, continuation lines
    /// starting with `indent` (so help screens need not rewrap them).
    static func wrap(_ text: String, indent: String, width: Int = 78) -> [String] {
        var out: [String] = []
        var line = String(text.prefix { $0 == " " })
        var lineHasWord = false
        for word in text.split(separator: " ") {
            if lineHasWord && line.count + 1 + word.count > width {
                out.append(line)
                line = indent + word
            } else {
                line += (lineHasWord ? " " : "") + word
            }
            lineHasWord = true
        }
        if lineHasWord { out.append(line) }
        return out
    }
}

extension RecipeSchema {
    /// The schema as a Markdown table (docs/recipe-keys.md, written by `darkroom generate-docs`,
    /// holds exactly this text; a test checks it).
    public static var markdownTable: String {
        var rows = ["| key | values | default | changes | in recipe files |", "|---|---|---|---|---|"]
        for e in entries {
            let values = e.flagKind == .toggle ? "true \\| false (`--\(e.key)`, `--no-\(e.key)`)" : e.allowed.replacingOccurrences(of: "|", with: "\\|")
            rows.append("| `\(e.key)` | \(values) | \(e.defaultText) | \(e.effect.rawValue) | \(e.scope.inRecipeFile ? "yes" : "no (flag only)") |")
        }
        return rows.joined(separator: "\n") + "\n"
    }
}

/// Every value a recipe resolves to, once: the develop recipe, export options, output formats
/// and name template, the Bayer-dump and batch settings, and (after `finish`) the decode options.
public struct ResolvedRecipe: Sendable {
    public var develop = DevelopRecipe()
    public var export = ExportOptions()
    public var formats: [OutputFormat] = [.jpeg]
    public var name = OutputNamer.defaultTemplate
    /// `--bayer` and its parameters, as given.
    public var bayerCFA: CFAPattern?
    public var bayerCFAName: String?
    public var bayerBits: Int?
    public var bayerSize: (width: Int, height: Int)?
    public var bayerBlack: Double?
    public var bayerWhite: Double?
    public var bayerStride: Int?
    public var jobs: Int?
    public var memoryBudget: Int64?
    public var shard: Shard?
    /// Decode options (OpcodeList1 from the develop recipe, the Bayer dump).
    public var decode = DecodeOptions()

    public init() {}
}
