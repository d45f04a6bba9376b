// Package scenario turns each seed document into a runnable experiment: a workload built from
// parameters (calibrated where the seed's programs can be measured), run under every policy
// preset the question concerns, repeated with seeds, summarised and compared with bench/stat's
// Student's t, and printed beside the numbers the seed published, with a one-line verdict per
// row.
//
// # Scenarios
//
// A Scenario is plain data: a name, the seed it cites, parameters with defaults and ranges,
// rows (a policy preset from bench/presets and the parameter values of one line of the seed's
// table, with the figure the seed printed for it and the row it is compared with), metrics,
// a Build function that makes the machine and the workload of one run, and Expectations —
// "this row is 1.7 to 2.3 times its baseline, significantly" — that the tests check at a
// small size. Register adds one to the registry; Names and Lookup find them. The Example
// writes a new scenario in a few lines.
//
// # Running
//
// NewPlan expands a scenario under Options into cells: every grid point (the cartesian
// product of Options.Grid, parameter names sorted) × every row × Reps repetitions, in that
// order. Repetition k runs with simulator seed k+1 in every row, so that rows differ by policy
// and parameters, not by their random numbers (common random numbers). Plan.Run runs any
// subset of cells on a bounded pool of goroutines (Options.Workers, all cores by default),
// calls Options.Progress from the caller's goroutine, and returns results in the order asked
// whatever order they finished in; Plan.Merge puts results into a Report; Report.WriteTable
// prints it. Run does the three. The same inputs give the same bytes: the simulator is
// deterministic, cells are independent, and nothing depends on the order workers finish.
//
// A run whose workload has a thread that never exits (a CPU hog) names the threads whose exits
// end it (Setup.StopWhenExited, the simulator's Stop.Threads), and the run ends the instant the
// last of them exits.
//
// # Scale-out
//
// Plan.Shard(k, n) is the cells shard k of n runs: every n-th cell from k. Each shard writes
// its results as JSON lines (WriteJSONL); ReadJSONL and Plan.Merge of all shards' lines, in
// any order, give a Report whose table is byte for byte the single run's (encoding/json writes
// the shortest decimal that reads back as the same float64). Merge refuses a missing,
// duplicated or foreign cell. The test TestShardsAsProcesses runs three shards as separate
// processes and checks the merged table; SHARDING.md shows the same as a Kubernetes Indexed
// Job, a Slurm array job and GNU parallel.
//
// # Verdicts
//
// For each row with a baseline the table shows our ratio of means, the seed's ratio (from its
// two printed figures, or a ratio it printed), and a verdict from Student's t at 95 %
// (bench/stat, ministat's arithmetic): "direction matches; size 1.84× vs 20.05×",
// "direction differs", or "no difference proven at 95%". The ± beside our mean is the 95 %
// half-width of the mean over the repetitions.
//
// # The seeds
//
// seed000-pipeline (seed 000, Guzik 2023): tar | gzip with a CPU hog pinned beside gzip. The
// costs per 10240-byte tar record come from measuring the real programs here
// (go run ./bench/scenario/calibrate, stored in data/pipeline-calibration.json); the pipe is
// FreeBSD's direct write (sys/kern/sys_pipe.c: writes of at least PIPE_MINDIRECT = 8192 bytes
// wait until the reader has copied them) for the FreeBSD policies and Linux's 64 KiB buffer for
// CFS/EEVDF. Reproduced: CFS/EEVDF's 2.0× with a nice 0 hog, 1.02× nice 19, ~1.0× SCHED_IDLE,
// the Linux host's 2.02/1.02/1.01×. Not reproduced: ULE's 20×; with the calibrated costs gzip
// never waits for tar, so it never wakes up, and ULE's wake-up paths (what pick_short and
// preempt_thresh change) never run; ULE shares the CPU about 50:50 between gzip and the nice 20
// hog and the pipeline takes 1.8×. The scenario's notes say so.
//
// Each scenario's Notes list what its model leaves out; WriteTable prints them under the table.
package scenario
