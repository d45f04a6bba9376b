package main

import (
	"math"
	"testing"
)

// TestTopGolden pins top's screens of the mixed workload under ULE (main and legacy layouts:
// PZERO 68 and 100) and 4BSD (WCPU weighted by exp(-1/20) a second), and procps' under EEVDF.
func TestTopGolden(t *testing.T) {
	for _, c := range []struct{ name, policy string }{{"ule", "ule"}, {"ule-legacy", "ule:legacy"}, {"4bsd", "4bsd"}, {"eevdf", "cfs:v7.1"}} {
		out, errs, code := runCLI(t, "top", "-policy", c.policy, "-until", "2s", "-every", "1s", "workloads/mixed.wl")
		if code != exitOK || errs != "" {
			t.Fatalf("%s: status %d, stderr %q", c.name, code, errs)
		}
		checkGolden(t, "top-"+c.name+".golden", []byte(out))
	}
}

// TestWeightedCPU checks top's weighted_cpu (usr.bin/top/machine.c) on worked cases: 4BSD's
// kern.ccpu is exp(-1/20) in FSCALE 2048 fixed point, 1948; ULE's is 0, so its WCPU is its CPU;
// a process in its first second shows 0.
func TestWeightedCPU(t *testing.T) {
	ccpu := 1948.0 / 2048
	cases := []struct {
		pct    float64
		swtime int64
		ccpu   float64
		want   float64
	}{
		{0.018, 2, ccpu, 0.018 / (1 - math.Pow(ccpu, 2))}, // 0.1889: a young process's CPU scaled up
		{0.5, 100, ccpu, 0.5 / (1 - math.Pow(ccpu, 100))}, // 0.5034: an old one's nearly as is
		{0.25, 3, 0, 0.25}, // ULE
		{0.9, 0, ccpu, 0},  // swtime 0
	}
	for _, c := range cases {
		if got := weightedCPU(c.pct, c.swtime, c.ccpu); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("weightedCPU(%v, %d, %v) = %v, want %v", c.pct, c.swtime, c.ccpu, got, c.want)
		}
	}
	if got := weightedCPU(0.018, 2, ccpu); math.Abs(got-0.18893) > 1e-4 {
		t.Errorf("weightedCPU(0.018, 2, 1948/2048) = %v, want about 0.18893", got)
	}
}
