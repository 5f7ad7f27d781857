import Foundation

/// The XMP packet Apple puts in auxiliary images (JPEG MPF secondaries): `apdi:AuxiliaryImageType`
/// holds the matte URN; `apdi:NativeFormat` is the CoreVideo pixel format 'L008' (8-bit one-channel).
enum MatteXMP {
    static let namespace = "http://ns.apple.com/pixeldatainfo/1.0/"

    static func packet(urn: String) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Darkroom">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:apdi="\(namespace)">
           <apdi:NativeFormat>1278226488</apdi:NativeFormat>
           <apdi:AuxiliaryImageType>\(urn)</apdi:AuxiliaryImageType>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    /// The `apdi:AuxiliaryImageType` value in an XMP packet (element or attribute form), if any.
    static func auxiliaryImageType(in xmp: String) -> String? {
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
    static func wrapped(_ packet: String) -> String {
        if packet.hasPrefix("<?xpacket") { return packet }
        return "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n" + packet + "\n<?xpacket end=\"w\"?>"
    }
}
