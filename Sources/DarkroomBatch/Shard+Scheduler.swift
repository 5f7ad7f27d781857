/// `--shard auto` and `--shard auto/N`: this process's shard from the scheduler that started it,
/// so one job script serves every task of an array.
///
/// - SLURM job arrays (`sbatch --array=A-B[:S]`): `SLURM_ARRAY_TASK_ID`, with
///   `SLURM_ARRAY_TASK_MIN`, `SLURM_ARRAY_TASK_MAX` and `SLURM_ARRAY_TASK_STEP` (or
///   `SLURM_ARRAY_TASK_COUNT`): K = (ID − MIN) / STEP + 1, N = the number of tasks. An index list
///   that is not one arithmetic range (`--array=1,5,7`) has no K/N and is refused.
/// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` (0-based), K = index + 1; Kubernetes does
///   not tell a pod the number of completions, so N comes from `auto/N`.
/// - GNU parallel: `PARALLEL_SEQ` (1-based sequence number of the job; not the job slot, which
///   is reused), K = sequence; N from `auto/N`.
///
/// Looked up in that order. With `auto/N` and a SLURM array, N must equal the array's size.
extension Shard {
    public init(scheduler env: [String: String], count given: Int?) throws(BatchError) {
        func int(_ key: String) throws(BatchError) -> Int? {
            guard let raw = env[key] else { return nil }
            guard let v = Int(raw.trimmingCharacters(in: .whitespaces)) else {
                throw .usage("--shard auto: \(key)=\(raw) is not a whole number")
            }
            return v
        }
        if let id = try int("SLURM_ARRAY_TASK_ID") {
            let min = try int("SLURM_ARRAY_TASK_MIN") ?? 0
            let step = try int("SLURM_ARRAY_TASK_STEP") ?? 1
            let max = try int("SLURM_ARRAY_TASK_MAX")
            guard step >= 1, id >= min, (id - min) % step == 0 else {
                throw .usage("--shard auto: SLURM array task \(id) is not on the range \(min)…\(max.map(String.init) ?? "?") step \(step); give --shard K/N")
            }
            let span = max.map { ($0 - min) / step + 1 }
            let count = try int("SLURM_ARRAY_TASK_COUNT")
            guard let n = span ?? count, n >= 1 else {
                throw .usage("--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT; give --shard K/N")
            }
            if let count, let span, count != span {
                throw .usage("--shard auto: the SLURM array is not one range (\(count) tasks over \(min)…\(max ?? 0) step \(step)); give --shard K/N")
            }
            if let given, given != n {
                throw .usage("--shard auto/\(given): the SLURM array has \(n) tasks")
            }
            try self.init(index: (id - min) / step + 1, count: n)
            return
        }
        let index: Int
        let source: String
        if let i = try int("JOB_COMPLETION_INDEX") {
            index = i + 1; source = "JOB_COMPLETION_INDEX=\(i)"
        } else if let seq = try int("PARALLEL_SEQ") {
            index = seq; source = "PARALLEL_SEQ=\(seq)"
        } else {
            throw .usage("--shard auto: no scheduler index in the environment (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX or PARALLEL_SEQ); give --shard K/N")
        }
        guard let n = given else {
            throw .usage("--shard auto: \(source) gives the index but not the number of shards; give --shard auto/N")
        }
        guard (1...n).contains(index) else { throw .usage("--shard auto/\(n): \(source) is shard \(index), outside 1…\(n)") }
        try self.init(index: index, count: n)
    }
}
