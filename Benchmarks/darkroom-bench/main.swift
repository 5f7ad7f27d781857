// darkroom-bench: speed, CPU time and peak memory of Darkroom against the floor (LibRaw unpack +
// libjpeg-turbo encode) and against peers, on large synthetic DNGs written by our own DNGWriter.
//
//   darkroom-bench [--runs N] [--quick] [--no-peers] [--no-heif-study] [--heif-only] [--jxl-only] [--convert-only] [--neural-only] [--dir DIR]
//                  [--json PATH] [--markdown PATH] [--darkroom PATH]
import DarkroomCore
import DarkroomIO
import Foundation

struct Options {
    var runs = 3
    var quick = false
    var peers = true
    var heifStudy = true
    var heifOnly = false
    var jxlOnly = false
    var convertOnly = false
    var neuralOnly = false
    var dir: String?
    var json: String?
    var markdown: String?
    var darkroom: String?

    static func parse(_ args: [String]) throws -> Options {
        var o = Options()
        var i = 1
        func value() throws -> String {
            i += 1
            guard i < args.count else { throw BenchFailure("\(args[i - 1]) needs a value") }
            return args[i]
        }
        while i < args.count {
            switch args[i] {
            case "--runs": guard let n = Int(try value()), n >= 1 else { throw BenchFailure("--runs needs a positive integer") }; o.runs = n
            case "--quick": o.quick = true; o.runs = 1
            case "--no-peers": o.peers = false
            case "--no-heif-study": o.heifStudy = false
            case "--heif-only": o.heifOnly = true
            case "--jxl-only": o.jxlOnly = true
            case "--convert-only": o.convertOnly = true
            case "--neural-only": o.neuralOnly = true
            case "--dir": o.dir = try value()
            case "--json": o.json = try value()
            case "--markdown": o.markdown = try value()
            case "--darkroom": o.darkroom = try value()
            case "-h", "--help":
                print("darkroom-bench [--runs N] [--quick] [--no-peers] [--no-heif-study] [--heif-only] [--jxl-only] [--convert-only] [--neural-only] [--dir DIR] [--json PATH] [--markdown PATH] [--darkroom PATH]")
                exit(0)
            default: throw BenchFailure("unknown argument \(args[i])")
            }
            i += 1
        }
        return o
    }
}

func log(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}

do {
    let options = try Options.parse(CommandLine.arguments)
    var bench = try Bench(options: options)
    try bench.run()
} catch {
    log("darkroom-bench: \(error)")
    exit(1)
}
