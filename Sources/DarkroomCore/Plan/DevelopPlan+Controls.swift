/// The picture-quality controls as this plan resolved them for one file — the batch report's
/// per-file `controls` (the recipe in the report says what was asked; this says what it became).
extension DevelopPlan {
    /// Keyed by recipe key (`demosaic`, `highlights`, `noise-reduction`, `sharpen`, `lens`); each
    /// value is `darkroom explain`'s line for that control without its label (the lens lines
    /// joined with "; ").
    public var resolvedControls: [String: String] { resolvedControls(lines: explanation) }

    /// The same with the noise model estimated from `raw` when the file has no NoiseProfile
    /// (`explanation(for:)`, what `darkroom explain` prints).
    public func resolvedControls(for raw: RawImage) -> [String: String] { resolvedControls(lines: explanation(for: raw)) }

    func resolvedControls(lines: [String]) -> [String: String] {
        var out: [String: String] = [:]
        let labels = [("highlights: ", "highlights"), ("noise reduction: ", "noise-reduction"), ("sharpening: ", "sharpen")]
        for line in lines {
            for (label, key) in labels where out[key] == nil && line.hasPrefix(label) {
                out[key] = String(line.dropFirst(label.count))
            }
        }
        if samplesPerPixel == 1 { out["demosaic"] = "\(recipe.demosaic.rawValue) (halo \(demosaicHalo))" }
        let lensLines = lens?.explanation ?? ["lens correction: \(recipe.lensCorrection.text) → none"]
        out["lens"] = lensLines.map { $0.trimmingPrefix("lens correction: ").trimmingPrefix("  ") }.joined(separator: "; ")
        return out
    }
}

private extension String {
    func trimmingPrefix(_ p: String) -> String { hasPrefix(p) ? String(dropFirst(p.count)) : self }
}
