import Foundation

/// Finds the MediaPipe `.tflite` files `make models` extracts (see Models/README.md). Looks, in order,
/// in `$DARKROOM_MODELS`, in `<dir of the resolved executable>/../share/darkroom/models` (where
/// `make install` puts them: `PREFIX/bin/darkroom` finds `PREFIX/share/darkroom/models` from any
/// working directory), in `<dir of the running executable>/../../out/models/mediapipe-0.10.21`
/// (a `.build/release/` binary inside the package; also one level up for the resolved
/// `.build/<triple>/release/`) and in `./out/models/mediapipe-0.10.21`.
public enum ModelLocator {
    /// The folder `make models` fills, relative to the package root.
    public static let relativeFolder = "out/models/mediapipe-0.10.21"

    /// The directories searched, in order. "The running executable" is both the path it was started
    /// by (`.build/release/darkroom`: `../..` is the package root) and its resolved path
    /// (`.build/<triple>/release/darkroom`, where the package root is one level further up).
    public static var searchDirectories: [String] {
        var dirs: [String] = []
        func add(_ url: URL) {
            let path = url.standardizedFileURL.path
            if !dirs.contains(path) { dirs.append(path) }
        }
        if let env = ProcessInfo.processInfo.environment["DARKROOM_MODELS"], !env.isEmpty { add(URL(fileURLWithPath: env)) }
        if let share = installedDataDirectory { add(URL(fileURLWithPath: share).appendingPathComponent("models")) }
        if let started = CommandLine.arguments.first, started.contains("/") {
            add(URL(fileURLWithPath: started).deletingLastPathComponent().appendingPathComponent("../../" + relativeFolder))
        }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        if exe.path != "/proc/self/exe" {
            let dir = exe.deletingLastPathComponent()
            add(dir.appendingPathComponent("../../" + relativeFolder))
            add(dir.appendingPathComponent("../../../" + relativeFolder))
        }
        add(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(relativeFolder))
        return dirs
    }

    /// `<dir of the resolved executable>/../share/darkroom` when it exists: the data `make install`
    /// (and the .deb) put beside `PREFIX/bin/darkroom` — models, ICC and camera profiles. Nil for a
    /// binary in a build folder.
    public static let installedDataDirectory: String? = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        guard exe.path != "/proc/self/exe" else { return nil }
        let share = exe.deletingLastPathComponent().appendingPathComponent("../share/darkroom").standardizedFileURL.path
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: share, isDirectory: &isDir) && isDir.boolValue ? share : nil
    }()

    /// The path of model `file` (e.g. `selfie_segmentation.tflite`); throws `.modelNotFound`
    /// (whose message says to run `make models`) when no searched directory holds it.
    public static func path(for file: String) throws(NeuralError) -> String {
        let dirs = searchDirectories
        for dir in dirs {
            let candidate = (dir as NSString).appendingPathComponent(file)
            if FileManager.default.isReadableFile(atPath: candidate) { return candidate }
        }
        throw .modelNotFound(file: file, searched: dirs)
    }
}
