import ArgumentParser
import DarkroomBatch
import DarkroomIO
import Foundation

/// `darkroom report …`: tools for the JSON reports that develop and convert write.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Work with the JSON reports of develop and convert (merge the reports of a sharded job).",
        subcommands: [ReportMergeCommand.self])
}

/// `darkroom report merge REPORT|DIR... [-o MERGED.json]`.
struct ReportMergeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge",
        abstract: "Merge the reports of a job's shards (--shard K/N or auto) into one report of the whole job.",
        discussion: """
        Reads every report named (a directory: the *.json files in it), all from one command \
        (develop or convert) and one recipe, and writes one report of the single-run shape: every \
        input once with its status, totals recounted, `mergedShards` naming the shards. Checks that \
        shards 1…N are each present once, that no input is in two shards and that every input is \
        done (developed, converted, up to date or skipped as not RAW); each problem is one line on \
        standard error. Without -o the merged report goes to standard output. \
        Exit status: 0 the whole job is done, 1 a shard is missing or an input is not done \
        (the merged report is still written), 2 usage error or an unreadable report.
        """)

    @Argument(help: ArgumentHelp("Report files, or directories holding them.", valueName: "report"))
    var reports: [String]

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("Write the merged report here (replaced atomically; never one of the reports read).", valueName: "file"))
    var output: String?

    @Flag(name: .shortAndLong, help: "Print nothing but problems.")
    var quiet = false

    func validate() throws {
        guard !reports.isEmpty else { throw ValidationError("give at least one report or directory") }
    }

    func run() throws {
        let outcome: ReportMerge.Outcome
        do throws(BatchError) {
            let files = try ReportMerge.reportFiles(reports)
            if let output {
                let target = AtomicWriter.FileIdentity.of(path: output)
                if let target, files.contains(where: { AtomicWriter.FileIdentity.of(path: $0) == target }) {
                    throw .usage("-o \(output) is one of the reports read")
                }
            }
            outcome = try ReportMerge.merge(files)
        } catch {
            Console.err("darkroom: error: \(error.description)")
            throw ExitCode(2)
        }
        for p in outcome.problems { Console.err("darkroom: error: \(p)") }
        if let output {
            do { try AtomicWriter.write(outcome.json, to: output, overwrite: true) } catch {
                throw CLIError("\(output): cannot write the merged report (\(error))")
            }
            if !quiet { Console.out(outcome.summary) }
        } else {
            FileHandle.standardOutput.write(Data(outcome.json + [0x0A]))
        }
        if outcome.exitCode != 0 { throw ExitCode(outcome.exitCode) }
    }
}
