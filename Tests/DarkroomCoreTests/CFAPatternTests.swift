import Testing
@testable import DarkroomCore

@Suite struct CFAPatternTests {
    @Test(arguments: ["rggb", "grbg", "bggr", "gbrg"])
    func parsesAndShiftsConsistently(name: String) throws {
        let p = try #require(CFAPattern(name: name))
        #expect(p.description == name.uppercased())
        for dy in 0..<3 { for dx in 0..<3 {
            let s = p.shifted(dx: dx, dy: dy)
            for y in 0..<4 { for x in 0..<4 { #expect(s.color(x: x, y: y) == p.color(x: x + dx, y: y + dy)) } }
        } }
    }

    @Test func rejectsNonBayer() {
        #expect(CFAPattern(name: "rgbg") == nil)
        #expect(CFAPattern(name: "rrgb") == nil)
        #expect(CFAPattern(name: "rgb") == nil)
    }

    @Test func matrixInverse() throws {
        let a = Matrix3([2, 1, 0, 0, 3, 1, 1, 0, 4])
        let i = try #require(a.inverse)
        let p = a * i
        for k in 0..<9 { #expect(abs(p.m[k] - Matrix3.identity.m[k]) < 1e-12) }
        #expect(Matrix3([1, 2, 3, 2, 4, 6, 0, 0, 1]).inverse == nil)
    }
}
