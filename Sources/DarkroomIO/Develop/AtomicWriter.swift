import Foundation

/// The one way Darkroom writes a whole file: the bytes go to a hidden temporary file in the
/// destination's directory (`.tmp-PID-N-HOST`, short, so destination names up to 255 bytes work, and
/// recognised by the crash clean-up `TempSweeper`), are flushed to disk (`fsync`), and only then
/// appear under the final name (`renameat`, or `linkat` + `unlinkat` when an existing file must
/// not be replaced). A crash or error never leaves a partial or overwritten output; the temporary
/// file is removed on every error path.
///
/// Two ways to name the destination:
/// - `write(_:in:relativePath:…)`: relative to an output directory (`Directory`, an open file
///   descriptor); every component below it is opened with `O_NOFOLLOW | O_DIRECTORY` (created
///   with `mkdirat` when missing), so no symbolic link below the directory is ever followed and a
///   write can never land outside it. Batch outputs and the manifest go this way.
/// - `write(_:to:overwrite:)`: a plain path (reports, thumbnails). In a process that called
///   `confine(to:)` (a batch worker) a path below the confinement directory is written as above
///   and any other path is refused.
public enum AtomicWriter {
    public enum Failure: Error, Sendable, CustomStringConvertible, Equatable {
        /// The destination exists and replacing was not asked for.
        case exists(path: String)
        /// The output side failed (EROFS, EIO, EACCES, …).
        case io(path: String, reason: String)
        /// The device or quota is full (ENOSPC, EDQUOT): free space and rerun.
        case noSpace(path: String, reason: String)
        /// The destination is not allowed: a symlink or non-directory below the output directory,
        /// an input file, the manifest, the report, or outside the confinement directory.
        case refused(path: String, reason: String)

        public var description: String {
            switch self {
            case .exists(let p): return "\(p): output exists (use --overwrite to replace it)"
            case .io(let p, let r), .noSpace(let p, let r): return "\(p): cannot write (\(r))"
            case .refused(let p, let r): return "\(p): refused as output (\(r))"
            }
        }

        /// Report category: `exists`, `write`, `no-space` or `output-refused`.
        public var category: String {
            switch self {
            case .exists: return "exists"
            case .io: return "write"
            case .noSpace: return "no-space"
            case .refused: return "output-refused"
            }
        }

        /// A failure of the output side from `errno`.
        static func from(errno e: Int32, path: String) -> Failure {
            let reason = String(cString: strerror(e))
            return e == ENOSPC || e == EDQUOT ? .noSpace(path: path, reason: reason) : .io(path: path, reason: reason)
        }
    }

    /// A file's identity: device and inode numbers (`st_dev`, `st_ino`).
    public struct FileIdentity: Hashable, Sendable, Codable {
        public var device: UInt64
        public var inode: UInt64
        public init(device: UInt64, inode: UInt64) { self.device = device; self.inode = inode }
        init(_ s: stat) { device = UInt64(s.st_dev); inode = UInt64(s.st_ino) }

        /// The identity of the file at `path` (symlinks followed), when it exists.
        public static func of(path: String) -> FileIdentity? {
            var s = stat()
            return stat(path, &s) == 0 ? FileIdentity(s) : nil
        }
    }

    /// An output directory held open: writes below it never follow a symbolic link.
    public final class Directory: @unchecked Sendable {
        /// The directory as named (used in messages and to recognise paths below it).
        public let path: String
        /// Its identity (device, inode).
        public let identity: FileIdentity
        let fd: Int32
        private let lock = NSLock()
        private var protectedIdentities: Set<FileIdentity> = []
        private var protectedNames: Set<String> = []

        /// Opens `path` (created with its parents when missing; symlinks in `path` itself are
        /// followed: it is the caller's choice of directory).
        public init(path: String, create: Bool = true) throws(Failure) {
            if create {
                do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
                    throw .io(path: path, reason: "cannot create output directory: \((error as NSError).localizedDescription)")
                }
            }
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { throw .io(path: path, reason: "cannot open output directory: \(String(cString: strerror(errno)))") }
            var s = stat()
            fstat(fd, &s)
            self.fd = fd
            self.path = path
            self.identity = FileIdentity(s)
        }

