import CXXHash

/// XXH3-128 (xxHash 0.8, Debian's libxxhash), streaming: a fast, specified, non-cryptographic
/// 128-bit hash (https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md). The digest is
/// XXH128's canonical form (16 bytes, big-endian high then low half), the bytes `xxhsum -H2` prints.
public struct XXH3Hasher: ~Copyable {
    private let state: OpaquePointer

    /// A fresh state (seed 0); nil when libxxhash cannot allocate one.
    public init?() {
        guard let s = XXH3_createState() else { return nil }
        guard XXH3_128bits_reset(s) == XXH_OK else { XXH3_freeState(s); return nil }
        state = s
    }

    deinit { XXH3_freeState(state) }

    /// Adds `bytes` to the hash.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        _ = XXH3_128bits_update(state, base, bytes.count)   // fails only for a NULL state
    }

    /// The 16-byte canonical digest of everything added so far (the state stays usable).
    public func digest() -> [UInt8] {
        var canonical = XXH128_canonical_t()
        XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state))
        return withUnsafeBytes(of: canonical.digest) { Array($0) }
    }
}
