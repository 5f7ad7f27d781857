import ArgumentParser
import Foundation

extension DarkroomCommand {
    /// Like ArgumentParser's `main()`, except that usage errors (bad flags, `ValidationError`)
    /// exit with status 2, as documented: 0 all done, 1 some files failed, 2 usage error,
    /// 130 interrupted.
    public static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}
