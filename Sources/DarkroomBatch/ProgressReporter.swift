import Foundation

/// Turns `BatchEvent`s into output: a live progress line on a terminal (files done/total,
/// failures, MP/s, ETA), one JSON object per event on stderr (`--log json`, the default when
/// stderr is not a terminal), or plain lines (`--log text`: one line per file on stdout,
/// errors on stderr). `quiet` keeps only failures.
public final class ProgressReporter: @unchecked Sendable {
    public enum Mode: String, Sendable, CaseIterable { case auto, progress, json, text }
    public let mode: Mode
    public let quiet: Bool
    private let lock = NSLock()
    private var lastDraw = 0.0
    private var lineShown = false

    public init(mode: Mode, quiet: Bool) {
        if mode == .auto { self.mode = isatty(2) != 0 ? .progress : .json } else { self.mode = mode }
        self.quiet = quiet
    }

    public func handle(_ event: BatchEvent) {
        lock.lock(); defer { lock.unlock() }
        switch (mode, event) {
        case (.json, .planned(let total, let selected, let jobs, let threads)):
            if !quiet { json(["event": "plan", "inputs": total, "selected": selected, "jobs": jobs, "threadsPerImage": threads]) }
        case (.json, .started(let input)):
            if !quiet { json(["event": "start", "input": input]) }
        case (.json, .finished(let r, let p)):
            if quiet && r.status != .failed { return }
            var d: [String: Any] = ["event": "file", "status": r.status.rawValue, "input": r.input, "outputs": r.outputs,
                                    "done": p.done, "total": p.total, "failed": p.failed]
            if let e = r.error { d["error"] = e }
            if let c = r.category { d["category"] = c.rawValue }
            if !r.warnings.isEmpty { d["warnings"] = r.warnings }
            if let ms = r.decodeMilliseconds { d["decodeMs"] = round1(ms) }
            if let ms = r.renderMilliseconds { d["renderMs"] = round1(ms) }
            if let ms = r.encodeMilliseconds { d["encodeMs"] = round1(ms) }
            if let m = r.peakMemoryMB { d["peakMemoryMB"] = round1(m) }
            json(d)
        case (.text, .finished(let r, _)):
            if r.status == .failed { err("darkroom: error: \(r.error ?? r.input)") }
            else if !quiet {
                switch r.status {
                case .developed:
                    let secs = ((r.decodeMilliseconds ?? 0) + (r.renderMilliseconds ?? 0) + (r.encodeMilliseconds ?? 0)) / 1000
                    out("\(r.input) → \(r.outputs.joined(separator: ", ")) (\(r.width ?? 0)x\(r.height ?? 0), \(String(format: "%.2f", secs)) s)")
                    for w in r.warnings { err("darkroom: warning: \(r.input): \(w)") }
                case .skipped: out("\(r.input): skipped (\(r.error ?? "not RAW"))")
                default: out("\(r.input): \(r.status.rawValue)")
                }
            }
        case (.progress, .finished(let r, let p)):
            if r.status == .failed { clearLine(); err("darkroom: error: \(r.error ?? r.input)") }
            if !quiet { draw(p, force: p.done == p.total) }
        case (.progress, .planned(_, let selected, _, _)):
            if !quiet { draw(BatchProgress(done: 0, total: selected, failed: 0, megapixels: 0, elapsed: 0), force: true) }
        default: break
        }
    }

    /// Ends the progress line, if one is shown.
    public func finish() {
        lock.lock(); defer { lock.unlock() }
        if lineShown { FileHandle.standardError.write(Data("\n".utf8)); lineShown = false }
    }

    /// The final summary (JSON mode also gets a `summary` event).
    public func summary(_ report: BatchReport) {
        finish()
        if mode == .json {
            let t = report.totals
            json(["event": "summary", "files": t.files, "developed": t.developed, "upToDate": t.upToDate, "skipped": t.skipped,
                  "failed": t.failed, "previouslyFailed": t.previouslyFailed, "notRun": t.notRun, "seconds": round1(t.seconds),
                  "megapixelsPerSecond": round1(t.megapixelsPerSecond), "peakMemoryMB": round1(t.peakMemoryMB), "exitCode": Int(report.exitCode)])
        }
        if !quiet { out(report.summaryLine()) }
    }

    private func draw(_ p: BatchProgress, force: Bool) {
        let now = Date().timeIntervalSince1970
        guard force || now - lastDraw >= 0.2 else { return }
        lastDraw = now
        var s = "\r\u{1B}[2K[\(p.done)/\(p.total)] \(p.failed) failed · \(String(format: "%.1f", p.megapixelsPerSecond)) MP/s"
        if let eta = p.eta { s += " · ETA \(Int(eta) / 60):\(String(format: "%02d", Int(eta) % 60))" }
        FileHandle.standardError.write(Data(s.utf8))
        lineShown = true
    }

    private func clearLine() { if lineShown { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) } }
    private func round1(_ v: Double) -> Double { (v * 10).rounded() / 10 }
    private func out(_ s: String) { print(s); fflush(nil) }
    private func err(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }
    private func json(_ d: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: d, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        FileHandle.standardError.write(data + Data("\n".utf8))
    }
}
