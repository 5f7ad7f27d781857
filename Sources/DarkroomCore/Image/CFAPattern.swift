/// A colour channel of a Bayer colour filter array.
public enum CFAColor: UInt8, Sendable, Codable, CaseIterable {
    case red = 0, green = 1, blue = 2
}

/// A 2×2 Bayer colour filter array layout (RGGB, GRBG, BGGR, GBRG).
///
/// `color(x:y:)` gives the filter colour at sensor position (x, y) of the image the
/// pattern describes (its origin is the image's top-left pixel).
public struct CFAPattern: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// Colours in row-major order: (0,0), (1,0), (0,1), (1,1).
    public let colors: [CFAColor]

    public static let rggb = CFAPattern(unchecked: [.red, .green, .green, .blue])
    public static let grbg = CFAPattern(unchecked: [.green, .red, .blue, .green])
    public static let bggr = CFAPattern(unchecked: [.blue, .green, .green, .red])
    public static let gbrg = CFAPattern(unchecked: [.green, .blue, .red, .green])
    public static let all: [CFAPattern] = [.rggb, .grbg, .bggr, .gbrg]

    private init(unchecked colors: [CFAColor]) { self.colors = colors }

    /// A Bayer pattern: exactly one red, one blue and two diagonal greens.
    public init?(colors: [CFAColor]) {
        guard colors.count == 4,
              colors.filter({ $0 == .red }).count == 1,
              colors.filter({ $0 == .blue }).count == 1,
              colors[0] == colors[3] || colors[1] == colors[2],
              (colors[0] == .green && colors[3] == .green) || (colors[1] == .green && colors[2] == .green)
        else { return nil }
        self.colors = colors
    }

    /// Parses "rggb", "grbg", "bggr" or "gbrg" (any case).
    public init?(name: String) {
        let map: [Character: CFAColor] = ["r": .red, "g": .green, "b": .blue]
        let cs = name.lowercased().compactMap { map[$0] }
        guard cs.count == 4, name.count == 4 else { return nil }
        self.init(colors: cs)
    }

    @inline(__always)
    public func color(x: Int, y: Int) -> CFAColor { colors[(y & 1) << 1 | (x & 1)] }

    /// The same physical pattern seen from an origin moved by (dx, dy).
    public func shifted(dx: Int, dy: Int) -> CFAPattern {
        var c: [CFAColor] = []
        for y in 0..<2 { for x in 0..<2 { c.append(color(x: x + dx, y: y + dy)) } }
        return CFAPattern(unchecked: c)
    }

    /// Position (0...1, 0...1) of the red site within the 2×2 cell.
    public var redOffset: (x: Int, y: Int) {
        let i = colors.firstIndex(of: .red)!
        return (i & 1, i >> 1)
    }

    public var description: String {
        String(colors.map { $0 == .red ? "R" : $0 == .green ? "G" : "B" })
    }
}
