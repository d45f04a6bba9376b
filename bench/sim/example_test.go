package sim_test

import (
	"fmt"
	"os"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bsd4"
	"github.com/schedkit/schedkit/topology"
)

// Two CPU hogs on one CPU under 4BSD: each gets half of it.
func ExampleRun() {
	w, err := workload.Parse("thread hog count=2\n\trun forever\nend\n")
	if err != nil {
		panic(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}
	r, err := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, 10*time.Second)
	if err != nil {
		panic(err)
	}
	for _, t := range r.Threads {
		fmt.Printf("%s %.1f%%\n", t.Name, 100*t.Share())
	}
	// Output:
	// hog.0 50.2%
	// hog.1 49.8%
}

// A periodic thread beside a hog: its wake-to-run latencies, as schbench measures them. Under
// 4BSD a woken timeshare thread does not preempt another: it waits for the hog's slice to end.
func ExampleThreadStats_Latency() {
	w, _ := workload.Parse(`
thread hog
	run forever
end
thread ticker
	every 10ms 100
		run 1ms
	end
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}
	r, _ := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, 2*time.Second)
	t, _ := r.Thread("ticker")
	for _, p := range []float64{50, 99, 100} {
		l, _ := t.Latency(p)
		fmt.Printf("p%v %v\n", p, time.Duration(l))
	}
	// Output:
	// p50 0s
	// p99 7.874015ms
	// p100 92.362204ms
}

// WriteTable puts runs of the same workload under several policies side by side.
func ExampleWriteTable() {
	w, _ := workload.Parse(`
thread hog count=2
	run forever
end
thread ticker
	every 10ms
		run 1ms
	end
end`)
	topo := topology.Uniform(1, 1, 1, 1, 1)
	var results []*sim.Result
	for _, p := range []bsd4.Params{bsd4.DefaultParams(), bsd4.FreeBSD9Params()} {
		r, _ := sim.Run(sim.Config{Topology: topo, StatHz: 127}, must(bsd4.New(p)), w, 10*time.Second)
		results = append(results, r)
	}
	sim.WriteTable(os.Stdout, results...)
	// Output:
	//             4bsd-main                                            4bsd-9
	// thread       cpu%  wake p50  wake p99  wake p99.9  wake max    cpu%  wake p50  wake p99  wake p99.9  wake max
	// hog.0       44.5%         -         -           -         -   45.5%         -         -           -         -
	// hog.1       45.6%         -         -           -         -   45.3%         -         -           -         -
	// ticker       9.8%       0ns       0ns       185ms     185ms    9.2%       0ns       0ns       205ms     205ms
	// cpu%: the thread's CPU time over its life in the run. wake p50 … max: its wake-up latency,
	// from being woken to running, as percentiles of the run. With repetitions, each figure is their
	// median. "-": no figure (a thread that never slept has no wake-up latency); 0ns: measured, and 0.
}

// Summarize puts repetitions of each policy in one column: each figure is the median over the
// column's runs, and the totals count the runs.
func ExampleSummarize() {
	w, _ := workload.Parse(`
thread hog
	run forever
end
thread ticker
	every 10ms
		run exp(1ms)
	end
end`)
	topo := topology.Uniform(1, 1, 1, 1, 1)
	var cols []sim.Column
	for _, p := range []bsd4.Params{bsd4.DefaultParams(), bsd4.FreeBSD9Params()} {
		c := sim.Column{Name: must(bsd4.New(p)).Name()}
		for rep := range 3 {
			r, _ := sim.Run(sim.Config{Topology: topo, StatHz: 127, Seed: uint64(1 + rep)}, must(bsd4.New(p)), w, time.Second)
			c.Reps = append(c.Reps, sim.Rep{N: rep, Result: r})
		}
		cols = append(cols, c)
	}
	s := sim.Summarize(sim.Table{Percentiles: []float64{50, 100}, Totals: []sim.Total{sim.Switches, sim.Migrations}}, cols...)
	fmt.Println(s.Decls(), s.Threads[1].Cells[0].Runs)
	s.Write(os.Stdout, sim.Text)
	// Output:
	// [hog ticker] 3
	//         4bsd-main                      4bsd-9
	// thread       cpu%  wake p50  wake max    cpu%  wake p50  wake max
	// hog         90.5%         -         -   90.6%         -         -
	// ticker       9.5%       0ns    92.4ms    9.4%       0ns     102ms
	// cpu%: the thread's CPU time over its life in the run. wake p50 … max: its wake-up latency,
	// from being woken to running, as percentiles of the run. With repetitions, each figure is their
	// median. "-": no figure (a thread that never slept has no wake-up latency); 0ns: measured, and 0.
	//
	// policy     runs  switches  migrations
	// 4bsd-main     3       184           0
	// 4bsd-9        3       182           0
	// switches, migrations: counts.
}

// Step and Check let a test verify the conservation of threads after every event.
func ExampleMachine_Check() {
	w, _ := workload.Parse("thread job count=3\n\trun 5ms\nend\n")
	m, _ := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}, must(bsd4.New(bsd4.DefaultParams())), w)
	events := 0
	for m.Step() {
		if err := m.Check(); err != nil {
			fmt.Println(err)
			return
		}
		events++
	}
	fmt.Println(events, "events, all checked; makespan", time.Duration(m.Result().Makespan))
	// Output: 12 events, all checked; makespan 9ms
}

// A trace, formatted as text.
func ExampleTrace_Format() {
	w, _ := workload.Parse(`
pipe p
thread a
	run 1ms
	send p
end
thread b
	recv p
	run 1ms
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Trace: sim.TraceFull}
	r, _ := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, time.Second)
	for _, rec := range r.Trace.Records {
		fmt.Println(r.Trace.Format(rec))
	}
	// Output:
	// 0.000000000 cpu0 fork a by machine
	// 0.000000000 cpu0 wakeup a by machine fork
	// 0.000000000 cpu0 resched from cpu0 in wakeup
	// 0.000000000 cpu0 fork b by machine
	// 0.000000000 cpu0 wakeup b by machine fork
	// 0.000000000 cpu0 switch idle -> a
	// 0.001000000 cpu0 resched from cpu0 in tick
	// 0.001000000 cpu0 switch a -> b (preempt)
	// 0.001000000 cpu0 switch b -> a (sleep)
	// 0.001000000 cpu0 wakeup b by a sync
	// 0.001000000 cpu0 exit a
	// 0.001000000 cpu0 switch a -> b (exit)
	// 0.002000000 cpu0 exit b
	// 0.002000000 cpu0 switch b -> idle (exit)
}

