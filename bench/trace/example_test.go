package trace_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/bench/trace"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// run runs a workload under ULE on one CPU and returns its trace.
func run(text string, until time.Duration) *sim.Trace {
	w, err := workload.Parse(text)
	if err != nil {
		panic(err)
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Trace: sim.TraceFull}
	r, err := sim.Run(cfg, ule.New(ule.DefaultParams()), w, until)
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
	fmt.Println(strings.HasPrefix(out, `{"displayTimeUnit":"ns","traceEvents":[`))
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
		{"ULE", ule.New(ule.DefaultParams())},
		{"EEVDF (Linux 6.6)", cfs.NewScheduler(cfs.SchedulerOptions{Version: cfs.V66})},
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
	// ULE: the replay ends at 2.82 ms; the trace lasted 4.04 ms
	//   trace_pipelineStage-23   cpu  982 us  wait  429 us (trace 1090)  latency   0 us (trace  35)
	//   trace_pipelineStage-24   cpu 1868 us  wait  124 us (trace  442)  latency   0 us (trace  13)
	//   trace_pipelineSink-25    cpu  132 us  wait   35 us (trace 1190)  latency   0 us (trace  38)
	// EEVDF (Linux 6.6): the replay ends at 3.02 ms; the trace lasted 4.04 ms
	//   trace_pipelineStage-23   cpu  982 us  wait 1211 us (trace 1090)  latency  13 us (trace  35)
	//   trace_pipelineStage-24   cpu 1868 us  wait   84 us (trace  442)  latency   0 us (trace  13)
	//   trace_pipelineSink-25    cpu  132 us  wait  911 us (trace 1190)  latency  37 us (trace  38)
}
