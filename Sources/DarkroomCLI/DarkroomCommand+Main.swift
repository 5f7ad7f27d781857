import CShims
import ArgumentParser
import DarkroomCore
import Foundation

extension DarkroomCommand {
    /// Like ArgumentParser's `main()`, except that usage errors (bad flags, `ValidationError`)
    /// exit with status 2, as documented: 0 all done, 1 some files failed, 2 usage error,
    /// 130 interrupted.
    public static func main() {
        if DarkroomBuild.requiresX86_64_v3 && dr_cpu_has_x86_64_v3() == 0 {
            FileHandle.standardError.write(Data(("darkroom: this build needs an x86-64-v3 CPU (AVX2, FMA, BMI2: Intel Haswell, AMD Excavator "
                + "or newer); rebuild with `make clean build DARKROOM_PORTABLE=1`\n").utf8))
            Foundation.exit(1)
        }
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
