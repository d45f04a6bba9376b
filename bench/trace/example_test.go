package trace_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// run runs a workload under ULE on one CPU and returns its trace.
func run(text string, until time.Duration) *sim.Trace {
	w, err := workload.Parse(text)
	if err != nil {
		panic(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Trace: sim.TraceFull}
	r, err := sim.Run(cfg, examplePolicy("ule:main"), w, until)
	if err != nil {
		panic(err)
	}
	return r.Trace
}

// A thread that runs 1 ms and sleeps 1 ms, twice, as trace-cmd report prints it.
func ExampleWriteFtrace() {
	tr := run("thread t\n\trepeat 2\n\t\trun 1ms\n\t\tsleep 1ms\n\tend\nend\n", time.Second)
	if err := trace.WriteFtrace(os.Stdout, tr, &trace.FtraceOptions{Micro: true}); err != nil {
		panic(err)
	}
	// Output:
	// cpus=1
	//           <idle>-0     [000]     0.000000: sched_wakeup_new:     comm=t pid=1000 prio=120 target_cpu=000
	//           <idle>-0     [000]     0.000000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t next_pid=1000 next_prio=120
	//                t-1000  [000]     0.001000: sched_switch:         prev_comm=t prev_pid=1000 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
	//           <idle>-0     [000]     0.002000: sched_wakeup:         comm=t pid=1000 prio=120 target_cpu=000
	//           <idle>-0     [000]     0.002000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t next_pid=1000 next_prio=120
	//                t-1000  [000]     0.003000: sched_switch:         prev_comm=t prev_pid=1000 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
	//           <idle>-0     [000]     0.004000: sched_wakeup:         comm=t pid=1000 prio=120 target_cpu=000
	//           <idle>-0     [000]     0.004000: sched_switch:         prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=t next_pid=1000 next_prio=120
	//                t-1000  [000]     0.004000: sched_process_exit:   comm=t pid=1000 prio=120 group_dead=true
	//                t-1000  [000]     0.004000: sched_switch:         prev_comm=t prev_pid=1000 prev_prio=120 prev_state=X ==> next_comm=swapper/0 next_pid=0 next_prio=120
}

// Two hogs sharing a CPU: the events of the Chrome trace, counted by phase and name.
func ExampleWriteChrome() {
	tr := run("thread hog count=2\n\trun 20ms\nend\n", time.Second)
	var b strings.Builder
	if err := trace.WriteChrome(&b, tr, &trace.ChromeOptions{NoThreadTracks: true}); err != nil {
		panic(err)
	}
	out := b.String()
	fmt.Println(strings.HasPrefix(out, `{"traceEvents":[`))
	fmt.Println("hog.0 slices:", strings.Count(out, `"ph":"X","pid":0,"tid":0,"ts":`) > 1)
	fmt.Println("wake-ups:", strings.Count(out, `"name":"wakeup","cat":"sched"`))
	// Output:
	// true
	// hog.0 slices: true
	// wake-ups: 2
}

func ExampleKernelPrio() {
	fmt.Println(trace.KernelPrio(sched.Attr{}), trace.KernelPrio(sched.Attr{Nice: -5}),
		trace.KernelPrio(sched.Attr{Class: sched.FIFO, RTPrio: 50}))
	// Output: 120 115 49
}

// A Go program's execution trace (testdata/pipeline.gotrace: a producer goroutine feeding
// two stages and a sink through unbuffered channels, recorded with runtime/trace) replayed as
// OS threads under ULE and under EEVDF on two CPUs, beside the trace's own timing.
func ExampleReplay() {
	f, err := os.Open("testdata/pipeline.gotrace")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	im, err := trace.ReadGoTrace(f, "pipeline.gotrace", nil)
	if err != nil {
		panic(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1)}
	for _, p := range []struct {
		name   string
		policy sim.Policy
	}{
		{"ULE", examplePolicy("ule:main")},
		{"EEVDF (Linux 6.6)", examplePolicy("cfs:v6.6")},
	} {
		c, err := trace.Replay(cfg, p.policy, im, 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: the replay ends at %.2f ms; the trace lasted %.2f ms\n", p.name,
			float64(c.Result.Makespan)/1e6, float64(im.Duration)/1e6)
		for _, t := range c.Tasks {
			if strings.Contains(t.Trace.Name, "pipeline") {
				fmt.Printf("  %-24s cpu %4.0f us  wait %4.0f us (trace %4.0f)  latency %3.0f us (trace %3.0f)\n", t.Trace.Name,
					float64(t.CPUTime)/1e3, float64(t.WaitTime)/1e3, float64(t.Trace.WaitTime)/1e3,
					float64(t.MeanLatency)/1e3, float64(t.Trace.MeanLatency())/1e3)
			}
		}
	}
	// Output:
	// ULE: the replay ends at 13.07 ms; the trace lasted 14.22 ms
	//   trace_pipelineStage-23   cpu  888 us  wait  218 us (trace  976)  latency   0 us (trace  32)
	//   trace_pipelineStage-24   cpu 1748 us  wait   82 us (trace  356)  latency   0 us (trace  10)
	//   trace_pipelineSink-25    cpu   94 us  wait   35 us (trace  709)  latency   0 us (trace  22)
	// EEVDF (Linux 6.6): the replay ends at 13.30 ms; the trace lasted 14.22 ms
	//   trace_pipelineStage-23   cpu  888 us  wait  514 us (trace  976)  latency  16 us (trace  32)
	//   trace_pipelineStage-24   cpu 1748 us  wait   24 us (trace  356)  latency   0 us (trace  10)
	//   trace_pipelineSink-25    cpu   94 us  wait  987 us (trace  709)  latency  44 us (trace  22)
}

// Three lines of trace-cmd report: bash, already running when the trace begins, wakes cat
// and hands it the CPU. The wake-up names its waker, so cat's wait becomes a message from bash;
// the trace starts at its first event, so bash's first burst is the 100 us the trace shows.
func ExampleReadFtrace() {
	const text = `cpus=1
            bash-100   [000]     1.000100000: sched_wakeup:         comm=cat pid=101 prio=120 target_cpu=000
            bash-100   [000]     1.000200000: sched_switch:         prev_comm=bash prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=cat next_pid=101 next_prio=120
             cat-101   [000]     1.000500000: sched_switch:         prev_comm=cat prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
	im, err := trace.ReadFtrace(strings.NewReader(text), "report.txt", nil)
	if err != nil {
		panic(err)
	}
	fmt.Print(workload.Format(im.Workload))
	for _, t := range im.Tasks {
		fmt.Printf("%s: cpu %d ns, running at start %t, asleep at start %t\n", t.Name, t.CPUTime, t.RunningAtStart, t.SleepingAtStart)
	}
	// Output:
	// pipe p-bash-100-cat-101
	//
	// thread bash-100
	// 	send p-bash-100-cat-101 1
	// 	run 100us
	// end
	//
	// thread cat-101
	// 	recv p-bash-100-cat-101 1
	// 	run 300us
	// end
	// bash-100: cpu 100000 ns, running at start true, asleep at start false
	// cat-101: cpu 300000 ns, running at start false, asleep at start true
}

// An rt-app description with a periodic real-time task and a mutex, which the workload
// cannot express: the import says so.
func ExampleReadRTApp() {
	const desc = `{
	"global": {"duration": 1},
	"tasks": {
		"audio": {"policy": "SCHED_FIFO", "priority": 80, "loop": -1,
			"phases": {"p": {"loop": -1, "lock": "m", "run": 500, "unlock": "m", "timer": {"ref": "unique", "period": 5000}}}}
	}
}`
	rt, err := trace.ReadRTApp(strings.NewReader(desc), "audio.json")
	if err != nil {
		panic(err)
	}
	fmt.Print(workload.Format(rt.Workload))
	for _, w := range rt.Warnings {
		fmt.Println(w)
	}
	// Output:
	// thread audio class=fifo rtprio=80
	// 	loop
	// 		every 5ms
	// 			run 500us
	// 		end
	// 	end
	// end
	// audio.json:5: tasks.audio.phases.p.lock: mutexes cannot be expressed; left out
	// audio.json:5: tasks.audio.phases.p.unlock: mutexes cannot be expressed; left out
}

func ExampleWriteRTApp() {
	w, err := workload.Parse("thread ticker class=rr rtprio=30\n\tevery 10ms 100\n\t\trun exp(1ms)\n\tend\nend\n")
	if err != nil {
		panic(err)
	}
	warns, err := trace.WriteRTApp(os.Stdout, w, 2e9)
	if err != nil {
		panic(err)
	}
	for _, w := range warns {
		fmt.Println(w)
	}
	// Output:
	// {
	// 	"global": {
	// 		"duration": 2,
	// 		"default_policy": "SCHED_OTHER",
	// 		"calibration": "CPU0"
	// 	},
	// 	"tasks": {
	// 		"ticker": {
	// 			"instance": 1,
	// 			"policy": "SCHED_RR",
	// 			"priority": 30,
	// 			"loop": 1,
	// 			"phases": {
	// 				"p0": {
	// 					"loop": 100,
	// 					"run1": 1000,
	// 					"timer2": {"ref": "unique", "period": 10000, "mode": "absolute"}
	// 				}
	// 			}
	// 		}
	// 	}
	// }
	// rt-app: ticker: exp(1ms) written as its mean, 1ms
}

func ExampleComparison_WriteTable() {
	tr := run("thread a\n\trepeat 3\n\t\trun 1ms\n\t\tsleep 2ms\n\tend\nend\nthread b\n\trun 4ms\nend\n", time.Second)
	var text strings.Builder
	// IRQFlags marks the timer's wake-ups of a, so that the import does not take them for
	// wake-ups by b, which was running.
	if err := trace.WriteFtrace(&text, tr, &trace.FtraceOptions{IRQFlags: true}); err != nil {
		panic(err)
	}
	im, err := trace.ReadFtrace(strings.NewReader(text.String()), "run.txt", nil)
	if err != nil {
		panic(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1)}
	c, err := trace.Replay(cfg, examplePolicy("ule:main"), im, 0)
	if err != nil {
		panic(err)
	}
	if err := c.WriteTable(os.Stdout, nil); err != nil {
		panic(err)
	}
	// Output:
	// task  cpu trace ms  cpu replay ms  cpu %  wait trace ms  wait replay ms  lat trace µs  lat replay µs
	//   a-1000         3.000          3.000    100          0.000           0.000           0.0            0.0
	//   b-1001         4.000          4.000    100          3.000           3.000           0.0            0.0
	//    total         7.000          7.000    100          3.000           3.000             -              -
	// CPU time of all tasks: trace 7.000 ms of 1 CPU × 9.000 ms (77.8%); replay 7.000 ms of 1 CPU × 9.000 ms (77.8%)
}

// examplePolicy returns a fresh policy by its presets name.
func examplePolicy(name string) sim.Policy {
	p, err := presets.New(name)
	if err != nil {
		panic(err)
	}
	return p
}

// ExampleImportOptions_costs replays a recorded ping-pong of two processes on one CPU on a
// machine that charges a switch, an address-space switch, a refill and a wake-up. Imported as
// recorded, the replay charges those costs on top of runs that already hold them; with the
// machine's costs in the import options, each run is shortened by what the machine will charge
// inside it, and the replay, which switches as the recording did, gives each task its traced
// CPU time.
func ExampleImportOptions_costs() {
	var b strings.Builder
	b.WriteString("cpus=1\n")
	ev := func(comm string, pid int, us int, what string) {
		fmt.Fprintf(&b, "%16s-%-5d [000]  0.%06d: %s\n", comm, pid, us, what)
	}
	ev("<idle>", 0, 0, "sched_wakeup_new: comm=ping pid=10 prio=120 target_cpu=000")
	ev("<idle>", 0, 0, "sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=ping next_pid=10 next_prio=120")
	ev("ping", 10, 5, "sched_wakeup_new: comm=pong pid=11 prio=120 target_cpu=000")
	t := 100
	for range 20 {
		ev("ping", 10, t, "sched_wakeup: comm=pong pid=11 prio=120 target_cpu=000")
		ev("ping", 10, t, "sched_switch: prev_comm=ping prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=pong next_pid=11 next_prio=120")
		t += 100
		ev("pong", 11, t, "sched_wakeup: comm=ping pid=10 prio=120 target_cpu=000")
		ev("pong", 11, t, "sched_switch: prev_comm=pong prev_pid=11 prev_prio=120 prev_state=S ==> next_comm=ping next_pid=10 next_prio=120")
		t += 100
	}
	ev("ping", 10, t, "sched_switch: prev_comm=ping prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120")

	costs := sim.Costs{Switch: sim.Fixed(time.Microsecond), SwitchMM: sim.Fixed(3 * time.Microsecond),
		Refill: sim.Fixed(500 * time.Nanosecond), Wakeup: sim.Fixed(700 * time.Nanosecond)}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Costs: costs}
	for _, o := range []*trace.ImportOptions{nil, {Costs: &costs}} {
		im, err := trace.ReadFtrace(strings.NewReader(b.String()), "pingpong", o)
		if err != nil {
			fmt.Println(err)
			return
		}
		p, _ := presets.New("cfs:v7.1")
		c, err := trace.Replay(cfg, p, im, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("deducted=%v:", o != nil)
		for _, tc := range c.Tasks {
			fmt.Printf(" %s trace %v replay %v;", tc.Trace.Label(), time.Duration(tc.Trace.CPUTime), time.Duration(tc.CPUTime))
		}
		fmt.Println()
	}
	// Output:
	// deducted=false: ping-10 trace 2.1ms replay 2.2043ms; pong-11 trace 2ms replay 2.1035ms;
	// deducted=true: ping-10 trace 2.1ms replay 2.1ms; pong-11 trace 2ms replay 2ms;
}
