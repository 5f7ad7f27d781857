import DarkroomCore
import Glibc

extension TIFFFile {
    /// The whole file at `path` in one read (no intermediate `Data`).
    public static func readBytes(path: String) throws(TIFFError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .file(path: path, .unreadable(reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .file(path: path, .unreadable(reason: String(cString: strerror(errno)))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .file(path: path, .unreadable(reason: "not a regular file")) }
        let size = Int(st.st_size)
        var failure: String? = nil
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            var done = 0
            while done < size, let base = buffer.baseAddress {
                let n = read(fd, base + done, size - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = String(cString: strerror(errno)); break
                }
                if n == 0 { break }
                done += n
            }
            initialized = done
        }
        if let failure { throw .file(path: path, .unreadable(reason: failure)) }
        guard bytes.count == size else { throw .file(path: path, .unreadable(reason: "short read (\(bytes.count) of \(size) bytes)")) }
        return bytes
    }
}
