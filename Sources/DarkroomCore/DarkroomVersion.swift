/// The Darkroom release, written into outputs' Software tag.
public enum DarkroomVersion {
    public static let string = "0.1.0"
}