        deinit { close(fd) }

        /// Files that must never be replaced by a write below this directory (inputs), and
        /// relative paths reserved for other uses (the manifest, its lock, the report).
        public func protect(identities: Set<FileIdentity> = [], names: Set<String> = []) {
            lock.lock(); defer { lock.unlock() }
            protectedIdentities.formUnion(identities)
            protectedNames.formUnion(names.map(Self.normalised))
        }

        /// Replaces the protected identities (a worker protects the input it is developing).
        public func setProtected(identities: Set<FileIdentity>) {
            lock.lock(); protectedIdentities = identities; lock.unlock()
        }

        func isProtected(name: String) -> Bool { lock.lock(); defer { lock.unlock() }; return protectedNames.contains(Self.normalised(name)) }
        func isProtected(_ id: FileIdentity) -> Bool { lock.lock(); defer { lock.unlock() }; return protectedIdentities.contains(id) }

        static func normalised(_ rel: String) -> String {
            rel.split(separator: "/").filter { $0 != "." && !$0.isEmpty }.joined(separator: "/")
        }

        /// `path/rel`.
        public func fullPath(_ rel: String) -> String { path.hasSuffix("/") ? path + rel : path + "/" + rel }

        /// The path relative to this directory when `full` names a place below it (textually).
        public func relative(_ full: String) -> String? { Self.relative(full, below: path) }

        /// `full` relative to `root` when it names a place below it (textually), else nil.
        public static func relative(_ full: String, below root: String) -> String? {
            let root = root.hasSuffix("/") ? root : root + "/"
            guard full.hasPrefix(root) else { return nil }
            let rel = normalised(String(full.dropFirst(root.count)))
            return rel.isEmpty ? nil : rel
        }

