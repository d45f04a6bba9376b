// Command estcpu is lesson 3 of the course: how FreeBSD's 4BSD scheduler turns CPU use into
// priority, and forgets it again, with the kernel's own fixed-point arithmetic (package bsd4).
//
// Run it with
//
//	go run ./examples/estcpu
//
// 4BSD keeps one number per thread, estcpu, a decaying count of the statistics-clock ticks the
// thread was running for:
//
//  1. at every stathz tick (127 per second here) the running thread's estcpu goes up by one
//     (sched_clock, bsd4.EstCPUTick), capped so that its priority stays inside the time-sharing
//     range (ESTCPULIM, bsd4.ESTCPULim);
//  2. once a second schedcpu multiplies every thread's estcpu by b/(b+1) with b = 2·loadav, the
//     load average (bsd4.DecayCPU, bsd4.LoadFactor): on an idle machine CPU use is forgotten
//     quickly, on a busy one slowly — 90% of it in about 5·loadav seconds;
//  3. the user priority is PUSER + estcpu/IEW + nice − PRIO_MIN (resetpriority,
//     bsd4.ResetPriority), where IEW, INVERSE_ESTCPU_WEIGHT, is 8 per CPU: a larger machine
//     needs more ticks per priority level. Lower numbers run first.
//  4. a thread that sleeps more than a second is skipped by schedcpu; when it wakes, updatepri
//     applies the decays it missed, all at once (bsd4.UpdatePri).
//
// The lesson follows a CPU hog on one CPU: alone (load 1), then sharing the CPU with a second
// hog (load 2, each gets half the ticks), and finally after a three-second sleep. It prints
// estcpu and priority at the end of each second, after the decay.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/schedkit/schedkit/bsd4"
)

func main() {
	run(os.Stdout)
}

const stathz = 127

// run prints the lesson to w.
func run(w io.Writer) {
	p := bsd4.DefaultParams() // FreeBSD main: 256 queues (RQ_PPQ 1)
	l, fold := p.Layout, p.Fold
	iew := bsd4.InverseEstcpuWeight(1) // one CPU
	fmt.Fprintf(w, "one CPU: INVERSE_ESTCPU_WEIGHT %d, ESTCPULIM %d, PUSER %d\n", iew, bsd4.ESTCPULim(1<<31, iew, fold), l.MinTimeshare)

	for _, tc := range []struct {
		title string
		load  bsd4.Fixpt // the load average schedcpu decays with
		ticks int        // ticks the hog runs for in a second
		nice  int
	}{
		{"a hog alone (load 1.0), nice 0", bsd4.FScale, stathz, 0},
		{"two hogs sharing the CPU (load 2.0), nice 0", 2 * bsd4.FScale, stathz / 2, 0},
		{"a hog alone, nice 20", bsd4.FScale, stathz, 20},
	} {
		fmt.Fprintf(w, "\n%s:\n  second  estcpu  priority\n", tc.title)
		var estcpu uint32
		for sec := 1; sec <= 8; sec++ {
			for range tc.ticks {
				estcpu, _ = bsd4.EstCPUTick(estcpu, iew, fold) // sched_clock
			}
			estcpu = bsd4.DecayCPU(bsd4.LoadFactor(tc.load), estcpu) // schedcpu
			fmt.Fprintf(w, "  %6d  %6d  %8d\n", sec, estcpu, bsd4.ResetPriority(estcpu, tc.nice, iew, l))
		}
		// Where it settles: each second adds the ticks and keeps b/(b+1) of the sum, so
		// e = (e + ticks)·b/(b+1), e = ticks·b — unless e + ticks would pass ESTCPULIM, where
		// the ticks stop counting and e = ESTCPULIM·b/(b+1).
		b := int(2 * tc.load / bsd4.FScale)
		lim := int(bsd4.ESTCPULim(1<<31, iew, fold))
		if e := tc.ticks * b; e+tc.ticks <= lim {
			fmt.Fprintf(w, "  settles where e = (e + %d)·%d/%d: e = %d\n", tc.ticks, b, b+1, e)
		} else {
			fmt.Fprintf(w, "  settles at the cap: e + %d would pass ESTCPULIM %d, so e = %d·%d/%d = %d\n", tc.ticks, lim, lim, b, b+1, lim*b/(b+1))
		}
	}

	fmt.Fprintln(w, "\nthe first hog sleeps for 3 seconds, at load 1.0, and wakes:")
	var estcpu uint32
	for range 8 {
		for range stathz {
			estcpu, _ = bsd4.EstCPUTick(estcpu, iew, fold)
		}
		estcpu = bsd4.DecayCPU(bsd4.LoadFactor(bsd4.FScale), estcpu)
	}
	woke := bsd4.UpdatePri(estcpu, 3, bsd4.FScale) // updatepri: the decays it missed
	fmt.Fprintf(w, "  estcpu %d (priority %d) -> %d (priority %d)\n", estcpu, bsd4.ResetPriority(estcpu, 0, iew, l),
		woke, bsd4.ResetPriority(woke, 0, iew, l))
	fmt.Fprintln(w, "\nA thread that used the CPU sinks to a higher (worse) priority, and faster on an idle")
	fmt.Fprintln(w, "machine than on a busy one; a sleeper comes back favoured. There is no per-CPU queue")
	fmt.Fprintln(w, "here: 4BSD keeps one global run queue, ordered by these priorities.")
}
