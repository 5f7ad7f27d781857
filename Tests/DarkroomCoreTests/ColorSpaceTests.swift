import Foundation
import Testing
@testable import DarkroomCore

@Suite("Color spaces and transfer functions")
struct ColorSpaceTests {
    @Test("linear RGB ↔ XYZ D50 round trip; D50 white is RGB (1,1,1)", arguments: OutputColorSpace.allCases)
    func roundTrip(space: OutputColorSpace) {
        let toXYZ = space.linearRGBToXYZD50, toRGB = space.xyzD50ToLinearRGB
        for rgb in [SIMD3(1.0, 0, 0), SIMD3(0, 1.0, 0), SIMD3(0, 0, 1.0), SIMD3(0.2, 0.5, 0.9), SIMD3(-0.1, 0.3, 1.2)] {
            #expect(abs(toRGB * (toXYZ * rgb) - rgb).max() < 1e-12)
        }
        let white = toRGB * ColorMath.xyToXYZ(ColorMath.d50)
        #expect(abs(white - SIMD3(1, 1, 1)).max() < 1e-12, "\(space): D50 → \(white)")
        // Every pair of spaces: A → XYZ → B → XYZ → A is the identity.
        for other in OutputColorSpace.allCases {
            let rgb = SIMD3(0.3, 0.6, 0.1)
            let there = other.xyzD50ToLinearRGB * (toXYZ * rgb)
            let back = toRGB * (other.linearRGBToXYZD50 * there)
            #expect(abs(back - rgb).max() < 1e-12)
        }
        #expect(space.isLinear == (space.transfer == .linear))
        #expect(space.linearVariant.isLinear)
        #expect(space.iccFileName.hasSuffix(".icc") && !space.displayName.isEmpty)
        #expect(OutputColorSpace(rawValue: space.rawValue) == space)
    }

    @Test("sRGB linearRGBToXYZD50 matches the ICC sRGB profile colorants")
    func srgbColorants() {
        let m = OutputColorSpace.srgb.linearRGBToXYZD50
        // rXYZ, gXYZ, bXYZ of sRGB IEC61966-2.1 (ICC, D50, Bradford), as columns.
        let icc: [[Double]] = [[0.4361, 0.2225, 0.0139], [0.3851, 0.7169, 0.0971], [0.1431, 0.0606, 0.7141]]
        for c in 0..<3 { for r in 0..<3 {
            #expect(abs(m[r, c] - icc[c][r]) < 3e-4, "column \(c) row \(r): \(m[r, c])")
        } }
        // Y row sums to 1; red/green/blue luminances are the BT.709 ones adapted to D50.
        #expect(abs(m.row(1).sum() - 1) < 1e-12)
    }

    @Test("Display P3 and Rec.2020 luminance coefficients")
    func luminance() {
        // Y row under the space's own white (before adaptation) is the published luma weights.
        let p3 = OutputColorSpace.rgbToXYZ((OutputColorSpace.p3.red, OutputColorSpace.p3.green, OutputColorSpace.p3.blue), white: OutputColorSpace.p3.white)
        #expect(abs(p3[1, 0] - 0.2290) < 1e-4 && abs(p3[1, 1] - 0.6917) < 1e-4 && abs(p3[1, 2] - 0.0793) < 1e-4)
        let r2020 = OutputColorSpace.rgbToXYZ((OutputColorSpace.rec2020.red, OutputColorSpace.rec2020.green, OutputColorSpace.rec2020.blue), white: OutputColorSpace.rec2020.white)
        #expect(abs(r2020[1, 0] - 0.2627) < 1e-4 && abs(r2020[1, 1] - 0.6780) < 1e-4 && abs(r2020[1, 2] - 0.0593) < 1e-4)
    }

    @Test("Transfer functions: inverses, continuity, anchors",
          arguments: [TransferFunction.linear, .srgb, .gamma(563.0 / 256.0), .bt709, .romm])
    func transfer(tf: TransferFunction) {
        for i in 0...1000 {
            let x = Double(i) / 1000
            #expect(abs(tf.decode(tf.encode(x)) - x) < 1e-12)
            #expect(abs(tf.encode(tf.decode(x)) - x) < 1e-12)
            #expect(abs(tf.encode(-x) + tf.encode(x)) < 1e-15)
        }
        #expect(tf.encode(0) == 0 && abs(tf.encode(1) - 1) < 1e-3)
        // Monotone.
        var last = -1.0
        for i in 0...4096 { let e = tf.encode(Double(i) / 4096); #expect(e > last); last = e }
        // The ICC parametric curve evaluates to `decode`.
        let (type, p) = tf.iccParametric
        for i in 0...100 {
            let x = Double(i) / 100
            let y = type == 0 ? pow(x, p[0]) : (x >= p[4] ? pow(p[1] * x + p[2], p[0]) : p[3] * x)
            #expect(abs(y - tf.decode(x)) < 1e-12, "\(tf) at \(x)")
        }
    }

    @Test("Transfer function anchor values")
    func anchors() {
        #expect(abs(TransferFunction.srgb.encode(0.18) - 0.461356) < 1e-6)
        #expect(abs(TransferFunction.srgb.decode(0.5) - 0.214041) < 1e-6)
        #expect(abs(TransferFunction.bt709.encode(0.18) - 0.409008) < 2e-4)
        #expect(abs(TransferFunction.romm.encode(1.0 / 512) - 1.0 / 32) < 1e-15)
        #expect(abs(TransferFunction.gamma(563.0 / 256.0).decode(0.5) - 0.217755) < 1e-6)
    }
}
