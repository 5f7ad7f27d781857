import Testing
@testable import DarkroomCore

/// The chart geometry of `darkroom compare`: homographies, orientation inverses, robust means,
/// colour-difference components.
@Suite("Compare geometry")
struct CompareGeometryTests {
    @Test func homographyMapsTheFourCornersAndInverts() throws {
        let quad = [SIMD2(103.0, 51.0), SIMD2(512.0, 80.0), SIMD2(470.0, 377.0), SIMD2(88.0, 330.0)]
        let h = try #require(Homography(unitSquareTo: quad))
        let unit = [SIMD2(0.0, 0.0), SIMD2(1.0, 0.0), SIMD2(1.0, 1.0), SIMD2(0.0, 1.0)]
        for (u, q) in zip(unit, quad) {
            let p = try #require(h.apply(u))
            #expect(abs(p.x - q.x) < 1e-9 && abs(p.y - q.y) < 1e-9)
        }
        let inv = try #require(h.inverse)
        for p in [SIMD2(0.3, 0.7), SIMD2(0.9, 0.1)] {
            let forward = try #require(h.apply(p))
            let back = try #require(inv.apply(forward))
            #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9)
        }
        // Collinear points have none.
        #expect(Homography(unitSquareTo: [SIMD2(0, 0), SIMD2(1, 1), SIMD2(2, 2), SIMD2(3, 3)]) == nil)
    }

    /// `storedPosition` inverts `Orientation.map` for all eight orientations.
    @Test(arguments: 1...8)
    func storedPositionInvertsOrientation(value: Int) {
        let w = 7, h = 5
        let o = Orientation(value)
        let image = CameraRGBImage(width: w + 2, height: h + 2, pixels: [], crop: PixelRect(x: 1, y: 1, width: w, height: h), orientation: o)
        for y in 0..<h { for x in 0..<w {
            let d = o.map(x: x, y: y, width: w, height: h)
            let s = image.storedPosition(displayX: d.x, displayY: d.y)
            #expect(s.x == x && s.y == y)
        } }
    }

    @Test func robustMeanRejectsOutliers() {
        var r = [Double](repeating: 0.5, count: 100), g = r, b = r
        for i in 0..<100 { r[i] += Double(i % 5) * 1e-3; g[i] -= Double(i % 3) * 1e-3 }
        r[7] = 1; g[8] = 0; b[9] = 0.9
        let s = PatchSampler.robust(r, g, b)
        #expect(s.keptCount == 97)
        #expect(abs(s.mean.x - 0.502) < 1e-3 && abs(s.mean.z - 0.5) < 1e-12)
        #expect(s.clippedFraction == 0.01)
        #expect(PatchSampler.median([3, 1, 2, 10]) == 2.5)
    }

    /// The components reproduce ColorMath.ciede2000 (itself checked against Sharma's pairs) and
    /// ΔE76 / ΔE94 their textbook values.
    @Test func colorDifferenceComponents() {
        let pairs: [(SIMD3<Double>, SIMD3<Double>)] = [
            (SIMD3(50, 2.6772, -79.7751), SIMD3(50, 0, -82.7485)), (SIMD3(50, 2.5, 0), SIMD3(73, 25, -18)),
            (SIMD3(60.2574, -34.0099, 36.2677), SIMD3(60.4626, -34.1751, 39.4387)), (SIMD3(50, 0, 0), SIMD3(50, -1, 2)),
        ]
        for (a, b) in pairs {
            let d = ColorDifference(reference: a, sample: b)
            #expect(abs(d.deltaE2000 - ColorMath.ciede2000(a, b)) < 1e-12)
            let e = b - a
            #expect(abs(d.deltaE76 - (e * e).sum().squareRoot()) < 1e-12)
        }
        // ΔE94 on a pure lightness difference is ΔL; ΔL sign follows the sample.
        let d = ColorDifference(reference: SIMD3(50, 10, 10), sample: SIMD3(53, 10, 10))
        #expect(abs(d.deltaE94 - 3) < 1e-12 && d.deltaL > 0 && abs(d.deltaC) < 1e-12 && abs(d.deltaH) < 1e-12)
        let s = DifferenceSummary([1, 5, 2, 4, 3, 5])
        #expect(s.mean == 20.0 / 6 && s.median == 3.5 && s.max == 5 && s.worst == [1, 5, 3, 4, 2])
        #expect(abs(s.p90 - 5) < 1e-12)
    }

    @Test func layoutPatchesTileTheUnitSquare() {
        let l = ChartLayout.colorChecker24
        let first = l.patchSquare(0), last = l.patchSquare(23)
        #expect(first.u0 == 0 && first.v0 == 0 && abs(last.u1 - 1) < 1e-12 && abs(last.v1 - 1) < 1e-12)
        let s = l.sampleSquare(7)
        let p = l.patchSquare(7)
        #expect(abs((s.u1 - s.u0) - (p.u1 - p.u0) / 2) < 1e-12)
    }
}
