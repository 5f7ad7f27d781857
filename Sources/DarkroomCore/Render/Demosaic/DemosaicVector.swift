/// Eight-lane helpers for the demosaic kernels' row loops: unaligned loads and stores, lane
/// parity, exact blends and |v|. Row loops walk `stride(from: lo, to: hi, by: 8)` with the last
/// chunk moved back to end at `hi` (`min(x0, hi − 8)`), so they need `hi − lo ≥ 8` and bodies
/// that are pure per column.
///
/// Every lane computes exactly what a scalar loop would (no fused or reassociated arithmetic),
/// so results never depend on where a chunk starts — tile-exactness needs that.
enum DemosaicVector {
    typealias V = SIMD8<Float>

    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }

    @inline(__always)
    static func load(_ p: UnsafeMutablePointer<Float>) -> V { UnsafeRawPointer(p).loadUnaligned(as: V.self) }

    @inline(__always)
    static func store(_ v: V, _ p: UnsafeMutablePointer<Float>) { UnsafeMutableRawPointer(p).storeBytes(of: v, as: V.self) }

    /// `body(x)` for x = lo, lo + 8, … while x < hi: whole groups of 8 from the first column, the
    /// last one running past `hi` (the caller's rows leave room; used where lanes past `hi` are
    /// never read for a column that must be produced).
    @inline(__always)
    static func groups(_ lo: Int, _ hi: Int, _ body: (Int) -> Void) {
        var x = lo
        while x < hi { body(x); x += 8 }
    }

    /// 1 on lanes whose column has parity `parity` for a chunk starting at `x`, else 0.
    @inline(__always)
    static func parityLanes(_ x: Int, _ parity: Int) -> V {
        (x & 1) == (parity & 1) ? V(1, 0, 1, 0, 1, 0, 1, 0) : V(0, 1, 0, 1, 0, 1, 0, 1)
    }

    /// `a` where `k` is 1, `b` where it is 0 — exact for finite `a`, `b` (a·1 + b·0 = a).
    @inline(__always)
    static func blend(_ k: V, _ a: V, _ b: V) -> V { a * k + b * (1 - k) }

    /// |v| by clearing the sign bits.
    @inline(__always)
    static func abs(_ v: V) -> V {
        unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7FFF_FFFF, to: V.self)
    }
}
