import Foundation

/// Deterministic noise for synthetic test and benchmark images: the same index and seed give the
/// same value on every machine and thread count.
public enum SyntheticNoise {
    /// A standard normal deviate for sample `index` (Box–Muller on two SplitMix64 hashes of the
    /// index and `seed`).
    public static func gaussian(_ index: Int, _ seed: UInt64) -> Double {
        func hash(_ v: UInt64) -> UInt64 {
            var z = v &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        let a = hash(UInt64(bitPattern: Int64(index)) &* 2 &+ seed), b = hash(UInt64(bitPattern: Int64(index)) &* 2 &+ 1 &+ seed)
        let u1 = (Double(a >> 11) + 1) / 9_007_199_254_740_993, u2 = Double(b >> 11) / 9_007_199_254_740_992
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
