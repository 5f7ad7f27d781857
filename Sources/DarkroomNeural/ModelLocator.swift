import Foundation

/// Finds the MediaPipe `.tflite` files `make models` extracts (see Models/README.md). Looks, in order,
/// in `$DARKROOM_MODELS`, in `<dir of the running executable>/../../out/models/mediapipe-0.10.21`
/// (a `.build/<config>/` binary inside the package) and in `./out/models/mediapipe-0.10.21`.
public enum ModelLocator {
    /// The folder `make models` fills, relative to the package root.
    public static let relativeFolder = "out/models/mediapipe-0.10.21"

    /// The directories searched, in order.
    public static var searchDirectories: [String] {
        var dirs: [String] = []
        if let env = ProcessInfo.processInfo.environment["DARKROOM_MODELS"], !env.isEmpty { dirs.append(env) }
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let exeDir = FileManager.default.fileExists(atPath: exe.path)
            ? exe.deletingLastPathComponent()
            : URL(fileURLWithPath: CommandLine.arguments.first ?? ".").deletingLastPathComponent()
        dirs.append(exeDir.appendingPathComponent("../../" + relativeFolder).standardizedFileURL.path)
        dirs.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent(relativeFolder).standardizedFileURL.path)
        return dirs
    }

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
