import Foundation

/// Admits work while the sum of the admitted working-set estimates stays within a budget. A
/// request larger than the whole budget is admitted when nothing else runs (so one huge file
/// still develops, alone).
public final class MemoryGate: @unchecked Sendable {
    public let budget: Int64
    private var used: Int64 = 0
    private var running = 0
    private let cond = NSCondition()

    public init(budget: Int64) { self.budget = budget }

    /// Blocks until `bytes` fits; returns false without admitting when `cancelled()` turns true.
    public func acquire(_ bytes: Int64, cancelled: () -> Bool = { false }) -> Bool {
        cond.lock(); defer { cond.unlock() }
        func fits() -> Bool {
            let sum = used.addingReportingOverflow(bytes)
            return !sum.overflow && sum.partialValue <= budget
        }
        while !(fits() || running == 0) {
            if cancelled() { return false }
            _ = cond.wait(until: Date().addingTimeInterval(0.2))
        }
        used = used.addingReportingOverflow(bytes).overflow ? Int64.max : used + bytes
        running += 1
        return true
    }

    public func release(_ bytes: Int64) {
        cond.lock()
        used = max(0, used - bytes)
        running -= 1
        cond.broadcast()
        cond.unlock()
    }

    /// Estimated peak bytes to develop one image: the file read into memory, the mosaic (2 B/px,
    /// twice while LibRaw's buffer and the cropped copy coexist), the rendered image (3 B/px,
    /// 6 B/px at 16 bits) plus an encoded/converted copy of the same size, and per-thread tile
    /// scratch of (tile + 32)² pixels × 64 B (float RGB planes and demosaic halos). The sizes come
    /// from files and arguments: the sum saturates at `Int64.max` instead of overflowing.
    public static func estimate(width: Int, height: Int, fileSize: Int64, sixteenBit: Bool,
                                tileSize: Int, threads: Int) -> Int64 {
        let px = saturating(Int64(max(width, 1)), Int64(max(height, 1)))
        let out: Int64 = sixteenBit ? 6 : 3
        let side = Int64(max(tileSize, 0)).addingReportingOverflow(32)
        let tile = side.overflow ? Int64.max : saturating(saturating(side.partialValue, side.partialValue), 64)
        let terms = [max(fileSize, 0), saturating(px, 4), saturating(px, out * 2), saturating(Int64(max(threads, 1)), tile)]
        return terms.reduce(Int64(0)) { a, b in
            let r = a.addingReportingOverflow(b)
            return r.overflow ? Int64.max : r.partialValue
        }
    }

    /// a × b for non-negative values, `Int64.max` on overflow.
    static func saturating(_ a: Int64, _ b: Int64) -> Int64 {
        let r = a.multipliedReportingOverflow(by: b)
        return r.overflow ? Int64.max : r.partialValue
    }

    /// Parses "4G", "512M", "2048K", "1.5G" or plain bytes.
    public static func parseSize(_ text: String) -> Int64? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        guard let last = t.last else { return nil }
        let mult: Double
        var num = t
        switch last {
        case "K": mult = 1024; num.removeLast()
        case "M": mult = 1_048_576; num.removeLast()
        case "G": mult = 1_073_741_824; num.removeLast()
        case "T": mult = 1_099_511_627_776; num.removeLast()
        default: mult = 1
        }
        guard let v = Double(num), v > 0, v.isFinite else { return nil }
        let bytes = v * mult
        // 2⁶² bytes (4 EiB) is far beyond any machine and safely inside Int64.
        guard bytes >= 1, bytes <= 4.611686018427388e18 else { return nil }
        return Int64(bytes)
    }

    /// Physical memory in bytes.
    public static var physicalMemory: Int64 { Int64(ProcessInfo.processInfo.physicalMemory) }
}
