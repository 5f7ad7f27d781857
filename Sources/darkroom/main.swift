import DarkroomBatch
import DarkroomCLI
import Foundation

// `darkroom __batch-worker`: a batch's supervised worker process (see BatchWorker); hidden.
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == BatchWorker.argument {
    exit(BatchWorker.main())
}
DarkroomCommand.main()
