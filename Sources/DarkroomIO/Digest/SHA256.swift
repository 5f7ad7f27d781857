import Foundation

/// SHA-256 (FIPS 180-4), streaming, computed by libcrypto (`MessageDigest`); used for recipe,
/// manifest and extracted-file hashes.
public struct SHA256 {
    private let hasher = MessageDigest(.sha256)

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bytes) }

    public mutating func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { update($0) } }

    /// The 32-byte digest.
    public func finalize() -> [UInt8] { Array(hasher.finalize()) }

    /// Lowercase hex of the digest of `bytes`, as `sha256sum` prints it.
    public static func hex(_ bytes: [UInt8]) -> String {
        var s = SHA256()
        s.update(bytes)
        return hexString(s.finalize())
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
        return hexString(s.finalize())
    }

    private static func hexString(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