        /// Throws `refused` when a directory component of `rel` below this directory is a
        /// symbolic link or not a directory (missing ones are fine: writes create them).
        public func checkParents(of rel: String) throws(Failure) {
            let comps = rel.split(separator: "/").map(String.init).filter { $0 != "." && !$0.isEmpty }
            if comps.contains("..") { throw .refused(path: fullPath(rel), reason: "'..' below the output directory") }
            var cur = dup(fd)
            guard cur >= 0 else { return }
            defer { close(cur) }
            var walked = path
            for c in comps.dropLast() {
                walked += "/" + c
                let next = openat(cur, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if next < 0 {
                    if errno == ENOENT { return }
                    if errno == ELOOP || errno == ENOTDIR {
                        throw .refused(path: walked, reason: "not a directory or a symbolic link below the output directory; never followed")
                    }
                    throw .from(errno: errno, path: walked)
                }
                close(cur)
                cur = next
            }
        }

        /// Opens the directory that holds `rel` (every component opened with O_NOFOLLOW |
        /// O_DIRECTORY, missing ones created when `create`); returns its descriptor (the caller
        /// closes it) and the last component. `..` components are refused.
        func openParent(of rel: String, create: Bool) throws(Failure) -> (fd: Int32, name: String) {
            let comps = rel.split(separator: "/").map(String.init).filter { $0 != "." && !$0.isEmpty }
            guard let name = comps.last else { throw .refused(path: fullPath(rel), reason: "empty name") }
            if comps.contains("..") { throw .refused(path: fullPath(rel), reason: "'..' below the output directory") }
            var cur = dup(fd)
            guard cur >= 0 else { throw .from(errno: errno, path: fullPath(rel)) }
            var walked = path
            for c in comps.dropLast() {
                walked += "/" + c
                var next = openat(cur, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                if next < 0 && errno == ENOENT && create {
                    if mkdirat(cur, c, 0o755) != 0 && errno != EEXIST {
                        let e = errno; close(cur); throw .from(errno: e, path: walked)
                    }
                    next = openat(cur, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }
                if next < 0 {
                    let e = errno
                    close(cur)
                    if e == ELOOP || e == ENOTDIR {
                        throw .refused(path: walked, reason: "not a directory or a symbolic link below the output directory; never followed")
                    }
                    if e == ENOENT { throw .io(path: walked, reason: "no such directory") }
                    throw .from(errno: e, path: walked)
                }
                close(cur)
                cur = next
            }
            return (cur, name)
        }

        /// lstat of `rel` below this directory (no symlink followed), nil when missing or unreachable.
        public func status(_ rel: String) -> stat? {
            guard let (dfd, name) = try? openParent(of: rel, create: false) else { return nil }
            defer { close(dfd) }
            var s = stat()
            return fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) == 0 ? s : nil
        }

        /// Why nothing may be written at `rel` below this directory, whatever --overwrite says (one
        /// line naming the path), or nil: a symlink or non-directory among its parents, an input
        /// of this run (`inputs`: the same device and inode) or a name in `reserved` (the
        /// manifest, its lock, the report). Every batch command (develop, convert) asks this
        /// before it writes an output.
        public func outputRefusal(_ rel: String, inputs: Set<FileIdentity>, reserved: [String] = []) -> String? {
            do throws(Failure) { try checkParents(of: rel) } catch { return error.description }
            if let found = status(rel), inputs.contains(FileIdentity(found)) {
                return "\(fullPath(rel)): refused as output (it is an input of this run)"
            }
            if reserved.contains(rel) { return "\(fullPath(rel)): refused as output (reserved for the manifest or the report)" }
            return nil
        }

        /// Whether something (of any type) exists at `rel`.
        public func exists(_ rel: String) -> Bool { status(rel) != nil }

        /// Opens the regular file at `rel` for reading (no symlink followed; a FIFO or device is
        /// not read), nil when missing; the caller closes the descriptor.
        public func openRegular(_ rel: String) -> Int32? {
            guard let (dfd, name) = try? openParent(of: rel, create: false) else { return nil }
            defer { close(dfd) }
            let f = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard f >= 0 else { return nil }
            var s = stat()
            guard fstat(f, &s) == 0, (s.st_mode & S_IFMT) == S_IFREG else { close(f); return nil }
            return f
        }

        /// The bytes of the regular file at `rel` (no symlink followed), nil when missing.
        public func read(_ rel: String) -> [UInt8]? {
            guard let f = openRegular(rel) else { return nil }
            defer { close(f) }
            var out: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buf.withUnsafeMutableBytes { Foundation.read(f, $0.baseAddress, $0.count) }
                if n < 0 { if errno == EINTR { continue }; return nil }
                if n == 0 { break }
                out += buf[0..<n]
            }
            return out
        }

        /// Removes the file at `rel` (not a directory); true when it was removed.
        @discardableResult
        public func remove(_ rel: String) -> Bool {
            guard let (dfd, name) = try? openParent(of: rel, create: false) else { return false }
            defer { close(dfd) }
            return unlinkat(dfd, name, 0) == 0
        }

        /// Opens (creating) a regular file at `rel` for locking or appending; the caller closes it.
        public func openFile(_ rel: String, flags: Int32) throws(Failure) -> Int32 {
            let (dfd, name) = try openParent(of: rel, create: true)
            defer { close(dfd) }
            let f = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard f >= 0 else { throw .from(errno: errno, path: fullPath(rel)) }
            return f
        }
    }

    private static let confinementLock = NSLock()
    nonisolated(unsafe) private static var confinement: Directory?

    /// From now on, this process writes with `write(_:to:overwrite:)` only below `directory`,
    /// through its descriptor (a batch worker confines itself to OUTDIR).
    public static func confine(to directory: Directory) {
        confinementLock.lock(); confinement = directory; confinementLock.unlock()
    }

    /// Writes `bytes` to the file at `path` (see the type's description).
    public static func write(_ bytes: [UInt8], to path: String, overwrite: Bool) throws(Failure) {
        confinementLock.lock()
        let confined = confinement
        confinementLock.unlock()
        if let confined {
            guard let rel = confined.relative(path) else {
                throw .refused(path: path, reason: "outside the output directory \(confined.path)")
            }
            try write(bytes, in: confined, relativePath: rel, overwrite: overwrite)
            return
        }
        let dir = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let dfd = open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { throw .from(errno: errno, path: path) }
        defer { close(dfd) }
        try write(bytes, directory: dfd, name: name, displayPath: path, overwrite: overwrite, protected: { _ in false })
    }

