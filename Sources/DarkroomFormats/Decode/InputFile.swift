import Glibc

/// What may be read as an input: a regular file. FIFOs, devices, sockets and directories are
/// refused from their `stat` alone, before anything opens them (opening a FIFO for reading
/// blocks; `/dev/zero` never ends).
public enum InputFile {
    /// Throws unless `path` names (possibly through symlinks) an existing regular file; returns
    /// its size in bytes.
    @discardableResult
    public static func requireRegularFile(_ path: String) throws(DecodeError) -> Int {
        var st = stat()
        guard stat(path, &st) == 0 else {
            let e = errno
            if e == ENOENT || e == ENOTDIR { throw .fileNotFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(e)))
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return Int(st.st_size)
        case S_IFDIR: throw .unreadable(path: path, reason: "is a directory")
        case S_IFIFO: throw .unreadable(path: path, reason: "is a FIFO, not a regular file")
        case S_IFCHR, S_IFBLK: throw .unreadable(path: path, reason: "is a device, not a regular file")
        case S_IFSOCK: throw .unreadable(path: path, reason: "is a socket, not a regular file")
        default: throw .unreadable(path: path, reason: "is not a regular file")
        }
    }

    /// Opens `path` read-only without blocking (O_NONBLOCK keeps a FIFO swapped in after the
    /// check from blocking the open) and checks that the descriptor is a regular file; returns
    /// the descriptor and its size. The caller closes it.
    public static func openRegular(_ path: String) throws(DecodeError) -> (fd: Int32, size: Int) {
        try requireRegularFile(path)
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { throw .fileNotFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(e)))
        }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .unreadable(path: path, reason: "is not a regular file")
        }
        return (fd, Int(st.st_size))
    }
}
