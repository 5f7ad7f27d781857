import Foundation

/// SHA-256 (FIPS 180-4), streaming, for input content hashes and recipe hashes.
public struct SHA256: Sendable {
    private var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0
    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2]

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        length &+= UInt64(bytes.count)
        var i = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, bytes.count)
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[0..<take]))
            i = take
            if buffer.count == 64 {
                let full = buffer
                buffer.removeAll(keepingCapacity: true)
                full.withUnsafeBytes { block($0) }
            }
        }
        while i + 64 <= bytes.count {
            block(UnsafeRawBufferPointer(rebasing: bytes[i..<i + 64]))
            i += 64
        }
        if i < bytes.count { buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[i...])) }
    }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    public mutating func finalize() -> [UInt8] {
        let bits = length &* 8
        var pad: [UInt8] = [0x80]
        while (buffer.count + pad.count) % 64 != 56 { pad.append(0) }
        for s in stride(from: 56, through: 0, by: -8) { pad.append(UInt8(truncatingIfNeeded: bits >> UInt64(s))) }
        let saved = length
        update(pad)
        length = saved
        return h.flatMap { v in (0..<4).map { UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32($0))) } }
    }

    private mutating func block(_ p: UnsafeRawBufferPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in compress(p, w) }
    }

    private mutating func compress(_ p: UnsafeRawBufferPointer, _ w: UnsafeMutableBufferPointer<UInt32>) {
        for t in 0..<16 {
            w[t] = UInt32(p[4 * t]) << 24 | UInt32(p[4 * t + 1]) << 16 | UInt32(p[4 * t + 2]) << 8 | UInt32(p[4 * t + 3])
        }
        for t in 16..<64 {
            let s0 = w[t - 15].rotr(7) ^ w[t - 15].rotr(18) ^ (w[t - 15] >> 3)
            let s1 = w[t - 2].rotr(17) ^ w[t - 2].rotr(19) ^ (w[t - 2] >> 10)
            w[t] = w[t - 16] &+ s0 &+ w[t - 7] &+ s1
        }
        var a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
        for t in 0..<64 {
            let t1 = hh &+ (e.rotr(6) ^ e.rotr(11) ^ e.rotr(25)) &+ ((e & f) ^ (~e & g)) &+ Self.k[t] &+ w[t]
            let t2 = (a.rotr(2) ^ a.rotr(13) ^ a.rotr(22)) &+ ((a & b) ^ (a & c) ^ (b & c))
            hh = g; g = f; f = e; e = d &+ t1; d = c; c = b; b = a; a = t1 &+ t2
        }
        h[0] &+= a; h[1] &+= b; h[2] &+= c; h[3] &+= d; h[4] &+= e; h[5] &+= f; h[6] &+= g; h[7] &+= hh
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        var s = SHA256()
        s.update(bytes)
        return s.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// SHA-256 of a file's content, read in 1 MiB chunks; nil when it cannot be read.
    public static func hexOfFile(_ path: String) -> String? {
        guard let fh = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? fh.close() }
        var s = SHA256()
        while true {
            let chunk: Data?
            do { chunk = try fh.read(upToCount: 1 << 20) } catch { return nil }
            guard let chunk, !chunk.isEmpty else { break }   // nil or empty: end of file
            chunk.withUnsafeBytes { s.update($0) }
        }
        return s.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

extension UInt32 {
    @inline(__always) fileprivate func rotr(_ n: UInt32) -> UInt32 { (self >> n) | (self << (32 - n)) }
}