    /// Writes `bytes` to `relativePath` below `directory`, creating missing sub-directories and
    /// following no symbolic link; refuses protected names and files (see `Directory.protect`).
    public static func write(_ bytes: [UInt8], in directory: Directory, relativePath: String, overwrite: Bool) throws(Failure) {
        let display = directory.fullPath(relativePath)
        if directory.isProtected(name: relativePath) {
            throw .refused(path: display, reason: "reserved for the manifest or the report")
        }
        let (dfd, name) = try directory.openParent(of: relativePath, create: true)
        defer { close(dfd) }
        try write(bytes, directory: dfd, name: name, displayPath: display, overwrite: overwrite,
                  protected: { directory.isProtected($0) })
    }

    private static let counterLock = NSLock()
    nonisolated(unsafe) private static var counter: UInt32 = UInt32.random(in: 0...UInt32.max)

    /// A temporary name `.tmp-PID-N-HOST` (at most 36 bytes), unique within this process; HOST is
    /// `hostTag`, so a crash clean-up on another machine sharing the folder can tell that PID is
    /// not one of its own processes.
    static func temporaryName() -> String {
        counterLock.lock(); defer { counterLock.unlock() }
        counter &+= 1
        return ".tmp-\(getpid())-\(counter)-\(hostTag)"
    }

    /// This machine, boot and container as 8 hex digits: FNV-1a of the host name (a container's
    /// own, e.g. a Kubernetes pod's) and the kernel's boot id. Process ids mean something only
    /// where this is the same.
    public static let hostTag: String = {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0 ? String(cString: name) : ""
        let boot = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8)) ?? ""
        var h: UInt32 = 0x811c9dc5
        for b in (host + "\n" + boot.trimmingCharacters(in: .whitespacesAndNewlines)).utf8 { h = (h ^ UInt32(b)) &* 0x01000193 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }()

    /// A temporary path beside `path` (same directory, `temporaryName()`), for writers that must
    /// hand a path to a library (libtiff) and rename the file into place themselves; the crash
    /// clean-up (`TempSweeper`) recognises it like every other temporary file.
    static func temporaryPath(beside path: String) -> String {
        let dir = (path as NSString).deletingLastPathComponent
        return (dir.isEmpty ? "." : dir) + "/" + temporaryName()
    }

    static func write(_ bytes: [UInt8], directory dfd: Int32, name: String, displayPath: String, overwrite: Bool,
                      protected: (FileIdentity) -> Bool) throws(Failure) {
        var existing = stat()
        let exists = fstatat(dfd, name, &existing, AT_SYMLINK_NOFOLLOW) == 0
        if exists {
            if protected(FileIdentity(existing)) {
                throw .refused(path: displayPath, reason: "it is an input of this run")
            }
            if !overwrite { throw .exists(path: displayPath) }
            if (existing.st_mode & S_IFMT) == S_IFDIR { throw .refused(path: displayPath, reason: "a directory is in the way") }
        }
        var tmp = temporaryName()
        var fd: Int32 = -1
        for _ in 0..<8 {
            fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd >= 0 || errno != EEXIST { break }
            tmp = temporaryName()
        }
        guard fd >= 0 else { throw .from(errno: errno, path: displayPath) }
        var err: Int32 = 0
        bytes.withUnsafeBytes { raw in
            var off = 0
            while off < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + off, raw.count - off)
                if n < 0 { if errno == EINTR { continue }; err = errno; return }
                off += n
            }
        }
        if err == 0 && fsync(fd) != 0 { err = errno }
        if close(fd) != 0 && err == 0 { err = errno }
        guard err == 0 else { unlinkat(dfd, tmp, 0); throw .from(errno: err, path: displayPath) }
        if overwrite {
            guard renameat(dfd, tmp, dfd, name) == 0 else {
                let e = errno; unlinkat(dfd, tmp, 0); throw .from(errno: e, path: displayPath)
            }
        } else {
            // linkat() fails with EEXIST instead of replacing: no-clobber and atomic.
            if linkat(dfd, tmp, dfd, name, 0) != 0 {
                let e = errno
                unlinkat(dfd, tmp, 0)
                if e == EEXIST { throw .exists(path: displayPath) }
                throw .from(errno: e, path: displayPath)
            }
            unlinkat(dfd, tmp, 0)
        }
    }
}
