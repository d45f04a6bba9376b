package ule

import (
	"math/rand/v2"
	"testing"
)

// pctCPUTarget agrees with main's t_tgt as sched_pctcpu_update computes it, in u_int, at every
// hz up to well past the first that wraps, and at random ones up to the largest u_int.
func TestPctCPUTarget(t *testing.T) {
	ref := func(h uint32) uint32 { return ((h * 11 << TickShift) * 10 / 11) >> TickShift }
	for h := range uint32(200_000) {
		if got, want := pctCPUTarget(h), ref(h); got != want {
			t.Fatalf("pctCPUTarget(%d) = %d, want %d", h, got, want)
		}
	}
	r := rand.New(rand.NewPCG(4, 4))
	for range 100_000 {
		h := r.Uint32()
		if got, want := pctCPUTarget(h), ref(h); got != want {
			t.Fatalf("pctCPUTarget(%d) = %d, want %d", h, got, want)
		}
	}
	if ref(pctNoWrapHz) != 10*pctNoWrapHz || ref(pctNoWrapHz+1) == 10*(pctNoWrapHz+1) {
		t.Errorf("pctNoWrapHz %d is not the last hz whose t_tgt is 10*hz", pctNoWrapHz)
	}
}

// In Main and Legacy, PctCPUUpdate at tick t changes nothing, running or not, when the window's
// ltick is t and t - ftick < 11*hz (u_int): the Scheduler skips those calls (Pick, Switch). The
// test also finds windows at their own ltick that do change without the second condition (a
// rescaling is due), and in FreeBSD9 with it, so that it could tell a wrong shortcut.
func TestPctCPUUpdateSameTick(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 31))
	due, freebsd9 := false, false
	for i := range 400_000 {
		hz := []int{2, 100, 127, 1000, 10_000, 1_000_000}[i%6]
		now := r.Uint32()
		w := Window{Ticks: r.Uint32(), FTick: now - r.Uint32N(uint32(13*hz)), LTick: now}
		if i%4 == 0 {
			w.FTick = r.Uint32() // anywhere, across the u_int wrap
		}
		if i%3 == 0 {
			w.Ticks = r.Uint32N(uint32(11*hz) << TickShift)
		}
		skip := now-w.FTick < uint32(11*hz)
		for _, v := range []Version{Main, Legacy, FreeBSD9} {
			for _, run := range []bool{false, true} {
				same := PctCPUUpdate(v, w, now, run, hz) == w
				switch {
				case v != FreeBSD9 && skip && !same:
					t.Fatalf("%v hz %d run %v: %+v changed at its own ltick", v, hz, run, w)
				case v != FreeBSD9 && !skip && !same:
					due = true
				case v == FreeBSD9 && skip && !same:
					freebsd9 = true
				}
			}
		}
	}
	if !due || !freebsd9 {
		t.Errorf("no window at its own ltick changed without the ftick test (%v) or in FreeBSD9 (%v)", due, freebsd9)
	}
}
