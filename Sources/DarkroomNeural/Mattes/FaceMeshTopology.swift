/// Landmark indices of MediaPipe's 468-point canonical face mesh (`face_mesh_connections.py`:
/// `FACEMESH_LIPS`, `FACEMESH_LEFT_EYE`, `FACEMESH_RIGHT_EYE`, `FACEMESH_FACE_OVAL`), each contour
/// listed in order around its loop. "Left"/"right" are the subject's.
public enum FaceMeshTopology {
    public static let landmarkCount = 468

    /// Outer edge of the lips, from the right mouth corner (61) along the lower lip and back.
    public static let lipsOuter = [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185]
    /// Inner edge of the lips (the mouth opening), from the right corner (78).
    public static let lipsInner = [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 415, 310, 311, 312, 13, 82, 81, 80, 191]
    public static let rightEye = [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]
    public static let leftEye = [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466]
    public static let faceOval = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
                                  152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]
}
