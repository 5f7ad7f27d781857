import DarkroomCore
import Foundation

/// Removes Camera Raw develop settings (the `crs:` namespace, `http://ns.adobe.com/camera-raw-settings/1.0/`)
/// from an XMP packet carried from a raw file into a rendered JPEG or HEIF: Adobe software
/// applies `crs:` settings found in a JPEG's XMP to its pixels, which here are already developed
/// (exposure, tone curve, white balance would be applied twice).
///
/// Removed: `crs:*` attributes (`crs:Exposure2012="+0.50"`), `crs:*` elements with their content
/// (`<crs:ToneCurvePV2012>…</crs:ToneCurvePV2012>`, self-closing ones too) and the `xmlns:crs`
/// declaration. Everything else (ratings, keywords, other namespaces, whitespace) is kept byte
/// for byte. A packet with no `crs:` text is returned unchanged.
package enum XMPDevelopSettings {
    package static let namespace = "http://ns.adobe.com/camera-raw-settings/1.0/"

    private static let patterns: [NSRegularExpression] = [
        // Elements with content (names do not nest within themselves in Camera Raw's schema).
        #"<crs:([A-Za-z0-9_.-]+)\b[^>]*(?<!/)>.*?</crs:\1\s*>"#,
        // Self-closing elements.
        #"<crs:[A-Za-z0-9_.-]+\b[^>]*/>"#,
        // Attributes, and the namespace declaration.
        #"\s+crs:[A-Za-z0-9_.-]+\s*=\s*("[^"]*"|'[^']*')"#,
        #"\s+xmlns:crs\s*=\s*("[^"]*"|'[^']*')"#,
    ].compactMap { try? NSRegularExpression(pattern: $0, options: [.dotMatchesLineSeparators]) }

    /// `xmp` without Camera Raw develop settings (see the type's doc).
    package static func removingCameraRawSettings(_ xmp: String) -> String {
        guard xmp.contains("crs:") else { return xmp }
        var text = xmp
        for re in patterns {
            text = re.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
        }
        return text
    }
}
