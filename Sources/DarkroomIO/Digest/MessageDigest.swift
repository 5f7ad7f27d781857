import CCrypto

/// A streaming message digest computed by OpenSSL's libcrypto through its EVP interface: the
/// algorithms the formats we read and write name (MD5 for the DNG raw-image digests and ICC
/// profile IDs, SHA-256 for recipe and manifest hashes). The context is owned by this object and
/// freed with it; one object per thread.
final class MessageDigest {
    enum Algorithm { case md5, sha256 }

    private let context: OpaquePointer

    init(_ algorithm: Algorithm) {
        let md: OpaquePointer? = switch algorithm {
        case .md5: EVP_md5()
        case .sha256: EVP_sha256()
        }
        guard let ctx = EVP_MD_CTX_new(), let md, EVP_DigestInit_ex(ctx, md, nil) == 1 else {
            preconditionFailure("libcrypto could not set up a \(algorithm) digest (out of memory)")
        }
        context = ctx
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The digest of everything passed to `update`; the object is spent afterwards.
    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &out, &length)
        return Array(out.prefix(Int(length)))
    }
}

/// MD5 (RFC 1321), streaming. Used where a format names it (DNG `RawImageDigest`,
/// `NewRawImageDigest`, `OriginalRawFileDigest`; the ICC profile ID); not for security.
public struct MD5 {
    private let digest = MessageDigest(.md5)

    public init() {}

    public func update(_ bytes: UnsafeRawBufferPointer) { digest.update(bytes) }

    public func update(_ bytes: [UInt8]) { bytes.withUnsafeBytes { digest.update($0) } }

    /// The 16-byte digest.
    public func finalize() -> [UInt8] { digest.finalize() }

    /// The MD5 of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let m = MD5()
        m.update(bytes)
        return m.finalize()
    }
}
