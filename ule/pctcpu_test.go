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
