import Foundation

/// One measured figure.
struct Row: Codable {
    var section: String
    var file: String
    var name: String
    var threads: Int?
    var bestSeconds: Double
    var medianSeconds: Double
    var cpuSeconds: Double
    var runs: Int
    var megapixelsPerSecond: Double?
    var peakMB: Double?
    /// Median wall time / the file's floor (LibRaw unpack + libjpeg-turbo encode).
    var timesFloor: Double?
    /// Median CPU time / the floor's CPU time.
    var cpuTimesFloor: Double?
    var note: String?
}

struct HEIFTrial: Codable {
    var setting: String
    var seconds: Double
    var cpuSeconds: Double
    var bytes: Int
    var psnr: Double
    var bitsPerPixel: Double
}

struct Check: Codable {
    var criterion: String
    var measured: String
    /// nil for an informational figure that is not one of the issue's criteria.
    var pass: Bool?
}

struct BenchReport: Codable {
    var machine: String
    var runs: Int
    var rows: [Row] = []
    var floors: [String: Double] = [:]
    var floorsCPU: [String: Double] = [:]
    /// /proc/loadavg at start and end (the machine may be shared: compare CPU times when loaded).
    var loadStart = ""
    var loadEnd = ""
    var identical: [String: Bool] = [:]
    var heif: [HEIFTrial] = []
    var heifRecommendation: String?
    var checks: [Check] = []
    var skipped: [String] = []
    var totalSeconds: Double = 0
}

/// A markdown table cell (pipes escaped).
func cell(_ s: String) -> String { s.replacingOccurrences(of: "|", with: "\\|") }

func f2(_ v: Double) -> String { String(format: "%.2f", v) }
func f3(_ v: Double) -> String { String(format: "%.3f", v) }
func f1(_ v: Double) -> String { String(format: "%.1f", v) }

extension BenchReport {
    var markdown: String {
        var out: [String] = []
        // One line with the date and the machine: the tables are a measurement, not a maintained text.
        let date = ISO8601DateFormatter().string(from: Date())
        out.append("Measured on \(date) on \(machine); best/median of \(runs) runs; times in seconds; floor = LibRaw unpack + libjpeg-turbo q90 4:4:4 encode of the same pixels.")
        out.append("Load average at start: \(loadStart); at end: \(loadEnd). Under load, wall time includes waiting for a core; CPU time (user+sys) does not.")
        out.append("")
        for (file, floor) in floors.sorted(by: { $0.key < $1.key }) { out.append("- floor \(file): \(f3(floor)) s wall, \(f3(floorsCPU[file] ?? 0)) s CPU") }
        for section in ["stage", "whole", "convert", "peer"] {
            let rs = rows.filter { $0.section == section }
            guard !rs.isEmpty else { continue }
            out.append("")
            switch section {
            case "stage": out.append("### Stages (in-process)")
            case "whole": out.append("### Whole file (`darkroom develop` subprocess under /usr/bin/time -v; wall around spawn and reap)")
            case "convert": out.append("### Convert to DNG (`darkroom convert` subprocess, verification on; dnglab is not packaged in Debian 12, so no peer row)")
            default: out.append("### Peers (24 MP file, same machine, same run)")
            }
            out.append("")
            out.append("| file | measure | threads | best | median | CPU | MP/s | peak MB | × floor | CPU × floor | note |")
            out.append("|---|---|---|---|---|---|---|---|---|---|---|")
            for r in rs {
                out.append("| \(r.file) | \(cell(r.name)) | \(r.threads.map(String.init) ?? "") | \(f3(r.bestSeconds)) | \(f3(r.medianSeconds)) | \(f2(r.cpuSeconds)) | \(r.megapixelsPerSecond.map(f1) ?? "") | \(r.peakMB.map { String(Int($0.rounded())) } ?? "") | \(r.timesFloor.map(f2) ?? "") | \(r.cpuTimesFloor.map(f2) ?? "") | \(cell(r.note ?? "")) |")
            }
        }
        if !heif.isEmpty {
            out.append("")
            out.append("### HEIF settings (12 MP rendered pixels, 8-bit; PSNR = RGB vs the rendered pixels)")
            out.append("")
            out.append("| setting | wall s | CPU s | bytes | bits/px | PSNR dB |")
            out.append("|---|---|---|---|---|---|")
            for t in heif { out.append("| \(cell(t.setting)) | \(f3(t.seconds)) | \(f2(t.cpuSeconds)) | \(t.bytes) | \(f2(t.bitsPerPixel)) | \(f2(t.psnr)) |") }
            if let r = heifRecommendation { out.append(""); out.append("Recommendation: \(r)") }
        }
        if !identical.isEmpty {
            out.append("")
            out.append("### Byte identity, 1 vs 2 threads")
            out.append("")
            for (k, v) in identical.sorted(by: { $0.key < $1.key }) { out.append("- \(k): \(v ? "identical" : "DIFFERENT")") }
        }
        if !checks.isEmpty {
            out.append("")
            out.append("### Issue 7 criteria")
            out.append("")
            out.append("| criterion | measured | pass |")
            out.append("|---|---|---|")
            for c in checks { out.append("| \(cell(c.criterion)) | \(cell(c.measured)) | \(c.pass.map { $0 ? "yes" : "NO" } ?? "(info)") |") }
        }
        if !skipped.isEmpty {
            out.append("")
            for s in skipped { out.append("- skipped: \(s)") }
        }
        out.append("")
        out.append("Total bench time \(f1(totalSeconds)) s.")
        return out.joined(separator: "\n")
    }
}
