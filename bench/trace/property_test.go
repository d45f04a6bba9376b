package trace

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

// randomWorkload writes a workload of a few threads that run, sleep, yield, fork and hand
// messages around a ring of pipes, with random durations, nice values and affinities.
func randomWorkload(r *rand.Rand, ncpu int, affinity bool) string {
	var b strings.Builder
	n := 2 + r.IntN(5)
	for i := range n {
		fmt.Fprintf(&b, "pipe p%d\n", i)
	}
	b.WriteString("template kid\n\trun 200us\n\tsleep 100us\n\trun 50us\nend\n")
	rounds := 3 + r.IntN(10) // the same for every thread of the ring, which therefore ends
	for i := range n {
		fmt.Fprintf(&b, "thread t%d nice=%d", i, r.IntN(11)-5)
		if affinity && r.IntN(4) == 0 {
			fmt.Fprintf(&b, " cpus=%d", r.IntN(ncpu))
		}
		if r.IntN(3) == 0 {
			fmt.Fprintf(&b, " start=%dus", r.IntN(500))
		}
		fmt.Fprintf(&b, "\n\trepeat %d\n", rounds)
		for k := 1 + r.IntN(4); k > 0; k-- {
			switch r.IntN(6) {
			case 0, 1:
				fmt.Fprintf(&b, "\t\trun %dus\n", 1+r.IntN(3000))
			case 2:
				fmt.Fprintf(&b, "\t\tsleep %dus\n", 1+r.IntN(2000))
			case 3:
				if affinity {
					b.WriteString("\t\tyield\n")
				}
				b.WriteString("\t\trun 10us\n")
			case 4:
				if i == 0 {
					b.WriteString("\t\tfork kid\n")
				} else {
					fmt.Fprintf(&b, "\t\trun %dus\n", 1+r.IntN(500))
				}
			case 5:
				fmt.Fprintf(&b, "\t\trun %dus\n", 1+r.IntN(300))
			}
		}
		// A ring: t0 sends first, every other thread receives, then passes on.
		if i == 0 {
			fmt.Fprintf(&b, "\t\tsend p%d\n\t\trecv p%d\n", 1%n, 0)
		} else {
			fmt.Fprintf(&b, "\t\trecv p%d\n\t\tsend p%d\n", i, (i+1)%n)
		}
		b.WriteString("\tend\nend\n")
	}
	return b.String()
}

// TestExportImportProperty runs random workloads under ULE and EEVDF, exports each run as
// ftrace text and as Chrome JSON, and checks that the ftrace import sees every thread exactly
// as the simulator measured it, that the Chrome trace keeps the format's rules, and that
// replaying the import under the same policy on the same machine reproduces the run: every
// thread's CPU time, run-queue wait and mean wake-up latency, to the nanosecond. With
// affinities and yields the replay keeps only the CPU times, since ftrace records neither
// (sched_switch's R without + is not a yield in real kernels: a return to user space with
// need_resched prints it too), so the import runs unpinned threads that do not yield.
func TestExportImportProperty(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 3
	}
	for k := range 2 * n {
		seed, extras := uint64(k/2), k%2 == 1
		r := rand.New(rand.NewPCG(seed, 18))
		ncpu := 1 + r.IntN(4)
		text := randomWorkload(r, ncpu, extras)
		w, err := workload.Parse(text)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		policies := []func() sim.Policy{
			func() sim.Policy { return ule.New(ule.DefaultParams()) },
			func() sim.Policy { return cfs.NewScheduler(cfs.SchedulerOptions{Version: cfs.V66}) },
		}
		for pi, newPolicy := range policies {
			name := fmt.Sprintf("seed=%d/cpus=%d/policy=%d/affinity+yield=%t", seed, ncpu, pi, extras)
			cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, ncpu, 1), Trace: sim.TraceFull, Seed: seed}
			res, err := sim.Run(cfg, newPolicy(), w, 5*time.Second)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var ft, ch bytes.Buffer
			if err := WriteFtrace(&ft, res.Trace, &FtraceOptions{IRQFlags: true, FullComm: true}); err != nil {
				t.Fatal(err)
			}
			if err := WriteChrome(&ch, res.Trace, nil); err != nil {
				t.Fatal(err)
			}
			checkChrome(t, ch.Bytes())
			im, err := ReadFtrace(&ft, name, nil)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if im.Warned > 0 {
				t.Errorf("%s: warnings on our own export: %v", name, im.Warnings)
			}
			byPID := map[int64]*TaskStats{}
			for i := range im.Tasks {
				byPID[im.Tasks[i].PID] = &im.Tasks[i]
			}
			for _, st := range res.Threads {
				ts := byPID[int64(DefaultPIDBase)+int64(st.ID)]
				if ts == nil {
					t.Fatalf("%s: %s not imported", name, st.Name)
				}
				if st.End < 0 {
					t.Errorf("%s: %s did not exit: the ring should end", name, st.Name)
				}
				if ts.CPUTime != st.CPUTime || ts.WaitTime != st.WaitTime || ts.Sleep != st.Sleep || ts.Wakeups != st.Wakeups {
					t.Errorf("%s: %s imported cpu %d wait %d sleep %d wakeups %d; simulated %d %d %d %d", name, st.Name,
						ts.CPUTime, ts.WaitTime, ts.Sleep, ts.Wakeups, st.CPUTime, st.WaitTime, st.Sleep, st.Wakeups)
				}
			}
			cfg.Trace = sim.TraceOff
			c, err := Replay(cfg, newPolicy(), im, 5*time.Second)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, tc := range c.Tasks {
				if tc.CPUTime != tc.Trace.CPUTime || !extras && (tc.WaitTime != tc.Trace.WaitTime || tc.MeanLatency != tc.Trace.MeanLatency()) {
					t.Errorf("%s: %s replayed cpu %d wait %d latency %d; trace %d %d %d", name, tc.Trace.Name,
						tc.CPUTime, tc.WaitTime, tc.MeanLatency, tc.Trace.CPUTime, tc.Trace.WaitTime, tc.Trace.MeanLatency())
				}
			}
		}
	}
}