func ExamplePercentile() {
	sorted := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, p := range []float64{0, 50, 90, 99.9, 100} {
		v, _ := sim.Percentile(sorted, p)
		fmt.Printf("p%v=%d ", p, v)
	}
	fmt.Println()
	// Output: p0=1 p50=5 p90=9 p99.9=10 p100=10
}

// The checkers watch a run; Result.Err is nil when no invariant was broken.
func ExampleResult_Err() {
	w, _ := workload.Parse(`
thread hog count=3
	run forever
end
thread napper count=2
	loop
		run 2ms
		sleep 1ms
	end
end`)
	cfg := sim.Config{
		Topology: topology.Uniform(1, 1, 1, 4, 1),
		StatHz:   127,
		Checks:   sim.Checks{WorkConservation: 20 * time.Millisecond, Starvation: time.Second},
	}
	r, _ := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, 5*time.Second)
	fmt.Println(r.Err(), r.Counts)
	// Output: <nil> [0 0 0]
}

// Costs and speeds: two threads on the two hardware threads of one core each run at 0.625 of
// the core's speed, so 10ms of work takes 16ms, after a switch that costs 50us.
func ExampleConfig() {
	w, _ := workload.Parse(`
thread a cpus=0
	run 10ms
end
thread b cpus=1
	run 10ms
end`)
	cfg := sim.Config{
		Topology: topology.Uniform(1, 1, 1, 1, 2), // one core, two hardware threads
		Costs:    sim.Costs{Switch: sim.Fixed(50 * time.Microsecond)},
	}
	r, _ := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, time.Second)
	for _, t := range r.Threads {
		fmt.Println(t.Name, time.Duration(t.End), time.Duration(t.Work))
	}
	// Output:
	// a 16.05ms 10ms
	// b 16.05ms 10ms
}

// A machine can be driven one event at a time.
func ExampleMachine_Step() {
	w, _ := workload.Parse("thread sleeper\n\tsleep 3ms\n\trun 1ms\nend\n")
	m, _ := sim.New(sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}, must(bsd4.New(bsd4.DefaultParams())), w)
	for next, ok := m.Next(); ok && next <= int64(5*time.Millisecond); next, ok = m.Next() {
		m.Step()
		fmt.Println(time.Duration(m.Now()), m.Done())
	}
	// Output:
	// 0s false
	// 1ms false
	// 2ms false
	// 3ms false
	// 3ms false
	// 4ms true
}

// Total.Of reads one of a run's totals, as the summary tables print them: a ping-pong of 100
// rounds on one CPU keeps it busy for 200 ms (nanoseconds, as the times are) and switches at
// every message, 200 times, besides the first switch-in and the last switch to idle.
func ExampleTotal_Of() {
	w, _ := workload.Parse(`
pipe ping
pipe pong
thread a
	repeat 100
		run 1ms
		send ping
		recv pong
	end
end
thread b
	repeat 100
		recv ping
		run 1ms
		send pong
	end
end`)
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), StatHz: 127}
	r, _ := sim.Run(cfg, must(bsd4.New(bsd4.DefaultParams())), w, 10*time.Second)
	for _, t := range []sim.Total{sim.Makespan, sim.Switches, sim.IdleShare} {
		fmt.Printf("%s %v\n", t, t.Of(r))
	}
	// Output:
	// makespan 2e+08
	// switches 202
	// idle 0
}
