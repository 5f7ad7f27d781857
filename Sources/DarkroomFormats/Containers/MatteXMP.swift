import DarkroomCore
import Foundation

/// The XMP packet Apple puts in auxiliary images: `apdi:AuxiliaryImageType` holds the matte URN;
/// `apdi:NativeFormat` is the CoreVideo pixel format 'L008' (8-bit one-channel); the matte's
/// format version is the one iPhone files carry (seen in ../shared/samples/heif's iPhone file):
/// `portraitEffectsMatte:PortraitEffectsMatteVersion` 65537 for the portrait matte,
/// `semanticSegmentationMatte:SemanticSegmentationMatteVersion` 65536 for skin/hair/teeth/sky/glasses.
/// Darkroom's own planes (gamut, clipping, confidence, skin-color) carry the two `apdi` elements
/// only, naming their `urn:org:darkroom:aux:` URN: no Apple matte-version element.
/// Used for JPEG MPF secondaries (APP1 XMP) and HEIF matte items (`mime` item, `cdsc` → matte).
package enum MatteXMP {
    package static let namespace = "http://ns.apple.com/pixeldatainfo/1.0/"
    package static let portraitNamespace = "http://ns.apple.com/portraitEffectsMatte/1.0/"
    package static let semanticNamespace = "http://ns.apple.com/semanticSegmentationMatte/1.0/"

    package static func packet(urn: String) -> String {
        packet(urn: urn, extraNamespaces: "", extraElements: "")
    }

    /// The packet for `kind`, with Apple's matte version element when the kind is Apple's.
    package static func packet(for kind: MatteKind) -> String {
        switch kind {
        case .portraitEffects:
            return packet(urn: kind.urn, extraNamespaces: " xmlns:portraitEffectsMatte=\"\(portraitNamespace)\"",
                          extraElements: "   <portraitEffectsMatte:PortraitEffectsMatteVersion>65537</portraitEffectsMatte:PortraitEffectsMatteVersion>\n")
        case .skin, .hair, .teeth, .sky, .glasses:
            return packet(urn: kind.urn, extraNamespaces: " xmlns:semanticSegmentationMatte=\"\(semanticNamespace)\"",
                          extraElements: "   <semanticSegmentationMatte:SemanticSegmentationMatteVersion>65536</semanticSegmentationMatte:SemanticSegmentationMatteVersion>\n")
        default:
            return packet(urn: kind.urn)
        }
    }

    private static func packet(urn: String, extraNamespaces: String, extraElements: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Darkroom">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:apdi="\(namespace)"\(extraNamespaces)>
           <apdi:NativeFormat>1278226488</apdi:NativeFormat>
           <apdi:AuxiliaryImageType>\(urn)</apdi:AuxiliaryImageType>
        \(extraElements)  </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    /// The `apdi:AuxiliaryImageType` value in an XMP packet (element or attribute form), if any.
    package static func auxiliaryImageType(in xmp: String) -> String? {
        if let r = xmp.range(of: "<apdi:AuxiliaryImageType>"),
           let e = xmp.range(of: "</apdi:AuxiliaryImageType>", range: r.upperBound..<xmp.endIndex) {
            return String(xmp[r.upperBound..<e.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let r = xmp.range(of: "apdi:AuxiliaryImageType=\"") ,
           let e = xmp.range(of: "\"", range: r.upperBound..<xmp.endIndex) {
            return String(xmp[r.upperBound..<e.lowerBound])
        }
        return nil
    }

    /// The packet inside an `<?xpacket?>` wrapper (XMP Part 1 §7.3) unless it already has one.
    package static func wrapped(_ packet: String) -> String {
        if packet.hasPrefix("<?xpacket") { return packet }
        return "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n" + packet + "\n<?xpacket end=\"w\"?>"
    }
}
