#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Yams

/// Reads a recipe file safely: a regular file only (a FIFO or device is refused by `fstat`
/// without blocking: it is opened `O_NONBLOCK` and never read), at most `maxBytes`, UTF-8,
/// nesting at most `maxDepth` levels and no anchors or aliases (both checked on the text before
/// the YAML parser builds a tree, so a hostile file can neither overflow its stack nor expand
/// exponentially), one mapping with no duplicate keys. Every error is one line naming the file.
public enum RecipeFile {
    /// Largest recipe file accepted, in bytes (a recipe is a few hundred bytes).
    static let maxBytes = 1 << 20
    /// Deepest nesting of mappings and sequences accepted (a recipe needs 2: `matte: {k: v}`).
    static let maxDepth = 8

    /// The file's top-level `key: value` pairs, in file order.
    public static func pairs(path: String) throws(BatchError) -> [(key: String, value: RecipeRawValue)] {
        let text = try readText(path: path)
        try prescan(text, path: path)
        let root: Node?
        do { root = try Yams.compose(yaml: text) } catch {
            let first = "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
            throw .usage("\(path): invalid YAML (\(first))")
        }
        guard let root else { return [] }
        guard case .mapping(let mapping) = root else {
            if root.null != nil { return [] }
            throw .usage("\(path): a recipe file is one YAML mapping of key: value lines")
        }
        var out: [(key: String, value: RecipeRawValue)] = []
        var seen = Set<String>()
        for (k, v) in mapping {
            guard case .scalar(let ks) = k else { throw .usage("\(path): keys must be plain names") }
            let key = ks.string
            guard seen.insert(key).inserted else { throw .usage("\(path): duplicate key '\(key)'") }
            if v.null != nil { continue }   // `key:` with no value: absent
            switch v {
            case .scalar(let s): out.append((key, .text(s.string)))
            case .sequence(let seq):
                var items: [String] = []
                for item in seq {
                    guard case .scalar(let s) = item else { throw .usage("\(path): \(key): must be a list of plain values") }
                    items.append(s.string)
                }
                out.append((key, .sequence(items)))
            case .mapping(let m):
                var items: [(String, String)] = []
                var inner = Set<String>()
                for (ik, iv) in m {
                    guard case .scalar(let a) = ik, case .scalar(let b) = iv else {
                        throw .usage("\(path): \(key): must map plain names to plain values")
                    }
                    guard inner.insert(a.string).inserted else { throw .usage("\(path): duplicate key '\(key).\(a.string)'") }
                    items.append((a.string, b.string))
                }
                out.append((key, .mapping(items)))
            }
        }
        return out
    }

    /// The file's text, after the regular-file, size and UTF-8 checks.
    static func readText(path: String) throws(BatchError) -> String {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw .usage("\(path): cannot read recipe file (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw .usage("\(path): cannot read recipe file (\(String(cString: strerror(errno))))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw .usage("\(path): a recipe file must be a regular file") }
        guard st.st_size <= maxBytes else {
            throw .usage("\(path): recipe file is \(st.st_size) bytes; the limit is \(maxBytes) (1 MiB)")
        }
        var bytes = [UInt8](repeating: 0, count: maxBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .usage("\(path): cannot read recipe file (\(String(cString: strerror(errno))))") }
            if n == 0 { break }
            count += n
        }
        guard count <= maxBytes else { throw .usage("\(path): recipe file is larger than \(maxBytes) bytes (1 MiB)") }
        guard let text = String(validating: bytes[0..<count], as: UTF8.self) else {
            throw .usage("\(path): recipe file is not UTF-8 text")
        }
        return text
    }

    /// Rejects nesting deeper than `maxDepth` (block indentation levels, `- ` markers and flow
    /// brackets together) and anchors/aliases, by a scan of the text that needs no stack.
    static func prescan(_ text: String, path: String) throws(BatchError) {
        var indents: [Int] = []
        var flow = 0
        var quote: UInt8? = nil
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            let bytes = Array(line)
            var i = 0
            var block = indents.count
            if quote == nil && flow == 0 {
                while i < bytes.count && bytes[i] == UInt8(ascii: " ") { i += 1 }
                if i == bytes.count || bytes[i] == UInt8(ascii: "#") || bytes[i] == UInt8(ascii: "\r") { continue }
                while let last = indents.last, last >= i { indents.removeLast() }
                indents.append(i)
                block = indents.count
                // "- - x": each marker opens a sequence level.
                var j = i
                while j + 1 < bytes.count, bytes[j] == UInt8(ascii: "-"), bytes[j + 1] == UInt8(ascii: " ") {
                    block += 1; j += 2
                    while j < bytes.count && bytes[j] == UInt8(ascii: " ") { j += 1 }
                }
            }
            var previous: UInt8 = UInt8(ascii: " ")
            while i < bytes.count {
                let c = bytes[i]
                if let q = quote {
                    if c == q {
                        if q == UInt8(ascii: "'"), i + 1 < bytes.count, bytes[i + 1] == q { i += 2; continue }
                        quote = nil
                    } else if q == UInt8(ascii: "\""), c == UInt8(ascii: "\\") { i += 2; continue }
                } else {
                    let tokenStart = previous == UInt8(ascii: " ") || previous == UInt8(ascii: "\t")
                        || previous == UInt8(ascii: "[") || previous == UInt8(ascii: "{") || previous == UInt8(ascii: ",")
                    switch c {
                    case UInt8(ascii: "#") where tokenStart: i = bytes.count; continue
                    case UInt8(ascii: "'") where tokenStart || previous == UInt8(ascii: ":"): quote = c
                    case UInt8(ascii: "\"") where tokenStart || previous == UInt8(ascii: ":"): quote = c
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        flow += 1
                        if block + flow > maxDepth {
                            throw .usage("\(path): recipe nests deeper than \(maxDepth) levels (a recipe is one flat mapping)")
                        }
                    case UInt8(ascii: "]"), UInt8(ascii: "}"): flow = max(0, flow - 1)
                    case UInt8(ascii: "&") where tokenStart, UInt8(ascii: "*") where tokenStart:
                        throw .usage("\(path): YAML anchors and aliases are not allowed in a recipe")
                    default: break
                    }
                }
                previous = c
                i += 1
            }
            if block + flow > maxDepth {
                throw .usage("\(path): recipe nests deeper than \(maxDepth) levels (a recipe is one flat mapping)")
            }
        }
    }
}
