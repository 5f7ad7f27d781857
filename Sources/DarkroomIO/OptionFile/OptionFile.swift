import Foundation

/// Why a file named by an option (`--profile`, `--matte KIND=FILE`, `--reference`, `--flash-spectrum`,
/// `--pairs`) cannot be used. One line naming the file, the option's kind and the reason.
public enum OptionFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `open` or `read` failed (`reason` is strerror: "No such file or directory", "Permission denied").
    case unreadable(path: String, kind: OptionFile.Kind, reason: String)
    /// Not a regular file: a directory, FIFO, character or block device or socket (`what`).
    case notRegular(path: String, kind: OptionFile.Kind, what: String)
    /// Larger than the kind's limit (`bytes` as `stat` reports them).
    case tooLarge(path: String, kind: OptionFile.Kind, bytes: Int64, limit: Int)
    /// The first bytes are not the kind's signature.
    case wrongHeader(path: String, kind: OptionFile.Kind, expected: String)

    public var description: String {
        switch self {
        case .unreadable(let p, let k, let r): return "\(p): cannot read \(k.noun) (\(r))"
        case .notRegular(let p, let k, let w): return "\(p): is \(w), not a regular file (\(k.noun))"
        case .tooLarge(let p, let k, let n, let l):
            return "\(p): \(n) bytes is larger than the \(OptionFile.format(bytes: l)) limit for \(k.noun)"
        case .wrongHeader(let p, let k, let e): return "\(p): not \(k.noun) (\(e))"
        }
    }

    /// The message without the leading "PATH: " (for errors that name the file themselves).
    public var reason: String {
        let d = description, prefix = path + ": "
        return d.hasPrefix(prefix) ? String(d.dropFirst(prefix.count)) : d
    }

    /// The path of the file.
    public var path: String {
        switch self {
        case .unreadable(let p, _, _), .notRegular(let p, _, _), .tooLarge(let p, _, _, _), .wrongHeader(let p, _, _): return p
        }
    }
}

/// The one way an option file is read: `open(O_NONBLOCK)` + `fstat` first (a FIFO, device,
/// socket or directory is refused by kind and never read, so it can neither block nor stream
/// forever), then the kind's size limit from `st_size` (a 2 GiB file is refused before a byte is
/// read), then the kind's signature from the first bytes, and only then the rest, never more than
/// the limit (a file that grows while being read is refused too).
///
/// Limits (documented for users; each far above what a real file of the kind needs):
/// | kind | limit | header |
/// |---|---|---|
/// | camera profile (.dcp) | 64 MiB | `IIRC` or `MMCR` (DNG camera profile TIFF magic) |
/// | matte PNG | 256 MiB | the PNG signature |
/// | chart reference (CGATS) | 16 MiB | text (no NUL in the first 4 KiB) |
/// | spectrum CSV | 1 MiB | text |
/// | pairs CSV | 1 MiB | text |
public enum OptionFile {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case cameraProfile, matte, chartReference, spectrum, pairs

        /// How messages name a file of this kind.
        public var noun: String {
            switch self {
            case .cameraProfile: return "a DNG camera profile (.dcp)"
            case .matte: return "a matte PNG"
            case .chartReference: return "a CGATS chart reference"
            case .spectrum: return "a spectrum CSV"
            case .pairs: return "a pairs CSV"
            }
        }

        /// Largest accepted file, in bytes.
        public var limit: Int {
            switch self {
            case .cameraProfile: return 64 << 20
            case .matte: return 256 << 20
            case .chartReference: return 16 << 20
            case .spectrum, .pairs: return 1 << 20
            }
        }

        /// Whether `head` (the first ≤ 4096 bytes) may start a file of this kind; nil when it may,
        /// else what was expected.
        func headerProblem(_ head: ArraySlice<UInt8>) -> String? {
            switch self {
            case .cameraProfile:
                let magic = Array(head.prefix(4))
                return magic == Array("IIRC".utf8) || magic == Array("MMCR".utf8) ? nil : "no IIRC/MMCR header"
            case .matte:
                return Array(head.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] ? nil : "no PNG signature"
            case .chartReference, .spectrum, .pairs:
                return head.contains(0) ? "binary data, expected text" : nil
            }
        }
    }

    /// What `fstat` says a non-regular file is, for messages ("a directory", "a FIFO", …).
    static func what(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a regular file"
        }
    }

    static func format(bytes: Int) -> String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20) MiB" : "\(bytes) bytes"
    }

    /// Checks `path` as a file of `kind` without reading past its header (stat, size, signature).
    public static func check(_ path: String, kind: Kind) throws(OptionFileError) {
        let fd = try openChecked(path, kind: kind)
        close(fd.fd)
    }

    /// The bytes of `path`, after the checks described on the type.
    public static func read(_ path: String, kind: Kind) throws(OptionFileError) -> [UInt8] {
        let (fd, size) = try openChecked(path, kind: kind)
        defer { close(fd) }
        guard lseek(fd, 0, SEEK_SET) == 0 else { throw .unreadable(path: path, kind: kind, reason: String(cString: strerror(errno))) }
        var bytes = [UInt8](repeating: 0, count: min(kind.limit, Int(size)) + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .unreadable(path: path, kind: kind, reason: String(cString: strerror(errno))) }
            if n == 0 { break }
            count += n
        }
        guard count <= kind.limit else { throw .tooLarge(path: path, kind: kind, bytes: Int64(count), limit: kind.limit) }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Opens `path` non-blocking, refuses what is not a regular file, over the limit or without
    /// the kind's header; returns the descriptor (the caller closes it) and the size.
    static func openChecked(_ path: String, kind: Kind) throws(OptionFileError) -> (fd: Int32, size: Int64) {
        guard !path.isEmpty else { throw .unreadable(path: path, kind: kind, reason: "empty path") }
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { throw .unreadable(path: path, kind: kind, reason: String(cString: strerror(errno))) }
        var s = stat()
        guard fstat(fd, &s) == 0 else {
            let e = errno; close(fd); throw .unreadable(path: path, kind: kind, reason: String(cString: strerror(e)))
        }
        guard (s.st_mode & S_IFMT) == S_IFREG else { close(fd); throw .notRegular(path: path, kind: kind, what: what(s.st_mode)) }
        guard s.st_size <= kind.limit else { close(fd); throw .tooLarge(path: path, kind: kind, bytes: Int64(s.st_size), limit: kind.limit) }
        var head = [UInt8](repeating: 0, count: 4096)
        var got = 0
        while got < head.count {
            let n = head.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { let e = errno; close(fd); throw .unreadable(path: path, kind: kind, reason: String(cString: strerror(e))) }
            if n == 0 { break }
            got += n
        }
        if let problem = kind.headerProblem(head[0..<got]) { close(fd); throw .wrongHeader(path: path, kind: kind, expected: problem) }
        return (fd, Int64(s.st_size))
    }
}
