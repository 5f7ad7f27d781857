import Dispatch
import Foundation

/// Runs a per-row computation over `rows` rows in parallel bands (Dispatch's pool, about four bands
/// per active core). Every row is computed by the same arithmetic whichever band holds it, and each
/// band writes only its own rows, so the result never depends on the thread count.
public enum RowBands {
    /// Calls `body` once per band with that band's row range (in any order, concurrently).
    public static func run(_ rows: Int, _ body: (Range<Int>) -> Void) {
        guard rows > 0 else { return }
        let bands = min(rows, 4 * max(1, ProcessInfo.processInfo.activeProcessorCount))
        if bands == 1 { body(0..<rows); return }
        withoutActuallyEscaping(body) { body in
            let call = UncheckedSendable(body)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                call.value(band * rows / bands ..< (band + 1) * rows / bands)
            }
        }
    }

    /// A `[T]` of `rows × width` elements, initialised to `zero`, then filled by `body(band, out)`
    /// in parallel row bands (row `y` is elements `y·width ..< (y+1)·width`; write only your rows).
    public static func fill<T>(rows: Int, width: Int, repeating zero: T,
                        _ body: (Range<Int>, UnsafeMutableBufferPointer<T>) -> Void) -> [T] {
        var out = [T](repeating: zero, count: rows * width)
        out.withUnsafeMutableBufferPointer { o in
            run(rows) { range in body(range, o) }
        }
        return out
    }
}

/// The band body handed to Dispatch's concurrently running iterations (each touches its own rows).
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
