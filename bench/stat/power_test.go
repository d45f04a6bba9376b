package stat

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestMinDetectableIsMinistatHalfWidth(t *testing.T) {
	// At power 0.5, MinDetectable is Student's ± for two samples of n with equal s, computed
	// with the exact t quantile: seed 000's 9 runs with s = 0.710259 give 0.7098 (ministat's
	// table value 2.120 for 16 df against the exact 2.1199).
	got := MinDetectable(0.710259, 9, 95, 0.5)
	want := TQuantile(16, 95) * 0.710259 * math.Sqrt(2.0/9)
	if math.Abs(got-want) > 1e-12 || math.Abs(got-0.709817) > 1e-4 {
		t.Errorf("MinDetectable(0.710259, 9, 95, 0.5) = %g, want %g ≈ 0.709817", got, want)
	}
}

func TestMinDetectablePower(t *testing.T) {
	// Check the meaning by simulation: with the n and Δ MinDetectable gives for power 0.8,
	// Student's t proves the difference in about 80% of 2000 simulated comparisons.
	const s, n = 1.0, 10
	delta := MinDetectable(s, n, 95, 0.8)
	r := rand.New(rand.NewPCG(80, 80))
	proven := 0
	const trials = 2000
	for range trials {
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y[i] = r.NormFloat64()*s, delta+r.NormFloat64()*s
		}
		d, err := Student(Summarize(x), Summarize(y), 95)
		if err != nil {
			t.Fatal(err)
		}
		if d.Significant {
			proven++
		}
	}
	if share := float64(proven) / trials; share < 0.75 || share > 0.85 {
		t.Errorf("difference %g with n = %d proven in %.1f%% of trials, want about 80%%", delta, n, 100*share)
	}
	if lo, hi := MinDetectable(s, n, 95, 0.2), MinDetectable(s, n, 95, 0.5); !(lo < hi) {
		t.Errorf("MinDetectable at power 0.2 (%g) not below power 0.5 (%g)", lo, hi)
	}
	for _, bad := range []func(){
		func() { MinDetectable(-1, 5, 95, 0.5) },
		func() { MinDetectable(1, 1, 95, 0.5) },
		func() { MinDetectable(1, 5, 95, 1) },
		func() { MinDetectable(1, 5, 100, 0.5) },
	} {
		if !panics(bad) {
			t.Errorf("MinDetectable with bad arguments did not panic")
		}
	}
}

func TestRunsNeeded(t *testing.T) {
	// Seed 000: s ≈ 0.71 s per buildkernel run, and a claimed difference of 0.27% of 435.67 s
	// = 1.18 s. For 80% power at 95% confidence: the smallest n with MinDetectable ≤ 1.18.
	n, err := RunsNeeded(0.71, 1.1844, 95, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	if MinDetectable(0.71, n, 95, 0.8) > 1.1844 || MinDetectable(0.71, n-1, 95, 0.8) <= 1.1844 {
		t.Errorf("RunsNeeded = %d: not the smallest n", n)
	}
	// The normal approximation 2((z₀.₉₇₅ + z₀.₈)·s/Δ)² = 2(2.8016·0.5995)² = 5.64 gives 6; t's
	// heavier tails at 10 degrees of freedom add one.
	if n != 7 {
		t.Errorf("RunsNeeded(0.71, 1.1844, 95, 0.8) = %d, want 7", n)
	}
	if _, err := RunsNeeded(1, 0, 95, 0.8); err == nil {
		t.Errorf("RunsNeeded(delta 0): no error")
	}
	if _, err := RunsNeeded(1, 1e-6, 95, 0.8); err == nil {
		t.Errorf("RunsNeeded(delta 1e-6 s): no error for more than a million runs")
	}
}
