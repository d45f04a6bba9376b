package sim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// gzipBesideHog is seed 000's shape: a job that exits beside a CPU hog that never does.
const gzipBesideHog = `
thread hog
	run forever
end
thread gzip
	loop
		run 3ms
		sleep 1ms
	end
end`

// RunUntil stops when the job has exited, not at the time limit, so that its share is over the
// interval it ran in.
func ExampleRunUntil() {
	w, _ := workload.Parse(`
thread hog
	run forever
end
thread gzip
	repeat 50
		run 3ms
		sleep 1ms
	end
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127, Seed: 1}
	r, _ := sim.RunUntil(cfg, must(ule.New(ule.DefaultParams())), w, sim.Stop{Threads: []string{"gzip"}, Time: time.Minute})
	g, _ := r.Thread("gzip")
	h, _ := r.Thread("hog")
	fmt.Printf("ended by %v at %v; gzip %.0f%%, hog %.0f%%\n", r.Ending, time.Duration(r.End), 100*g.Share(), 100*h.Share())
	// Output: ended by threads-exited at 294.488188ms; gzip 51%, hog 49%
}

// A warm-up discards the beginning of a run: the Result covers Start to End.
func ExampleStop_warmup() {
	w, _ := workload.Parse("thread hog count=2\n\trun forever\nend\n")
	r, _ := sim.RunUntil(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, must(bsd4.New(bsd4.DefaultParams())), w,
		sim.Stop{Time: 3 * time.Second, Warmup: time.Second})
	fmt.Println(time.Duration(r.Start), time.Duration(r.End), time.Duration(r.Makespan))
	fmt.Println(time.Duration(r.Threads[0].CPUTime+r.Threads[1].CPUTime), time.Duration(r.CPUs[0].Busy))
	// Output:
	// 1s 3s 2s
	// 2s 2s
}

// A Histogram keeps samples exactly up to its budget, then in buckets within 1/128 of each value;
// Merge pools histograms.
func ExampleHistogram() {
	var a, b sim.Histogram
	for v := int64(1); v <= 100; v++ {
		a.Add(v * 1000)
	}
	for v := int64(1); v <= 10000; v++ {
		b.Add(v * 1000)
	}
	p99, _ := a.Percentile(99)
	_, exact := b.Exact()
	bp99, _ := b.Percentile(99)
	fmt.Println(p99, exact, bp99)
	a.Merge(&b)
	fmt.Println(a.Count(), a.Max(), a.Percentiles(50, 99.9))
	// Output:
	// 99000 false 9961471
	// 10100 10000000 [4980735 10000000]
}

// Pooled, Group and Decl merge a series over threads; merging pooled histograms of several
// Results pools across runs (here, two seeds).
func ExampleResult_Pooled() {
	w, _ := workload.Parse(`
thread hog count=2
	run forever
end
thread tick count=3
	every 10ms phase=stagger
		run 500us
	end
end`)
	pooled := &sim.Histogram{}
	for seed := uint64(1); seed <= 2; seed++ {
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), StatHz: 127, Seed: seed}
		r, _ := sim.Run(cfg, must(ule.New(ule.DefaultParams())), w, time.Second)
		pooled.Merge(r.Decl(sim.WakeupLatency, "tick"))
	}
	p99, _ := pooled.Percentile(99)
	fmt.Println(pooled.Count(), time.Duration(p99))
	// Output: 568 41.077428ms
}

// WriteTableOf chooses the series, the percentiles and the totals of the table.
func ExampleWriteTableOf() {
	w, _ := workload.Parse(`
thread hog count=2
	run forever
end
thread tick
	every 10ms
		run 2ms
	end
end`)
	r, _ := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}, must(bsd4.New(bsd4.DefaultParams())), w, 5*time.Second)
	sim.WriteTableOf(os.Stdout, sim.Table{Series: sim.RequestLatency, Percentiles: []float64{50, 90, 99},
		Totals: []sim.Total{sim.Makespan, sim.Switches}}, r)
	// Output:
	//              4bsd-main
	// thread       cpu%  req p50  req p90  req p99
	// hog.0       40.2%        -        -        -
	// hog.1       40.6%        -        -        -
	// tick        19.2%   2.00ms   2.00ms   2.00ms
	// cpu%: the thread's CPU time over its life in the run. req p50 … p99: its request latency
	// (schbench's), from each wake-up to the end of the work it then did, as percentiles of the run.
	// With repetitions, each figure is their median. "-": no figure (a thread that never slept has no
	// request latency); 0ns: measured, and 0.
	//
	// policy     runs  makespan (time)  switches
	// 4bsd-main     1            5.00s      1004
	// makespan: when the last thread exited (the end if one still runs); switches: counts.
}

// WriteCSV writes one row per thread for spreadsheets and plotting tools.
func ExampleWriteCSV() {
	w, _ := workload.Parse("thread a\n\tevery 10ms 3\n\t\trun 1ms\n\tend\nend\n")
	r, _ := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, must(bsd4.New(bsd4.DefaultParams())), w, time.Second)
	sim.WriteCSV(os.Stdout, []float64{50, 100}, r)
	// Output:
	// column,rep,seed,policy,ending,start_ns,end_ns,thread,id,decl,group,start_thread_ns,end_thread_ns,cpu_ns,wait_ns,sleep_ns,work_ns,voluntary,involuntary,migrations,wakeups,lifetime_ns,share,wakeup_count,wakeup_p50_ns,wakeup_p100_ns,runq-wait_count,runq-wait_p50_ns,runq-wait_p100_ns,request_count,request_p50_ns,request_p100_ns
	// 4bsd-main,0,0,4bsd-main,all-exited,0,21000000,a,0,a,,0,21000000,3000000,0,18000000,3000000,2,0,0,2,21000000,0.14285714285714285,3,0,0,3,0,0,3,1000000,1000000
}

// A Result marshals to JSON with a documented schema, and reads back.
func ExampleResult_MarshalJSON() {
	w, _ := workload.Parse("thread a\n\trun 2ms\nend\n")
	r, _ := sim.Run(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, must(bsd4.New(bsd4.DefaultParams())), w, time.Second)
	data, _ := json.Marshal(r)
	var back sim.Result
	err := json.Unmarshal(data, &back)
	fmt.Println(err, back.Ending, back.Threads[0].Name, back.Threads[0].CPUTime)
	fmt.Println(string(data[:60]))
	// Output:
	// <nil> all-exited a 2000000
	// {"schema":"schedkit.sim.result/1","policy":"4bsd-main","star
}

// Accounting gives seed 002's columns: cp_time's sampled idle (I) against the exact idle (X).
func ExampleResult_Accounting() {
	w, _ := workload.Parse(gzipBesideHog)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), StatHz: 127, Seed: 1}
	r, _ := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, 10*time.Second)
	fmt.Println(r.Accounting())
	// Output: 10.00r 17.48u 0.00s 0.00i 17.48t 2.52I 2.51X
}

// Idle options reproduce seed 002's lost wake-ups: an idle CPU that misses the IPI finds the
// thread only at its next clock interrupt.
func ExampleIdle() {
	w, _ := workload.Parse(`
pipe p
thread producer cpus=0
	loop
		run 300us
		send p
	end
end
thread consumer cpus=1
	loop
		recv p
		run 100us
	end
end`)
	for _, idle := range []sim.Idle{{}, {MissProbability: 0.25}, {MissProbability: 0.25, Spin: true}} {
		cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), StatHz: 127, Seed: 1, Idle: idle}
		r, _ := sim.Run(cfg, must(ule.New(ule.DefaultParams())), w, time.Second)
		c, _ := r.Thread("consumer")
		p99, _ := c.Wakeup.Percentile(99)
		fmt.Println(time.Duration(p99))
	}
	// Output:
	// 0s
	// 6.485826ms
	// 0s
}
