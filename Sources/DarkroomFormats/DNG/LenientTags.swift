import DarkroomCore
/// Collects the warnings of optional-tag reads: a malformed optional tag becomes nil plus a
/// one-line warning instead of an error.
package struct LenientTags {
    package var warnings: [String] = []

    package mutating func get<T, E: Error>(_ body: () throws(E) -> T?) -> T? {
        do { return try body() } catch {
            warnings.append("\(error)")
            return nil
        }
    }

    package mutating func warn(_ message: String) { warnings.append(message) }
}
