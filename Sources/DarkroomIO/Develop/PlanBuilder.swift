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
        let opcodes = ParsedOpcodeLists(raw.metadata)
        var plan: DevelopPlan
        do {
            plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height,
                                   samplesPerPixel: raw.samplesPerPixel, recipe: recipe,
                                   opcodes: opcodes, profile: profile, raw: raw)
        } catch {
            throw .develop(path: path, error)
        }
        // Lens corrections from the lensfun database (nothing is looked up for `off` or a file without lens data).
        plan.lens = LensMatcher.correction(for: raw, spec: recipe.lensCorrection, opcodes: opcodes,
                                           opcodesApplied: recipe.applyOpcodes ? recipe.opcodeLists : [])
        return plan
    }
}
