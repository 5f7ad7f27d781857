/// One recipe value, after its schema entry parsed and validated it (`RecipeSchema.Entry.parse`).
/// Flags and YAML scalars arrive as text, YAML sequences as lists, YAML mappings and repeated
/// `KIND=FILE` flags as maps; each entry turns that raw form into one of these cases.
public enum RecipeValue: Sendable, Equatable, Hashable, Codable {
    case bool(Bool)
    case int(Int)
    case number(Double)
    case text(String)
    case list([String])
    case map([String: String])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let v = try? c.decode(Bool.self) { self = .bool(v) }
        else if let v = try? c.decode(Int.self) { self = .int(v) }
        else if let v = try? c.decode(Double.self) { self = .number(v) }
        else if let v = try? c.decode(String.self) { self = .text(v) }
        else if let v = try? c.decode([String].self) { self = .list(v) }
        else { self = .map(try c.decode([String: String].self)) }
    }

    /// Encodes as the plain JSON value (the recipe hash's canonical form relies on this).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .bool(let v): try c.encode(v)
        case .int(let v): try c.encode(v)
        case .number(let v): try c.encode(v)
        case .text(let v): try c.encode(v)
        case .list(let v): try c.encode(v)
        case .map(let v): try c.encode(v)
        }
    }

    public var bool: Bool? { if case .bool(let v) = self { return v }; return nil }
    public var int: Int? { if case .int(let v) = self { return v }; return nil }
    public var number: Double? {
        switch self { case .number(let v): return v; case .int(let v): return Double(v); default: return nil }
    }
    public var text: String? { if case .text(let v) = self { return v }; return nil }
    public var list: [String]? { if case .list(let v) = self { return v }; return nil }
    public var map: [String: String]? { if case .map(let v) = self { return v }; return nil }
}

/// A value as it arrived, before its schema entry parsed it: a flag's or a YAML scalar's text,
/// a `--no-x`/`--x` flag, a YAML sequence of scalars, a YAML mapping of scalars, or the
/// repeated values of a repeatable flag.
public enum RecipeRawValue: Sendable, Equatable {
    case text(String)
    case flag(Bool)
    case sequence([String])
    case mapping([(String, String)])

    public static func == (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.text(let x), .text(let y)): return x == y
        case (.flag(let x), .flag(let y)): return x == y
        case (.sequence(let x), .sequence(let y)): return x == y
        case (.mapping(let x), .mapping(let y)): return x.map(\.0) == y.map(\.0) && x.map(\.1) == y.map(\.1)
        default: return false
        }
    }
}
