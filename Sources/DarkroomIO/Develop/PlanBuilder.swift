import DarkroomCore

/// Builds the develop plan for a decoded file: resolves the camera profile the recipe asks for
/// (`--profile FILE.dcp`, `--profile-name`, or a `.dcp` in `Profiles/` matching the camera) and
/// lets image-dependent white balance (auto, neutral rectangle) see the pixels.
public enum PlanBuilder {
    public static func plan(for raw: RawImage, recipe: DevelopRecipe, path: String,
                            profileSearchDirectories: [String] = ProfileLibrary.defaultSearchDirectories) throws(DevelopFailure) -> DevelopPlan {
        let profile: CameraProfile?
        do {
            profile = try ProfileLibrary.resolve(metadata: raw.metadata, profilePath: recipe.profilePath,
                                                 profileName: recipe.profileName,
                                                 searchDirectories: profileSearchDirectories)
        } catch {
            throw .develop(path: path, .invalidRecipe(error.description))
        }
        do {
            return try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height,
                                   samplesPerPixel: raw.samplesPerPixel, recipe: recipe,
                                   opcodes: ParsedOpcodeLists(raw.metadata), profile: profile, raw: raw)
        } catch {
            throw .develop(path: path, error)
        }
    }
}
