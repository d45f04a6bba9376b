package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/cfs"
)

// TestRealSharesFollowWeights runs the real load (two workers locked to threads, CPU-bound
// jobs charged their thread's CPU time) under the fair pool and checks the batch tenants'
// shares against a bound that follows from the pool's rule, not from the machine:
//
// A batch tenant always has a queued job, so tenant i is handed a job only when its vruntime
// is no larger than any other batch tenant's j. After the last such hand-out, at most
// `workers` of its jobs are still running, each charged at most c_i, the charge of its
// largest job. So at every instant v_i − v_j ≤ workers·c_i: the invariant checked first,
// exactly, in the kernel's integer arithmetic. It bounds each tenant's share of the batch CPU
// time: with x_i = v_i − v_start, a tenant can be ahead of its weight's share by at most a
// relative workers·c_i / (x_i − workers·c_i) (its own job size) and behind by at most
// workers·Σw_k·c_k / (x_i·Σw_k + workers·Σw_k·c_k) (the others'), plus 1e-4 for __calc_delta's
// rounding of the inverse weight. Other processes on the machine only stretch the wall time the run takes to
// accumulate CPU time; they do not enter the bound, so the test stops at a CPU-time target
// (1 s of batch CPU time) or at 2 s of wall time, whichever comes first, and the bound uses
// what was reached.
func TestRealSharesFollowWeights(t *testing.T) {
	const workers = 2
	cfg := realConfig{workers: workers, dur: 2 * time.Second, windows: 1, minCPU: time.Second, perMs: calibrate()}
	f := newFair(DefaultCredit, realSpecs)
	r := runReal(f, cfg)
	t.Logf("%v wall, %v of CPU charged (%d rounds per ms); jobs %v; largest %v", r.elapsed.Round(time.Millisecond),
		sumRow(r.cpu[0]), cfg.perMs, r.jobs, r.maxJob)

	var x, c []int64
	var served []time.Duration
	for i, tn := range f.ts {
		if got := tn.Served(); got != r.cpu[0][i] {
			t.Errorf("%s: pool charged %v, workers measured %v", tn.Name, got, r.cpu[0][i])
		}
		if i == realWeb {
			continue
		}
		if r.jobs[i] == 0 {
			t.Fatalf("%s ran no job", tn.Name)
		}
		x = append(x, int64(tn.Vruntime()-cfs.InitialMinVruntime))
		c = append(c, int64(cfs.CalcDeltaFair(cfs.DeltaWMult, uint64(r.maxJob[i]), tn.load)))
		served = append(served, tn.Served())
	}
	var wc, wsum float64 // Σ w_k·c_k and Σ w_k over the batch tenants
	for i := range x {
		for j := range x {
			if x[i]-x[j] > workers*c[i] {
				t.Errorf("vruntime of %s is %d ns ahead of %s's, more than %d workers × its largest charge %d",
					realSpecs[i].name, x[i]-x[j], realSpecs[j].name, workers, c[i])
			}
		}
		w := float64(realSpecs[i].weight)
		wc, wsum = wc+w*float64(c[i]), wsum+w
	}
	got, want := batchShares(served)
	for i := range got {
		// share_i / want_i = x_i·Σw / Σ w_k·x_k. Ahead: every x_k ≥ x_i − workers·c_i. Behind:
		// every x_k ≤ x_i + workers·c_k.
		xi := float64(x[i])
		hi := math.Inf(1)
		if xi > workers*float64(c[i]) {
			hi = xi/(xi-workers*float64(c[i])) - 1 + 1e-4
		}
		lo := 1 - xi*wsum/(xi*wsum+workers*wc) + 1e-4
		rel := got[i]/want[i] - 1
		if rel < -lo || rel > hi {
			t.Errorf("%s got %.2f%% of the batch CPU time, want %.2f%% (relative error %+.2f%%, bound -%.2f%% +%.2f%%)",
				realSpecs[i].name, 100*got[i], 100*want[i], 100*rel, 100*lo, 100*hi)
		} else {
			t.Logf("%s: %.2f%% of the batch CPU time, weight's share %.2f%% (relative error %+.2f%%, bound -%.2f%% +%.2f%%)",
				realSpecs[i].name, 100*got[i], 100*want[i], 100*rel, 100*lo, 100*hi)
		}
	}
}

// TestRealModeOutput runs the -real program briefly and checks that it reports every batch
// tenant, the weights, both pools' shares and the light tenant's delays in both pools.
func TestRealModeOutput(t *testing.T) {
	var buf bytes.Buffer
	runRealMode(&buf, 2, 150*time.Millisecond)
	out := buf.String()
	for _, s := range []string{"batch-a[1024]/5ms", "batch-b[2048]/3ms", "batch-c[512]/8ms", "whole run", "weights                 28.6%             57.1%             14.3%",
		"FIFO pool, same load: batch-a", "\n  fair pool ", "\n  FIFO pool "} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if n := strings.Count(out, "\n"); n != 17 {
		t.Errorf("output has %d lines, want 17:\n%s", n, out)
	}
}
