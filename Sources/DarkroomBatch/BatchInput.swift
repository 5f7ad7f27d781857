import DarkroomIO
import Foundation

/// One input file of a batch.
public struct BatchInput: Sendable, Equatable, Codable {
    /// The path as found (relative paths stay relative to the working directory).
    public var path: String
    /// The path relative to its input root (a named file: its file name; a file found in a
    /// directory or by a glob: its path below that directory / the glob's fixed prefix).
    public var relativePath: String
    /// Named explicitly on the command line (a non-RAW explicit file is a failure; a non-RAW
    /// file found in a directory is skipped and reported).
    public var explicit: Bool
    public init(path: String, relativePath: String, explicit: Bool) {
        self.path = path; self.relativePath = relativePath; self.explicit = explicit
    }
}

/// Expands command-line inputs (files, directories, glob patterns) into a sorted, de-duplicated
/// list of files. Hidden files and directories (".name") are never picked up from directories.
///
/// Nothing is opened here: types come from stat(2), so a FIFO, device or socket never blocks the
/// expansion (the runner refuses them as inputs). The same file reached twice (another spelling,
/// a symlink, a hard link: the same device and inode) is listed once, and a directory walk
/// enters each directory (device, inode) once, so symlink loops end.
public enum InputExpander {
    public static func expand(_ args: [String], recursive: Bool, excluding excluded: String? = nil) throws(BatchError) -> [BatchInput] {
        var out: [BatchInput] = []
        var seenFiles = Set<AtomicWriter.FileIdentity>()
        var seenPaths = Set<String>()
        var visitedDirectories = Set<AtomicWriter.FileIdentity>()
        if let excluded, let id = AtomicWriter.FileIdentity.of(path: excluded) { visitedDirectories.insert(id) }
        func add(_ i: BatchInput) {
            if let id = AtomicWriter.FileIdentity.of(path: i.path) {
                if seenFiles.insert(id).inserted { out.append(i) }
            } else if seenPaths.insert(URL(fileURLWithPath: i.path).standardizedFileURL.path).inserted {
                out.append(i)
            }
        }
        func isDirectory(_ path: String) -> Bool? {
            var s = stat()
            guard stat(path, &s) == 0 else { return nil }
            return (s.st_mode & S_IFMT) == S_IFDIR
        }
        for arg in args {
            if let dir = isDirectory(arg) {
                if dir {
                    for rel in walk(arg, recursive: recursive, visited: &visitedDirectories) {
                        add(BatchInput(path: join(arg, rel), relativePath: rel, explicit: false))
                    }
                } else {
                    add(BatchInput(path: arg, relativePath: (arg as NSString).lastPathComponent, explicit: true))
                }
            } else if isGlob(arg) {
                let matches = glob(arg)
                if matches.isEmpty { throw .usage("\(arg): no file matches this pattern") }
                let prefix = fixedPrefix(arg)
                for m in matches {
                    guard let d = isDirectory(m) else { continue }
                    if d {
                        for rel in walk(m, recursive: recursive, visited: &visitedDirectories) {
                            add(BatchInput(path: join(m, rel), relativePath: relative(join(m, rel), to: prefix), explicit: false))
                        }
                    } else {
                        add(BatchInput(path: m, relativePath: relative(m, to: prefix), explicit: false))
                    }
                }
            } else {
                // A missing file: kept, so it is reported as a failure naming it.
                add(BatchInput(path: arg, relativePath: (arg as NSString).lastPathComponent, explicit: true))
            }
        }
        return out
    }

    static func join(_ dir: String, _ rel: String) -> String { dir.hasSuffix("/") ? dir + rel : dir + "/" + rel }

    static func isGlob(_ s: String) -> Bool { s.contains { "*?[".contains($0) } }

    /// The directory part of a pattern before its first wildcard component.
    static func fixedPrefix(_ pattern: String) -> String {
        var parts: [Substring] = []
        let comps = pattern.split(separator: "/", omittingEmptySubsequences: false)
        for c in comps.dropLast() {
            if c.contains(where: { "*?[".contains($0) }) { break }
            parts.append(c)
        }
        let p = parts.joined(separator: "/")
        return pattern.hasPrefix("/") && p.isEmpty ? "/" : p
    }

    static func relative(_ path: String, to prefix: String) -> String {
        guard !prefix.isEmpty else { return path }
        let pre = prefix.hasSuffix("/") ? prefix : prefix + "/"
        return path.hasPrefix(pre) ? String(path.dropFirst(pre.count)) : (path as NSString).lastPathComponent
    }

    /// POSIX glob(3), sorted.
    static func glob(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard Glibc.glob(pattern, 0, nil, &g) == 0 else { return [] }
        var out: [String] = []
        for i in 0..<Int(g.gl_pathc) {
            if let p = g.gl_pathv[i] { out.append(String(cString: p)) }
        }
        return out.sorted()
    }

    /// Files under `dir` (relative paths, sorted; any non-directory: the runner refuses what is
    /// not a regular file), skipping hidden entries and directories already in `visited`.
    static func walk(_ dir: String, recursive: Bool, visited: inout Set<AtomicWriter.FileIdentity>) -> [String] {
        var out: [String] = []
        if let id = AtomicWriter.FileIdentity.of(path: dir), !visited.insert(id).inserted { return [] }
        func visit(_ rel: String) {
            let full = rel.isEmpty ? dir : join(dir, rel)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: full) else { return }
            for name in names.sorted() where !name.hasPrefix(".") {
                let r = rel.isEmpty ? name : rel + "/" + name
                var s = stat()
                guard stat(join(dir, r), &s) == 0 else { continue }
                if (s.st_mode & S_IFMT) == S_IFDIR {
                    if recursive && visited.insert(AtomicWriter.FileIdentity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino))).inserted {
                        visit(r)
                    }
                } else {
                    out.append(r)
                }
            }
        }
        visit("")
        return out
    }
}
