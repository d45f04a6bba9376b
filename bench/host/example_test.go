package host_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// The preset to put beside a kernel.
func ExampleNearestPolicy() {
	for _, rel := range []string{"5.15.0-91-generic", "6.6.30", "6.12.8", "6.18.44-fc-v669", "7.0.2", "7.1.5"} {
		fmt.Println(rel, host.NearestPolicy(rel))
	}
	// Output:
	// 5.15.0-91-generic cfs:v6.5
	// 6.6.30 cfs:v6.6
	// 6.12.8 cfs:v6.18
	// 6.18.44-fc-v669 cfs:v6.18
	// 7.0.2 cfs:v6.18
	// 7.1.5 cfs:v7.1
}

func ExampleReleaseVersion() {
	fmt.Println(host.ReleaseVersion("6.18.44-fc-v669"))
	// Output: 6 18
}

func ExampleNewPolicy() {
	p, groups, _ := host.NewPolicy("cfs:v7.1")
	fmt.Println(p.Name(), groups)
	p, groups, _ = host.NewPolicy("ule:legacy")
	fmt.Println(p.Name(), groups)
	_, _, err := host.NewPolicy("eevdf")
	fmt.Println(err != nil)
	// Output:
	// cfs-v7.1 true
	// ule-legacy false
	// true
}

// The models' half of the model-vs-host table, on a simulated two-CPU machine.
func ExampleCompare() {
	exps := []host.Experiment{host.NiceSplitExperiment(1, time.Second)}
	rows, _ := host.Compare(context.Background(), exps, host.CompareOptions{ModelOnly: true,
		Topology: topology.Uniform(1, 1, 1, 2, 1), Release: "6.18.0", Policies: []string{"ule:main"}})
	for _, m := range rows[0].Models {
		fmt.Printf("%s %.1f\n", m.Policy, m.Value)
	}
	// Output:
	// cfs:v6.18 61.5
	// ule:main 1.1
}

func ExampleWriteRows() {
	hostRuns := []float64{62.7, 58.7, 66.7}
	rows := []host.Row{{Experiment: "nice split", Metric: "CPU a / b", Host: hostRuns,
		Nearest: "cfs:v7.1", Models: []host.ModelFigure{{Policy: "cfs:v7.1", Value: 65.7}}, Ratio: 1.05,
		Verdict: "agrees", Reported: "68.3", Load: [2]float64{1, 2},
		// The host's mean is 62.7 ± 9.94 (t(2) = 4.303, s = 4): 65.7 is inside.
		Stat: host.HostVsModel(hostRuns, []float64{65.7}, 95)}}
	host.WriteRows(os.Stdout, rows)
	// Output:
	// experiment  metric     host median [min, max]  load            reported  cfs:v7.1*  model/host  verdict  goal  t test
	// nice split  CPU a / b  62.7 [58.7, 66.7]       1.00-2.00 busy  68.3      65.7       1.05        agrees   -     No difference proven at 95.0% confidence
	// (busy: 1 row(s) in whose host runs other programs, the kernel's threads or the hypervisor took more than 5% of the machine's CPU time ("others"), or, where that was not measured, the one-minute load average rose above 0.5; their figures are the busy machine's)
	// (* the preset nearest the running kernel; one-minute load average 1.00-2.00 during the host runs, their own threads included)
	// (t test: Welch's t of the host's runs, the baseline, against the nearest model's over as many seeds, the one-sample t where the model's runs are all the same; a difference is the model's mean minus the host's)
}

func ExampleParseSchedstat() {
	s, _ := host.ParseSchedstat("167318 5875182 2\n")
	fmt.Printf("%+v\n", s)
	_, err := host.ParseSchedstat("167318 x 2\n")
	fmt.Println(err)
	// Output:
	// {CPU:167318 Wait:5875182 Slices:2}
	// host: schedstat:1:8: "x" is not a count
}

func ExampleParseStatus() {
	s, _ := host.ParseStatus("voluntary_ctxt_switches:\t7\nnonvoluntary_ctxt_switches:\t1\n")
	fmt.Printf("%+v\n", s)
	// Output: {Voluntary:7 Involuntary:1}
}

func ExampleParseMigrations() {
	n, _ := host.ParseMigrations("se.nr_migrations                             :                    3\n")
	fmt.Println(n)
	// Output: 3
}

