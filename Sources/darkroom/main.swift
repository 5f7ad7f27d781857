import DarkroomBatch
import DarkroomCLI
import Foundation

// `darkroom __batch-worker`: a batch's supervised worker process (see BatchWorker); hidden.
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == BatchWorker.argument {
    exit(BatchWorker.main())
}
// `darkroom __convert-worker`: a convert batch's supervised worker process (see ConvertWorker); hidden.
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == ConvertWorker.argument {
    exit(ConvertWorker.main())
}
DarkroomCommand.main()
