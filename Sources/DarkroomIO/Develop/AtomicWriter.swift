import Foundation

/// Writes whole files atomically: the bytes go to a hidden temporary file in the destination's
/// directory, are flushed to disk, and only then appear under the final name (`rename`, or
/// `link` + `unlink` when an existing file must not be replaced). A crash or error never leaves a
/// partial or overwritten output; the temporary file is removed on every error path.
public enum AtomicWriter {
    public enum Failure: Error, Sendable, CustomStringConvertible, Equatable {
        case exists(path: String)
        case io(path: String, reason: String)
        public var description: String {
            switch self {
            case .exists(let p): return "\(p): output exists (use --overwrite to replace it)"
            case .io(let p, let r): return "\(p): cannot write (\(r))"
            }
        }
    }

    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool) throws(Failure) {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent().path
        let tmp = dir + "/.\(url.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
        var ok = true
        var reason = ""
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; ok = false; reason = String(cString: strerror(errno)); return }
                off += n
            }
        }
        if ok && fsync(fd) != 0 { ok = false; reason = String(cString: strerror(errno)) }
        if close(fd) != 0 && ok { ok = false; reason = String(cString: strerror(errno)) }
        guard ok else { unlink(tmp); throw .io(path: path, reason: reason) }
        if overwrite {
            guard rename(tmp, path) == 0 else {
                let r = String(cString: strerror(errno)); unlink(tmp); throw .io(path: path, reason: r)
            }
        } else {
            // link() fails with EEXIST instead of replacing: no-clobber and atomic.
            if link(tmp, path) != 0 {
                let e = errno
                unlink(tmp)
                if e == EEXIST { throw .exists(path: path) }
                throw .io(path: path, reason: String(cString: strerror(e)))
            }
            unlink(tmp)
        }
    }
}
