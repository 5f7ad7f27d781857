import Glibc

/// A read-only memory map of a whole file, unmapped when the value ends; the bytes are empty for
/// an empty file. The one place files are mapped: `TIFFByteStorage` (metadata) and the native
/// DNG pixel decoders use it. Like every map, it must not be truncated by another process while
/// in use (the kernel would raise SIGBUS); readers check offsets against the size when mapped.
struct MappedFile: ~Copyable {
    /// Why the file could not be mapped (`strerror` text, or "not a regular file").
    struct Failure: Error {
        let reason: String
    }

    /// The mapped bytes, valid while this value lives.
    let bytes: UnsafeRawBufferPointer

    init(path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Failure(reason: "not a regular file") }
        let size = Int(st.st_size)
        guard size > 0 else { bytes = UnsafeRawBufferPointer(start: nil, count: 0); return }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw Failure(reason: "mmap: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: p, count: size)
    }

    /// Calls `body` with the mapped bytes, valid for the duration of the call.
    borrowing func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(bytes)
    }

    deinit {
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
