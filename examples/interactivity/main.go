// Command interactivity is lesson 4 of the course: how FreeBSD's ULE tells an interactive
// thread from a batch one, and what priority and slice each gets (package ule).
//
// Run it with
//
//	go run ./examples/interactivity
//
// ULE remembers, per thread, how long it ran (ts_runtime) and how long it slept voluntarily
// (ts_slptime), both in hz ticks shifted left by 10, and keeps only the recent past: once
// their sum passes SCHED_SLP_RUN_MAX (5 seconds) both are scaled down (sched_interact_update,
// ule.InteractUpdate). From the two it computes an interactivity score from 0 to 100
// (sched_interact_score, ule.InteractScore):
//
//   - a thread that slept more than it ran scores 50·run/sleep, below 50;
//   - one that ran more than it slept scores 50 + 50·(1 − sleep/run), 50 and above — except
//     that with kern.sched.interact at most 50, as by default, ULE stops at 50 for any thread
//     that ran at least as long as it slept: such a thread is batch whatever the rest.
//
// A score plus nice below kern.sched.interact (30) makes the thread interactive: its priority
// comes from the score alone, in the interactive band, above every batch thread, and it
// preempts one when it wakes. Everyone else is batch, prioritised by %CPU over the last ten
// seconds and nice (sched_priority, ule.TimesharePriority). The slice, the time a thread may
// run before another of its priority gets a turn, shrinks as the CPU's load grows
// (tdq_slice, ule.SliceFor): 12 stathz ticks (about 94 ms) down to 2.
//
// The lesson runs four threads on one simulated CPU for 20 seconds under ULE (FreeBSD main):
// an editor that mostly waits for keystrokes, a compiler-like thread that runs half the time, a
// CPU hog, and a hog at nice 20; then it reads their state from the scheduler itself.
package main

import (
	"fmt"
	"io"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/examples/internal/lesson"
	"github.com/schedkit/schedkit/topology"
	"github.com/schedkit/schedkit/ule"
)

const text = `
thread editor
	loop
		sleep exp(100ms)
		run exp(1ms)
	end
end

thread compiler
	loop
		run 20ms
		sleep 20ms
	end
end

thread hog
	run forever
end

thread nicehog nice=20
	run forever
end
`

func main() { lesson.Main("interactivity", run) }

// run prints the lesson to w.
func run(w io.Writer) error {
	wl, err := workload.Parse(text)
	if err != nil {
		return err
	}
	p, err := ule.Preset("main")
	if err != nil {
		return err
	}
	s, err := ule.New(p)
	if err != nil {
		return err
	}
	cfg := sim.Config{Topology: topology.Uniform(1, 1, 1, 1, 1), Hz: 1000, StatHz: 127, Seed: 1}
	r, err := sim.Run(cfg, s, wl, 20*time.Second)
	if err != nil {
		return err
	}
	l := ule.Main.Layout()
	fmt.Fprintf(w, "ULE main, one CPU, 20 s. Interactive band %d-%d, batch band %d-%d (lower runs first).\n\n",
		l.MinInteract, l.MaxInteract, l.MinBatch, l.MaxBatch)
	fmt.Fprintf(w, "%-9s %5s %8s %8s %6s %5s %-11s %6s\n", "thread", "nice", "run(s)", "slept(s)", "score", "pri", "class", "share")
	for i := range r.Threads {
		ts := &r.Threads[i]
		t, _ := s.Thread(ts.ID)
		score := ule.InteractScore(t.RunTime, t.SlpTime, p.Interact)
		kind := "batch"
		if score+t.Nice < int(p.Interact) {
			kind = "interactive"
		}
		fmt.Fprintf(w, "%-9s %5d %8.2f %8.2f %6d %5d %-11s %5.1f%%\n", ts.Name, t.Nice,
			float64(t.RunTime>>10)/1000, float64(t.SlpTime>>10)/1000, score, t.UserPri, kind, 100*ts.Share())
	}
	fmt.Fprintln(w, "\n(run and slept are ts_runtime and ts_slptime: the recent history ULE keeps, scaled down")
	fmt.Fprintln(w, "whenever their sum passes 5 s, not the whole 20 s.)")

	fmt.Fprintln(w, "\nThe slice a CPU hands out shrinks with its load (tdq_slice: 12 stathz ticks, minimum 2):")
	fmt.Fprint(w, "  runnable threads:")
	for load := 1; load <= 8; load++ {
		fmt.Fprintf(w, " %4d", load)
	}
	fmt.Fprint(w, "\n  slice (ticks):   ")
	for load := 1; load <= 8; load++ {
		fmt.Fprintf(w, " %4d", ule.SliceFor(load, 12, 2))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\nThe editor's wake-ups ran after p99 %v of waiting; the hog, batch, waits its turn.\n",
		latency(r, "editor", 99))
	return nil
}

func latency(r *sim.Result, name string, p float64) time.Duration {
	t, ok := r.Thread(name)
	if !ok {
		return -1
	}
	d, _ := t.Latency(p)
	return time.Duration(d)
}
