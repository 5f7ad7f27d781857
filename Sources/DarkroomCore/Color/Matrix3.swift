import Foundation

/// A 3×3 matrix of `Double`, row-major. Used for all colour transforms (camera→XYZ,
/// XYZ→RGB, Bradford); vectors are `SIMD3<Double>` columns.
public struct Matrix3: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// Row-major elements m[row * 3 + column].
    public var m: [Double]

    public init(_ rowMajor: [Double]) {
        precondition(rowMajor.count == 9, "Matrix3 needs 9 elements")
        m = rowMajor
    }

    public init(rows r0: SIMD3<Double>, _ r1: SIMD3<Double>, _ r2: SIMD3<Double>) {
        m = [r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z]
    }

    public static let identity = Matrix3([1, 0, 0, 0, 1, 0, 0, 0, 1])

    public static func diagonal(_ d: SIMD3<Double>) -> Matrix3 {
        Matrix3([d.x, 0, 0, 0, d.y, 0, 0, 0, d.z])
    }

    @inline(__always) public subscript(row: Int, column: Int) -> Double {
        get { m[row * 3 + column] }
        set { m[row * 3 + column] = newValue }
    }

    public func row(_ r: Int) -> SIMD3<Double> { SIMD3(m[r * 3], m[r * 3 + 1], m[r * 3 + 2]) }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 {
            r[i * 3 + j] = a.m[i * 3] * b.m[j] + a.m[i * 3 + 1] * b.m[3 + j] + a.m[i * 3 + 2] * b.m[6 + j]
        } }
        return Matrix3(r)
    }

    public static func * (a: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((a.row(0) * v).sum(), (a.row(1) * v).sum(), (a.row(2) * v).sum())
    }

    public static func * (s: Double, a: Matrix3) -> Matrix3 { Matrix3(a.m.map { $0 * s }) }

    public var transposed: Matrix3 {
        Matrix3([m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]])
    }

    public var determinant: Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The inverse, or nil when the matrix is singular (|det| below 1e-12 of its scale).
    public var inverse: Matrix3? {
        let d = determinant
        let scale = m.map { abs($0) }.max() ?? 0
        guard scale > 0, abs(d) > 1e-12 * scale * scale * scale, d.isFinite else { return nil }
        let inv = 1 / d
        return Matrix3([
            (m[4] * m[8] - m[5] * m[7]) * inv, (m[2] * m[7] - m[1] * m[8]) * inv, (m[1] * m[5] - m[2] * m[4]) * inv,
            (m[5] * m[6] - m[3] * m[8]) * inv, (m[0] * m[8] - m[2] * m[6]) * inv, (m[2] * m[3] - m[0] * m[5]) * inv,
            (m[3] * m[7] - m[4] * m[6]) * inv, (m[1] * m[6] - m[0] * m[7]) * inv, (m[0] * m[4] - m[1] * m[3]) * inv,
        ])
    }

    /// Element-wise linear blend: `a * (1 - t) + b * t`.
    public static func lerp(_ a: Matrix3, _ b: Matrix3, _ t: Double) -> Matrix3 {
        Matrix3(zip(a.m, b.m).map { $0 * (1 - t) + $1 * t })
    }

    public var isFinite: Bool { m.allSatisfy { $0.isFinite } }

    public var description: String {
        (0..<3).map { r in (0..<3).map { c in String(format6(self[r, c])) }.joined(separator: " ") }
            .joined(separator: " | ")
    }
}

/// Formats a number with 6 significant decimals, without Foundation.
@usableFromInline func format6(_ v: Double) -> String {
    guard v.isFinite else { return "\(v)" }
    let scaled = (v * 1_000_000).rounded() / 1_000_000
    return "\(scaled)"
}
