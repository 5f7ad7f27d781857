import Foundation

/// LEGACY ONLY — the home-made content hash manifests recorded before `ContentHash` became
/// XXH3-128 (records holding 32 bare hex digits). Kept solely so `ContentHash.matches` can
/// recognise such a record as the same input once (size or mtime differing), after which the
/// record is rewritten with the new hash; never used for new records.
///
/// Two independent XXH64-style lanes (multiply–rotate–multiply per 8-byte word, primes from
/// XXH64) over alternating words, with the XXH64 avalanche at the end.
public struct LegacyContentHash: Sendable {
    private static let p1: UInt64 = 11_400_714_785_074_694_791
    private static let p2: UInt64 = 14_029_467_366_897_019_727
    private static let p3: UInt64 = 1_609_587_929_392_839_161
    private var lane1: UInt64 = 0x9E37_79B9_7F4A_7C15
    private var lane2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private var pending: [UInt8] = []
    private var length: UInt64 = 0

    public init() {}

    @inline(__always) private static func round(_ acc: UInt64, _ word: UInt64) -> UInt64 {
        var a = acc &+ word &* p2
        a = (a << 31) | (a >> 33)
        return a &* p1
    }

    @inline(__always) private static func avalanche(_ v: UInt64) -> UInt64 {
        var h = v
        h ^= h >> 33; h = h &* p2
        h ^= h >> 29; h = h &* p3
        h ^= h >> 32
        return h
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var start = 0
        if !pending.isEmpty {
            let take = min(16 - pending.count, bytes.count)
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<take]))
            start = take
            if pending.count == 16 {
                pending.withUnsafeBytes { consume($0) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        let whole = (bytes.count - start) / 16 * 16
        if whole > 0 { consume(UnsafeRawBufferPointer(rebasing: bytes[start..<start + whole])) }
        if start + whole < bytes.count {
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[(start + whole)...]))
        }
    }

    /// Consumes a multiple of 16 bytes.
    private mutating func consume(_ p: UnsafeRawBufferPointer) {
        var a = lane1, b = lane2
        var i = 0
        while i < p.count {
            a = Self.round(a, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            b = Self.round(b, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)))
            i += 16
        }
        lane1 = a; lane2 = b
    }

    /// 32 hex digits.
    public mutating func finalize() -> String {
        var tail = pending + [0x80]
        while tail.count % 16 != 0 { tail.append(0) }
        tail.withUnsafeBytes { consume($0) }
        pending = []
        let h1 = Self.avalanche(lane1 ^ Self.round(lane2, length))
        let h2 = Self.avalanche(lane2 ^ Self.round(lane1, length &+ 1))
        return String(format: "%016llx%016llx", h1, h2)
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        var h = LegacyContentHash()
        bytes.withUnsafeBytes { h.update($0) }
        return h.finalize()
    }

    /// The legacy hash of a file's content, read in 256 KiB chunks; nil when it cannot be read.
    public static func hexOfFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let size = 256 << 10
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        defer { buffer.deallocate() }
        var h = LegacyContentHash()
        while true {
            let n = read(fd, buffer, size)
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            h.update(UnsafeRawBufferPointer(start: buffer, count: n))
        }
        return h.finalize()
    }
}
