// Command pickshort is lesson 6 of the course: partial-slice starvation in ULE and the
// pick_short fix of seed 000 (FreeBSD commit ea8294fe, March 2023).
//
// Run it with
//
//	go run ./examples/pickshort
//
// A batch thread that goes off CPU before its slice ends (it blocks on a pipe, a disk, a lock)
// is queued again on the calendar when it wakes, behind a CPU hog of the same CPU that uses its
// whole slice every time. It then waits for the hog's full slice (about 94 ms at 127 Hz) to get
// back on, runs for a moment, blocks again — and a job that needs one second of CPU takes many
// times as long. The seed measured gzip, fed by tar, beside a hog pinned to gzip's core: 45 s
// became 907 s.
//
// The patch does two things, each behind a sysctl: kern.sched.pick_short=1 queues a thread that
// used only part of its slice on the real-time range, which is served before the calendar; and
// preempt_thresh=224 (PRI_MAX_TIMESHARE) lets a waking time-sharing thread preempt the running
// one at all. Only the two together help: a short user queued ahead of the hog still waits for
// the hog's slice to end unless it may preempt, and preemption alone does not help a thread
// that is queued behind the hog.
//
// Why does the thread not simply preempt the hog when it wakes? Because it is woken from
// another CPU. In the seed, tar runs on another core and wakes gzip by writing to the pipe; a
// wake-up queued on a remote CPU asks that CPU to switch only if sched_shouldpreempt agrees
// (tdq_notify), and with preempt_thresh 48 a time-sharing thread never qualifies. (A thread
// woken on its own CPU, by a timer say, is different: sched_setpreempt sets TDF_NEEDRESCHED
// whenever its priority is better, and the hog switches at its next return to user mode.)
//
// The lesson runs the seed's shape at small scale on two simulated CPUs: "tar" on CPU 0 produces
// 500 blocks, 1.5 ms of CPU each, into a pipe; "gzip" on CPU 1 needs 1 ms of CPU per block; a
// nice 20 CPU hog is pinned beside gzip. It prints gzip's completion time under seed 000's four
// rows (ULE 2023 with pick_short 0/1 and preempt_thresh 48/224), without the hog, and under the
// other schedulers, for pipes of 1, 4 and 16 blocks: the deeper the pipe, the more blocks gzip
// finds waiting when it finally runs, and the less it loses. The seed's 20x slowdown came from
// the real programs' sizes; bench/scenario's seed000-pipeline uses those, calibrated.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/presets"
	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
)

const pipeline = `
pipe data cap=%d

thread tar cpus=0
	repeat 500
		run 1500us
		send data
	end
end

thread gzip cpus=1
	repeat 500
		recv data
		run 1ms
	end
end
`

const hog = `
thread hog cpus=1 nice=20
	run forever
end
`

func main() { lesson.Main("pickshort", run) }

// completion runs the workload under the named preset and returns gzip's completion time.
func completion(name, text string) (time.Duration, error) {
	wl, err := workload.Parse(text)
	if err != nil {
		return 0, err
	}
	p, err := presets.New(name)
	if err != nil {
		return 0, err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 2, 1), Hz: 1000, StatHz: 127, Seed: 1}
	r, err := sim.Run(cfg, p, wl, 200*time.Second)
	if err != nil {
		return 0, err
	}
	t, _ := r.Thread("gzip")
	d, ok := t.Completion()
	if !ok {
		return 0, fmt.Errorf("%s: gzip did not finish in 200 s", name)
	}
	return time.Duration(d), nil
}

// run prints the lesson to w.
func run(w io.Writer) error {
	seed := map[string]string{"ps0-pt48": "2005%", "ps0-pt224": "1910%", "ps1-pt48": "1922%", "ps1-pt224": "136%"}
	for _, depth := range []int{1, 4, 16} {
		text := fmt.Sprintf(pipeline, depth)
		base, err := completion("ule:legacy", text)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "pipe of %d block(s): gzip's time, and %% of the run without the hog (seed 000's in brackets)\n", depth)
		fmt.Fprintf(w, "  ps  pt   %7.2f s   100%%   no hog\n", base.Seconds())
		for _, row := range []struct{ ps, pt int }{{0, 48}, {0, 224}, {1, 48}, {1, 224}} {
			key := fmt.Sprintf("ps%d-pt%d", row.ps, row.pt)
			d, err := completion("ule:seed000-"+key, text+hog)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  %d   %-3d  %7.2f s  %4.0f%%   (%s)\n", row.ps, row.pt, d.Seconds(), 100*d.Seconds()/base.Seconds(), seed[key])
		}
		for _, name := range []string{"ule:main", "bsd4:main", "cfs:v6.5", "cfs:v7.1"} {
			d, err := completion(name, text+hog)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  %-9s%7.2f s  %4.0f%%\n", name, d.Seconds(), 100*d.Seconds()/base.Seconds())
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "Only pick_short=1 with preempt_thresh=224 gives gzip its CPU back as soon as tar wakes it.")
	return nil
}
