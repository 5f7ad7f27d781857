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
        while !(used + bytes <= budget || running == 0) {
            if cancelled() { return false }
            _ = cond.wait(until: Date().addingTimeInterval(0.2))
        }
        used += bytes
        running += 1
        return true
    }

    public func release(_ bytes: Int64) {
        cond.lock()
        used -= bytes
        running -= 1
        cond.broadcast()
        cond.unlock()
    }

    /// Estimated peak bytes to develop one image: the file read into memory, the mosaic (2 B/px,
    /// twice while LibRaw's buffer and the cropped copy coexist), the rendered image (3 B/px,
    /// 6 B/px at 16 bits) plus an encoded/converted copy of the same size, and per-thread tile
    /// scratch of (tile + 32)² pixels × 64 B (float RGB planes and demosaic halos).
    public static func estimate(width: Int, height: Int, fileSize: Int64, sixteenBit: Bool,
                                tileSize: Int, threads: Int) -> Int64 {
        let px = Int64(max(width, 1)) * Int64(max(height, 1))
        let out: Int64 = sixteenBit ? 6 : 3
        let tile = Int64(tileSize + 32) * Int64(tileSize + 32) * 64
        return fileSize + px * 4 + px * out * 2 + Int64(max(threads, 1)) * tile
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
        return Int64(v * mult)
    }

    /// Physical memory in bytes.
    public static var physicalMemory: Int64 { Int64(ProcessInfo.processInfo.physicalMemory) }
}
