import DarkroomBatch
import Testing

/// `--shard auto` and `auto/N`: K/N from the environment each scheduler gives its tasks (SLURM
/// array variables as `sbatch --array` sets them; Kubernetes' JOB_COMPLETION_INDEX; GNU parallel's
/// PARALLEL_SEQ), and a usage error naming what is missing or inconsistent.
@Suite("Shard from the scheduler")
struct ShardSchedulerTests {
    func shard(_ text: String, _ env: [String: String]) throws -> Shard { try Shard(parsing: text, environment: env) }

    func usage(_ text: String, _ env: [String: String]) -> String {
        do { _ = try shard(text, env); return "" } catch let e as BatchError {
            if case .usage(let m) = e { return m }
            return ""
        } catch { return "" }
    }

    /// `--array=1-4`: tasks 1…4 are shards 1/4…4/4; `--array=0-7` is 8 shards from 0;
    /// `--array=10-30:10` (step 10) is 3 shards.
    @Test func slurmArrays() throws {
        for id in 1...4 {
            let env = ["SLURM_ARRAY_TASK_ID": "\(id)", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4",
                       "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_STEP": "1"]
            #expect(try shard("auto", env) == Shard(index: id, count: 4))
        }
        let zero = ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "7"]
        #expect(try shard("auto", zero) == Shard(index: 1, count: 8))
        #expect(try shard("auto/8", zero) == Shard(index: 1, count: 8))
        let stepped = ["SLURM_ARRAY_TASK_ID": "20", "SLURM_ARRAY_TASK_MIN": "10", "SLURM_ARRAY_TASK_MAX": "30",
                       "SLURM_ARRAY_TASK_STEP": "10", "SLURM_ARRAY_TASK_COUNT": "3"]
        #expect(try shard("auto", stepped) == Shard(index: 2, count: 3))
        // Only the count: N from it, K from the ID and a minimum of 0.
        #expect(try shard("auto", ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "5"]) == Shard(index: 3, count: 5))
    }

    @Test func slurmInconsistenciesAreUsageErrors() {
        // --array=1,5,7: 3 tasks, not one range.
        let list = ["SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "3"]
        #expect(usage("auto", list).contains("not one range"))
        #expect(usage("auto/6", ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"])
            .contains("the SLURM array has 4 tasks"))
        #expect(usage("auto", ["SLURM_ARRAY_TASK_ID": "3"]).contains("neither SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT"))
        #expect(usage("auto", ["SLURM_ARRAY_TASK_ID": "x3", "SLURM_ARRAY_TASK_COUNT": "4"]).contains("SLURM_ARRAY_TASK_ID=x3 is not a whole number"))
        #expect(usage("auto", ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "4"]).contains("not on the range"))
    }

    @Test func kubernetesAndParallelNeedTheCount() throws {
        #expect(try shard("auto/8", ["JOB_COMPLETION_INDEX": "0"]) == Shard(index: 1, count: 8))
        #expect(try shard("auto/8", ["JOB_COMPLETION_INDEX": "7"]) == Shard(index: 8, count: 8))
        #expect(usage("auto/8", ["JOB_COMPLETION_INDEX": "8"]).contains("outside 1…8"))
        #expect(usage("auto", ["JOB_COMPLETION_INDEX": "3"]).contains("give --shard auto/N"))
        #expect(try shard("auto/4", ["PARALLEL_SEQ": "4"]) == Shard(index: 4, count: 4))
        #expect(usage("auto/4", ["PARALLEL_SEQ": "0"]).contains("outside 1…4"))
        // SLURM first when several are present.
        #expect(try shard("auto", ["PARALLEL_SEQ": "1", "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_MIN": "1",
                                   "SLURM_ARRAY_TASK_MAX": "2"]) == Shard(index: 2, count: 2))
    }

    @Test func noSchedulerIsAUsageError() throws {
        #expect(usage("auto", [:]).contains("no scheduler index in the environment"))
        #expect(usage("auto/0", [:]).contains("N ≥ 1"))
        #expect(usage("auto/x", [:]).contains("N ≥ 1"))
        #expect(try shard("3/8", ["SLURM_ARRAY_TASK_ID": "1"]) == Shard(index: 3, count: 8), "K/N ignores the environment")
    }
}