func ExampleParseProcStat() {
	cpus, _ := host.ParseProcStat("cpu  4705 0 2349 67338 84 0 61 0 0 0\ncpu0 2342 0 1178 33585 45 0 30 0 0 0\n")
	fmt.Println(cpus[0].CPU, cpus[0].IdleTicks(), cpus[0].BusyTicks())
	// Output: 0 33630 3550
}

func ExampleParseLoadavg() {
	v, _ := host.ParseLoadavg("4.59 4.43 2.10 3/345 18119\n")
	fmt.Println(v)
	// Output: 4.59
}

func ExampleParseIO() {
	r, w, sr, sw, _ := host.ParseIO("rchar: 1000\nwchar: 20480\nsyscr: 3\nsyscw: 2\n")
	fmt.Println(r, w, sr, sw)
	// Output: 1000 20480 3 2
}

func ExampleParsePerfBench() {
	b, _ := host.ParsePerfBench("# 1 groups == 40 processes run\n\n     Total time: 0.024 [sec]\n")
	fmt.Println(b.Total, b.Tasks)
	// Output: 24ms 40
}

func ExampleParseHackbench() {
	b, _ := host.ParseHackbench("Running in process mode with 1 groups using 40 file descriptors each (== 40 tasks)\nTime: 0.010\n")
	fmt.Println(b.Total, b.Tasks)
	// Output: 10ms 40
}

func ExampleParseCyclictest() {
	ts, _ := host.ParseCyclictest("T: 0 ( 2702) P: 2 I:1000 C:     50 Min:     12 Act:   13 Avg:   14 Max:      25\n")
	fmt.Printf("%+v\n", ts[0])
	// Output: {Thread:0 TID:2702 Prio:2 Interval:1000 Cycles:50 Min:12 Act:13 Avg:14 Max:25}
}

func ExampleParseStressNG() {
	ms, _ := host.ParseStressNG("stress-ng: metrc: [2703] cpu                1758      1.00      0.99      0.00      1755.99        1760.29\n")
	fmt.Println(ms[0].Stressor, ms[0].BogoOps, ms[0].Real)
	// Output: cpu 1758 1s
}

func ExampleSeed000Workload() {
	fmt.Print(workload.Format(host.Seed000Workload(host.Seed000Costs, host.HogNice19, 0, 1)))
	// Output:
	// group box
	// pipe records cap=6
	//
	// thread tar cpus=0 group=box
	// 	repeat 1000
	// 		run 40.5us
	// 		send records
	// 	end
	// end
	//
	// thread gzip cpus=1 group=box
	// 	repeat 1000
	// 		recv records
	// 		run 264us
	// 	end
	// end
	//
	// thread hog nice=19 cpus=1 group=box
	// 	run forever
	// end
}

// ExampleProgramFigures lists the program figures a profile can carry: what the modelled
// benchmarks' own system calls and processes cost, measured by Calibrate (all of them) or
// CalibrateProgram (those named).
func ExampleProgramFigures() {
	fmt.Println(host.ProgramFigures())
	// Output: [pipe pipe100 socket100 pipe100_shared socket100_shared pipe100_fanout socket100_fanout fault exit fault_busy exit_busy switch_mm_ring]
}

// Three repetitions of the cross-CPU ping-pong, the second caught in a minute when the
// hypervisor took the vCPU away now and then: the median of each quantile keeps the typical
// repetition's tail, where pooling the samples would have carried the episode into it.
func ExampleMedianCost() {
	us := func(v ...float64) sim.Cost {
		d := func(x float64) time.Duration { return time.Duration(x * 1e3) }
		return sim.Cost{Min: d(v[0]), P50: d(v[1]), P90: d(v[2]), P99: d(v[3]), P999: d(v[4]), Max: d(v[5])}
	}
	reps := []sim.Cost{
		us(7.9, 10.7, 11.4, 41.3, 99.8, 201),
		us(7.0, 13.5, 46.4, 284, 2165, 3986),
		us(9.0, 11.2, 11.9, 34.4, 69.3, 1901),
	}
	m := host.MedianCost(reps)
	fmt.Println("p50", m.P50, "p90", m.P90, "p99", m.P99, "max", m.Max)
	// Output: p50 11.2µs p90 11.9µs p99 41.3µs max 1.901ms
}
