import Foundation

/// `--shard K/N`: this process develops the inputs whose FNV-1a 64-bit hash of their path
/// relative to their input root, modulo N, equals K − 1 (K is 1-based, 1…N). The choice depends
/// only on each file's own relative path, so it is stable under reordering, adding or removing
/// other files, and N processes with K = 1…N cover every file exactly once without coordinating.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init(index: Int, count: Int) throws(BatchError) {
        guard count >= 1, (1...count).contains(index) else { throw .usage("--shard K/N needs 1 ≤ K ≤ N (got \(index)/\(count))") }
        self.index = index; self.count = count
    }

    /// Parses "K/N", or "auto" / "auto/N" (`init(scheduler:count:environment:)`: K, and N unless
    /// given, from the environment of the scheduler that started this process).
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(BatchError) {
        if text == "auto" { try self.init(scheduler: environment, count: nil); return }
        if text.hasPrefix("auto/") {
            guard let n = Int(text.dropFirst(5)), n >= 1 else { throw .usage("--shard auto/N needs a whole number N ≥ 1 (got '\(text)')") }
            try self.init(scheduler: environment, count: n)
            return
        }
        let p = text.split(separator: "/")
        guard p.count == 2, let k = Int(p[0]), let n = Int(p[1]) else { throw .usage("--shard must be K/N, e.g. 3/8 (got '\(text)')") }
        try self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    public func contains(relativePath: String) -> Bool {
        Int(Self.fnv1a64(relativePath) % UInt64(count)) == index - 1
    }

    public static func fnv1a64(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf29ce484222325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100000001b3 }
        return h
    }
}
