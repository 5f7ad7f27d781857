extension Array where Element: BitwiseCopyable {
    /// `count` elements left uninitialised (no zero-fill pass), for buffers whose every element the
    /// caller writes before anything reads it.
    ///
    /// Transparent huge pages (`MADV_HUGEPAGE`) were tried for these buffers: on this 2-core VM the
    /// median 24 MP develop went 0.25 → 0.21 s, but one run in four took 0.36 s zeroing cold huge
    /// pages, so they are not used.
    public static func uninitialized(count: Int) -> [Element] {
        [Element](unsafeUninitializedCapacity: count) { _, n in n = count }
    }
}
