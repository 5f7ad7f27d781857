import CLensfun
import DarkroomCore
import Foundation

/// lensfun's lens database (Debian liblensfun-data-v1: /usr/share/lensfun/version_1, plus the
/// user's ~/.local/share/lensfun), loaded once per process on first use and never unloaded: the
/// camera and lens entries it hands out stay valid for the process's life. Searches are
/// serialised (lensfun documents no thread safety for them).
final class LensDatabase: @unchecked Sendable {
    /// The loaded database, or why it could not be loaded.
    static let shared: Result<LensDatabase, LensDatabaseError> = {
        guard let db = lf_db_new() else { return .failure(.unavailable("lensfun could not allocate a database")) }
        let rc = lf_db_load(db)
        guard rc == LF_NO_ERROR else {
            lf_db_destroy(db)
            return .failure(.unavailable("lensfun database not found or unreadable (error \(rc.rawValue); install liblensfun-data-v1)"))
        }
        return .success(LensDatabase(db))
    }()

    private let db: UnsafeMutablePointer<lfDatabase>
    private let lock = NSLock()

    private init(_ db: UnsafeMutablePointer<lfDatabase>) { self.db = db }

    deinit { lf_db_destroy(db) }

    /// The best camera entry for EXIF Make/Model (lensfun's fuzzy maker/model match), if any.
    func camera(maker: String, model: String) -> UnsafePointer<lfCamera>? {
        lock.withLock {
            guard let list = lf_db_find_cameras(db, maker, model) else { return nil }
            defer { lf_free(list) }
            return list[0]
        }
    }

    /// The best lens entry for a lens name (and maker, when known) usable on `camera` (mount and
    /// crop factor), by lensfun's score; nil when none matches.
    func lens(camera: UnsafePointer<lfCamera>, maker: String?, model: String) -> UnsafePointer<lfLens>? {
        lock.withLock {
            guard let list = lf_db_find_lenses_hd(db, camera, maker, model, 0) else { return nil }
            defer { lf_free(list) }
            return list[0]
        }
    }

    /// A lensfun multi-language string's default (untranslated) text, whatever the locale
    /// ("" for none): an `lfMLstr` starts with it.
    static func string(_ s: lfMLstr?) -> String {
        guard let s else { return "" }
        return String(cString: s)
    }
}

/// Why the lens database cannot be used.
enum LensDatabaseError: Error, Sendable, CustomStringConvertible {
    case unavailable(String)
    var description: String {
        switch self { case .unavailable(let reason): return reason }
    }
}
