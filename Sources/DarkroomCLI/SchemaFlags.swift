import ArgumentParser
import DarkroomBatch

/// Flags declared from the recipe schema: the property's name is the key in camelCase
/// (`thumbnailSize` ↔ `--thumbnail-size`), and the flag's name, help and parsing strategy come
/// from the `RecipeSchema` entry. Values stay text until the entry parses them, so a flag and a
/// recipe-file value go through the same parser and limits.
extension Option where Value == String? {
    /// `--KEY VALUE`; the next argument is the value even when it starts with '-'
    /// (`--exposure -1`, `--wb-rect -1,0,4,4` reaching the schema's parser), as getopt does
    /// for an option with a required argument.
    init(schema key: String) {
        let e = RecipeSchema.entry(key)
        self.init(name: .customLong(key), parsing: .unconditional,
                  help: ArgumentHelp(e?.flagHelp ?? "", valueName: e?.valueName ?? key))
    }
}

extension Option where Value == [String] {
    /// `--KEY VALUE`, repeatable.
    init(wrappedValue: [String], schema key: String) {
        let e = RecipeSchema.entry(key)
        self.init(wrappedValue: wrappedValue, name: .customLong(key),
                  help: ArgumentHelp((e?.flagHelp ?? "") + " Repeatable.", valueName: e?.valueName ?? key))
    }
}

extension Flag where Value == Bool? {
    /// `--KEY` / `--no-KEY`.
    init(schema key: String) {
        self.init(name: .customLong(key), inversion: .prefixedNo, help: ArgumentHelp(RecipeSchema.entry(key)?.flagHelp ?? ""))
    }
}

/// A group of schema flags (one per `RecipeSchema.Scope`).
protocol SchemaFlagGroup: ParsableArguments {
    static var scope: RecipeSchema.Scope { get }
}

extension SchemaFlagGroup {
    /// The flags given on the command line, as (key, raw value), read from the property
    /// wrappers by reflection.
    var given: [(key: String, value: RecipeRawValue)] {
        Mirror(reflecting: self).children.compactMap { child -> (key: String, value: RecipeRawValue)? in
            guard let label = child.label, label.hasPrefix("_") else { return nil }
            let key = RecipeSchema.key(forProperty: String(label.dropFirst()))
            switch child.value {
            case let o as Option<String?>: return o.wrappedValue.map { (key, .text($0)) }
            case let o as Option<[String]>: return o.wrappedValue.isEmpty ? nil : (key, .sequence(o.wrappedValue))
            case let f as Flag<Bool?>: return f.wrappedValue.map { (key, .flag($0)) }
            default: return nil
            }
        }
    }

    /// The schema keys this group declares (for the schema test).
    static var declaredKeys: [String] {
        guard let instance = try? Self.parse([]) else { return [] }
        return Mirror(reflecting: instance).children.compactMap { child in
            guard let label = child.label, label.hasPrefix("_"),
                  child.value is Option<String?> || child.value is Option<[String]> || child.value is Flag<Bool?> else { return nil }
            return RecipeSchema.key(forProperty: String(label.dropFirst()))
        }
    }
}

/// `--recipe FILE`.
struct RecipeFileOption: ParsableArguments {
    @Option(help: ArgumentHelp("Recipe file (YAML; keys and values: `darkroom recipe --help`). Flags override its values.", valueName: "FILE"))
    var recipe: String?
}

/// defaults ← `--recipe FILE` ← flags, validated and resolved once. Every problem is a usage
/// error (exit status 2) naming the flag, or the file and key.
enum EffectiveRecipe {
    static func layer(file: String?, _ groups: [any SchemaFlagGroup]) throws -> BatchRecipe {
        do {
            var base = BatchRecipe()
            if let file { base = try BatchRecipe.load(path: file) }
            var flags = BatchRecipe()
            for g in groups { for (k, v) in g.given { try flags.set(k, v, origin: .flag) } }
            return base.overlaid(by: flags)
        } catch { throw ValidationError(error.description) }
    }

    static func resolve(_ recipe: BatchRecipe) throws -> ResolvedRecipe {
        do { return try recipe.resolution() } catch { throw ValidationError(error.description) }
    }
}
