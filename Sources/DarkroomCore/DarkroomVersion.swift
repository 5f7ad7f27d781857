/// The Darkroom release, written into outputs' Software tag.
public enum DarkroomVersion {
    public static let string = "0.1.0"
}

/// How this build of DarkroomCore was compiled.
public enum DarkroomBuild {
    /// True when the kernels were compiled for x86-64-v3 (AVX2, FMA, BMI2): the executable must
    /// check the CPU before calling into DarkroomCore (`dr_cpu_has_x86_64_v3`).
    public static let requiresX86_64_v3: Bool = {
        #if DARKROOM_X86_64_V3
        return true
        #else
        return false
        #endif
    }()
}
