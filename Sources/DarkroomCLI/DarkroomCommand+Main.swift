import CShims
import ArgumentParser
import DarkroomCore
import Foundation

extension DarkroomCommand {
    /// Like ArgumentParser's `main()`, except that every error is one line on stderr,
    /// `darkroom: error: REASON`, and the exit statuses are the documented ones: 0 all done,
    /// 1 some files failed, 2 usage error (an unknown, missing or invalid flag, a bad recipe
    /// file: everything ArgumentParser reports and every `ValidationError`, whether thrown by
    /// `validate()` or `run()`), 130 interrupted. `--help`, `--version` and `recipe --help`
    /// print as usual.
    public static func main() {
        if DarkroomBuild.requiresX86_64_v3 && dr_cpu_has_x86_64_v3() == 0 {
            FileHandle.standardError.write(Data(("darkroom: this build needs an x86-64-v3 CPU (AVX2, FMA, BMI2: Intel Haswell, AMD Excavator "
                + "or newer); rebuild with `make clean build DARKROOM_PORTABLE=1`\n").utf8))
            Foundation.exit(1)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let status = exitCode(for: error)
            if status == .success { exit(withError: error) }   // help, version
            let message = Self.message(for: error)
            if status == .validationFailure && message.isEmpty { exit(withError: error) }   // no arguments: usage text
            Console.err("darkroom: error: " + Self.oneLine(message.isEmpty ? "\(error)" : message))
            Foundation.exit(status == .validationFailure ? 2 : 1)
        }
    }

    /// `text` on one line (line breaks become "; ").
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "; ")
    }
}
