import DarkroomCore
import Foundation

/// `index.html` of a compare report: the ranking table per illuminant, then per run the ΔE2000
/// statistics of each stage, an a*b* vector plot (inline SVG: a dot in the reference colour at
/// the reference a*b*, a line to the measured a*b*) and the split-patch swatch image
/// (`swatches-N.png`, `SwatchPNG`). Self-contained (no scripts, no external resources) and
/// deterministic: numbers are printed with fixed decimals.
///
/// Two colours are fixed so a screenshot can be checked (`CompareHTMLBrowserTests`): the ranking
/// tables' header row is `rankingHeader` (white text), the plot's background `plotBackground`, and
/// each measured point a `measuredMarker` dot.
public enum CompareHTML {
    /// The ranking tables' header band, "#rrggbb".
    public static let rankingHeader = "1f4e9c"
    /// The a*b* plot's background.
    public static let plotBackground = "fdf3d8"
    /// The measured a*b* points (the reference points are drawn in the patch's own colour).
    public static let measuredMarker = "e6007e"

    /// The page; `swatch(i)` names run i's swatch image.
    public static func page(_ report: CompareReport, swatch: (Int) -> String) -> String {
        var h = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Darkroom compare</title>
        <style>
        body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
        table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}
        th{background:#eee}td.l,th.l{text-align:left}section{margin:24px 0;padding-top:8px;border-top:1px solid #ddd}
        svg{border:1px solid #ccc}img{display:block;margin:8px 0}
        table.ranking th{background:#\(rankingHeader);color:#fff}
        </style></head><body>
        <h1>Profile comparison</h1>
        <p>Reference: \(esc(report.reference)); exposure normalisation: \(esc(report.normalisation)); \(esc(report.tool)).</p>

        """
        var illuminants: [String] = []
        for r in report.ranking where !illuminants.contains(r.illuminant) { illuminants.append(r.illuminant) }
        for illuminant in illuminants {
            h += "<h2>Ranking under \(esc(illuminant))</h2>\n<table class=\"ranking\"><tr><th>#</th><th class=\"l\">profile</th>"
                + "<th>patches</th><th>mean ΔE00</th><th>median</th><th>p90</th><th>max</th></tr>\n"
            for r in report.ranking where r.illuminant == illuminant {
                h += "<tr><td>\(r.rank)</td><td class=\"l\">\(esc(r.profile))</td><td>\(r.patches)</td>"
                    + "<td>\(f(r.mean))</td><td>\(f(r.median))</td><td>\(f(r.p90))</td><td>\(f(r.max))</td></tr>\n"
            }
            h += "</table>\n"
        }
        for (i, run) in report.runs.enumerated() {
            h += "<section><h2>\(esc(run.profile)) — \(esc((run.file as NSString).lastPathComponent)) — \(esc(run.illuminant))</h2>\n"
            h += "<p>White \(f(run.whiteXY[0], 4)), \(f(run.whiteXY[1], 4)) (\(f(run.kelvin, 0)) K, tint \(f(run.tint, 1))), "
                + "exposure \(f(run.exposureStops, 2)) stops, chart \(run.chartFound ? "found" : "given").</p>\n"
            h += "<table><tr><th class=\"l\">stage</th><th>scale</th><th>mean ΔE00</th><th>median</th><th>p90</th><th>max</th><th class=\"l\">worst</th></tr>\n"
            for s in run.stages {
                h += "<tr><td class=\"l\">\(s.stage)</td><td>\(f(s.scale, 4))</td><td>\(f(s.summary.mean))</td><td>\(f(s.summary.median))</td>"
                    + "<td>\(f(s.summary.p90))</td><td>\(f(s.summary.max))</td><td class=\"l\">\(s.summary.worst.joined(separator: " "))</td></tr>\n"
            }
            h += "</table>\n"
            if let last = run.stages.last {
                h += plot(last.patches) + "\n"
                h += "<img src=\"\(esc(swatch(i)))\" alt=\"reference (left) and measured (right) patches\" width=\"\(SwatchPNG.patchSize * 6 + SwatchPNG.gap * 7)\">\n"
            }
            h += "</section>\n"
        }
        return h + "</body></html>\n"
    }

    /// The a*b* plot: 360 px square, axes through 0, range ±`extent` (the largest |a*|, |b*|
    /// rounded up to 20, at least 60).
    static func plot(_ patches: [CompareReport.Patch]) -> String {
        let size = 360.0, half = size / 2
        let largest = patches.flatMap { [abs($0.referenceLab[1]), abs($0.referenceLab[2]), abs($0.measuredLab[1]), abs($0.measuredLab[2])] }.max() ?? 0
        let extent = max(60, (largest / 20).rounded(.up) * 20)
        func px(_ a: Double) -> String { f(half + a / extent * half, 1) }
        func py(_ b: Double) -> String { f(half - b / extent * half, 1) }
        var s = "<svg class=\"ab\" xmlns=\"http://www.w3.org/2000/svg\" width=\"360\" height=\"360\" viewBox=\"0 0 360 360\">"
        s += "<rect width=\"360\" height=\"360\" fill=\"#\(plotBackground)\"/>"
        s += "<line x1=\"0\" y1=\"180\" x2=\"360\" y2=\"180\" stroke=\"#bbb\"/><line x1=\"180\" y1=\"0\" x2=\"180\" y2=\"360\" stroke=\"#bbb\"/>"
        s += "<text x=\"352\" y=\"174\" text-anchor=\"end\" font-size=\"11\">a* ±\(f(extent, 0))</text><text x=\"186\" y=\"12\" font-size=\"11\">b*</text>"
        for p in patches {
            let (ra, rb, ma, mb) = (p.referenceLab[1], p.referenceLab[2], p.measuredLab[1], p.measuredLab[2])
            s += "<line x1=\"\(px(ra))\" y1=\"\(py(rb))\" x2=\"\(px(ma))\" y2=\"\(py(mb))\" stroke=\"#222\" stroke-width=\"1.5\"/>"
            s += "<circle cx=\"\(px(ra))\" cy=\"\(py(rb))\" r=\"5\" fill=\"#\(p.referenceSRGB)\" stroke=\"#222\"><title>\(esc(p.id)) \(esc(p.name)): ΔE00 \(f(p.deltaE2000))</title></circle>"
            s += "<circle cx=\"\(px(ma))\" cy=\"\(py(mb))\" r=\"3\" fill=\"#\(measuredMarker)\"/>"
        }
        return s + "</svg>"
    }

    static func f(_ v: Double, _ decimals: Int = 2) -> String { String(format: "%.\(decimals)f", v) }

    static func esc(_ s: String) -> String {
        var o = ""
        for c in s {
            switch c {
            case "&": o += "&amp;"
            case "<": o += "&lt;"
            case ">": o += "&gt;"
            case "\"": o += "&quot;"
            default: o.append(c)
            }
        }
        return o
    }
}
