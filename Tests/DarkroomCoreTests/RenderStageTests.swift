import DarkroomCore
import Foundation
import Testing

/// `explain` numbers and names its lines from `RenderStage`: every stage appears once, in order,
/// for both looks (the reference look runs colour…tone as one span, after the colour model line).
@Suite("Render stages")
struct RenderStageTests {
    static func explanation(tone: ToneCurve.Mode) throws -> [String] {
        let raw = SyntheticChart(cfa: .rggb, bitsPerSample: 14, illuminant: ColorMath.d65, width: 120, height: 80).makeRawImage()
        var recipe = DevelopRecipe()
        recipe.tone = tone
        let plan = try DevelopPlan(metadata: raw.metadata, width: raw.width, height: raw.height, samplesPerPixel: 1,
                                   recipe: recipe, opcodes: ParsedOpcodeLists(raw.metadata))
        return plan.explanation
    }

    /// The numbered lines' leading "N title" (or "N-M"), in order.
    static func stageHeads(_ lines: [String]) -> [String] {
        lines.compactMap { l in
            guard let first = l.first, first.isNumber else { return nil }
            return String(l.prefix { $0 != ":" && $0 != "(" }).trimmingCharacters(in: .whitespaces)
        }
    }

    @Test func darkroomLookListsEveryStageInOrder() throws {
        let heads = Self.stageHeads(try Self.explanation(tone: .standard))
        let expected = RenderStage.allCases.filter { $0 != .opcodeList2 && $0 != .opcodeList3 }.map(\.label)
        #expect(heads == expected, "\(heads)")
        #expect(RenderStage.allCases.map(\.number) == Array(1...9))
    }

    @Test func referenceLookRunsColourToToneAsOneSpan() throws {
        let heads = Self.stageHeads(try Self.explanation(tone: .reference))
        #expect(heads == ["1 linearise", "3 white balance", "4 demosaic", "6 colour", "6-8 reference look", "9 encode"], "\(heads)")
    }
}
