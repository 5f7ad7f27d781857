import Foundation

/// File-name extensions of camera RAW formats (LibRaw's and DNG's). They never decide how a file
/// is read (content does, `RawDecoder`); they decide only what a folder's unreadable file is: one
/// named like a RAW is a failure with its reason, anything else that no decoder recognises is
/// skipped and counted as not an image.
public enum RawFileExtensions {
    /// Lower-case, without the dot.
    public static let all: Set<String> = [
        "3fr", "ari", "arw", "bay", "braw", "cap", "cine", "cr2", "cr3", "crw", "cs1", "dc2", "dcr", "dng", "drf",
        "dsc", "eip", "erf", "fff", "gpr", "ia", "iiq", "k25", "kc2", "kdc", "mdc", "mef", "mos", "mrw", "nef",
        "nrw", "orf", "ori", "pef", "ptx", "pxn", "qtk", "r3d", "raf", "raw", "rw2", "rwl", "rwz", "sr2", "srf",
        "srw", "sti", "x3f",
    ]

    /// Whether `path`'s extension names a RAW format (any letter case).
    public static func isRaw(path: String) -> Bool {
        all.contains((path as NSString).pathExtension.lowercased())
    }
}
