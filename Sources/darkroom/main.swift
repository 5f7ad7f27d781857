import DarkroomBatch
import CShims
import DarkroomCLI
import Foundation

// Fixed malloc thresholds before any work: the render's scratch blocks of varying size are reused
// from the heap instead of being mapped and faulted in again (CShims/malloc_tuning.c).
_ = dr_tune_malloc()

// `darkroom __batch-worker`: a batch's supervised worker process (see BatchWorker); hidden.
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == BatchWorker.argument {
    exit(BatchWorker.main())
}
// `darkroom __convert-worker`: a convert batch's supervised worker process (see ConvertWorker); hidden.
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == ConvertWorker.argument {
    exit(ConvertWorker.main())
}
DarkroomCommand.main()
