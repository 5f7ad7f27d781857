import DarkroomCore
import CMapGuard
import Glibc

/// A read-only memory map of a whole file, unmapped when the value ends; the bytes are empty for
/// an empty file. The one place files are mapped: `ByteStorage` (metadata) and the native
/// DNG pixel decoders use it. Readers check offsets against the size when mapped; a file that
/// another process truncates while it is mapped (a hot folder still being copied into) would
/// make the kernel raise SIGBUS on the missing pages: the map is registered with `CMapGuard`,
/// whose handler replaces those pages with zeros and marks the map, so the read completes and
/// `truncatedWhileMapped` tells the reader to report the file as truncated.
package struct MappedFile: ~Copyable {
    /// Why the file could not be mapped (`strerror` text, or "not a regular file").
    package struct Failure: Error {
        package let reason: String
    }

    /// The mapped bytes, valid while this value lives.
    package let bytes: UnsafeRawBufferPointer
    /// The `CMapGuard` slot (-1: unguarded, e.g. an empty file).
    private let guardSlot: Int32

    package init(path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(reason: String(cString: strerror(errno))) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw Failure(reason: "not a regular file") }
        let size = Int(st.st_size)
        guard size > 0 else { bytes = UnsafeRawBufferPointer(start: nil, count: 0); guardSlot = -1; return }
        guard let p = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), p != MAP_FAILED else {
            throw Failure(reason: "mmap: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: p, count: size)
        guardSlot = dr_mapguard_register(p, size)
    }

    /// True when some read of the map reached pages the file no longer has (it was truncated
    /// after it was mapped); what was read there is zeros and must not be used.
    package var truncatedWhileMapped: Bool { guardSlot >= 0 && dr_mapguard_damaged(guardSlot) != 0 }

    /// Calls `body` with the mapped bytes, valid for the duration of the call.
    package borrowing func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(bytes)
    }

    /// `withBytes` for a decoder: afterwards, a file that shrank while it was read is `.truncated`
    /// (what was read past its new end is zeros, see `truncatedWhileMapped`).
    package borrowing func withDecodedBytes<R>(path: String, _ body: (UnsafeRawBufferPointer) throws(DecodeError) -> R) throws(DecodeError) -> R {
        let result = try body(bytes)
        if let shrank = shrinkage(path: path) { throw shrank }
        return result
    }

    /// The error a decoder reports when the file shrank while its pixels were read (see
    /// `truncatedWhileMapped`), else nil.
    package func shrinkage(path: String) -> DecodeError? {
        truncatedWhileMapped ? .truncated(path: path, detail: "the file shrank while its pixels were read (is it still being copied?)") : nil
    }

    deinit {
        if guardSlot >= 0 { _ = dr_mapguard_unregister(guardSlot) }
        if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) }
    }
}
