import DarkroomIO
import Foundation

/// The content hash of an input file, for recognising unchanged inputs on resume: XXH3-128
/// (libxxhash, through `XXH3Hasher`) written `xxh3-128:` + 32 lowercase hex digits (the digest
/// `xxhsum -H2` prints). Not cryptographic — it identifies files, it does not defend against
/// crafted collisions. Manifests written before this form hold 32 bare hex digits of
/// `LegacyContentHash`; `matches` still recognises those.
public enum ContentHash {
    /// The prefix naming the algorithm in every hash this version records.
    public static let prefix = "xxh3-128:"
    /// Bytes read per `read(2)`: large enough that the system call cost vanishes, small enough to
    /// stay in the L2 cache between the kernel's copy and the hash.
    static let chunkBytes = 1 << 20

    /// The hash of `bytes`.
    public static func hex(_ bytes: [UInt8]) -> String {
        guard var h = XXH3Hasher() else { return prefix }
        bytes.withUnsafeBytes { h.update($0) }
        return format(h.digest())
    }

    /// The hash of a file's content, streamed in `chunkBytes` chunks; nil when it cannot be read.
    public static func hexOfFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard var h = XXH3Hasher() else { return nil }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkBytes, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n = read(fd, buffer, chunkBytes)
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { break }
            h.update(UnsafeRawBufferPointer(start: buffer, count: n))
        }
        return format(h.digest())
    }

    /// True for a hash recorded by a version before XXH3-128: 32 hex digits, no prefix.
    public static func isLegacy(_ recorded: String) -> Bool {
        recorded.utf8.count == 32 && recorded.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// Whether the file at `path` has the content `recorded` describes. `current` is the file's
    /// XXH3-128 hash (computed by the caller once, shared between records); a legacy record is
    /// compared with `LegacyContentHash` of the file instead (legacy-only path).
    public static func matches(recorded: String, path: String, current: () -> String?) -> Bool {
        if isLegacy(recorded) { return LegacyContentHash.hexOfFile(path) == recorded }
        return current() == recorded
    }

    private static func format(_ digest: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = Array(prefix.utf8)
        for b in digest { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}
