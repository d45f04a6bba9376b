package host

// This file implements the verdicts of the comparison of model and host: the model's figure
// against the host's range, and the t test of the host's runs against the model's.

import (
	"fmt"
	"math"

	"github.com/schedkit/schedkit/bench/stat"
	"github.com/schedkit/schedkit/internal/numfmt"
)

// maxSpread is the widest host range, relative to its median, within which a model's figure is
// said to agree: beyond it the host's runs say too little.
const maxSpread = 0.5

// verdict compares the model's figure with the host's repetitions.
func verdict(model float64, host []float64, tol float64) (float64, string) {
	s := finite(host)
	switch {
	case len(s) == 0:
		return math.NaN(), "no host figure"
	case math.IsNaN(model):
		return math.NaN(), "no model figure"
	}
	med := stat.Median(s)
	ratio := model / med
	lo, hi := s[0]*(1-tol), s[len(s)-1]*(1+tol)
	spread := (s[len(s)-1] - s[0]) / med
	switch {
	case model >= lo && model <= hi && spread > maxSpread:
		return ratio, fmt.Sprintf("inconclusive (host range %.0f%% of its median)", 100*spread)
	case model >= lo && model <= hi:
		return ratio, "agrees"
	case model > hi:
		return ratio, fmt.Sprintf("model %.0f%% high", 100*(model/s[len(s)-1]-1))
	}
	return ratio, fmt.Sprintf("model %.0f%% low", 100*(1-model/s[0]))
}

// A StatVerdict is the t test of the host's repetitions of an experiment against the nearest
// model's runs of it, the kind of verdict bench/stat gives two sets of simulated runs.
type StatVerdict struct {
	// Tested is false when there was nothing to test; Why then says why ("1 host run").
	Tested bool
	Why    string
	// OneSample is true when the model's runs were all the same figure: the test is then the
	// host's mean against that value, the one-sample t interval of the host's runs.
	OneSample bool
	// Diff is the difference of the model's mean from the host's, the host the baseline: Delta
	// and Rel are positive when the model is high.
	Diff stat.Difference
}

// HostVsModel tests the host's figures against the model's, leaving out NaNs, with Welch's t
// ([stat.Welch]) at the confidence level, in percent: the host's runs are the baseline, the
// model's the other sample. Welch's rather than ministat's Student's t because the two samples'
// spreads differ by construction — the host's is the machine's noise, the model's only that of
// the workload's random durations — and Student's pooled s, with N₁+N₂-2 degrees of freedom,
// would make a noisy host look better known than it is.
//
// When the model's runs are all the same figure (the model is deterministic per seed, and a
// workload without random durations gives one figure for every seed), the model's variance is
// exactly 0 and Welch's t is the one-sample t test of the host's mean against that figure:
// standard error s/√N of the host's runs, N-1 degrees of freedom. One model run counts as such
// a figure. Fewer than two host figures, or no model figure, allow no test.
func HostVsModel(host, model []float64, confidence float64) StatVerdict {
	h, m := finite(host), finite(model)
	switch {
	case len(h) == 0:
		return StatVerdict{Why: "no host run"}
	case len(h) == 1:
		return StatVerdict{Why: "1 host run"}
	case len(m) == 0:
		return StatVerdict{Why: "no model figure"}
	}
	v := StatVerdict{Tested: true, OneSample: m[0] == m[len(m)-1]}
	x, y := summary(h), summary(m)
	if v.OneSample {
		y.N = max(y.N, 2) // Welch counts a sample's values, but a variance of 0 weighs nothing
	}
	d, err := stat.Welch(x, y, confidence)
	if err != nil {
		return StatVerdict{Why: err.Error()}
	}
	v.Diff = d
	return v
}

// summary returns the ministat summary of the sorted values s, with a variance of exactly 0
// when they are all equal (ministat's running sums can round it below 0, and its root to NaN).
func summary(s []float64) stat.Summary {
	if s[0] != s[len(s)-1] {
		return stat.Summarize(s)
	}
	return stat.Summary{N: len(s), Min: s[0], Max: s[0], Median: s[0], Mean: s[0]}
}

// String returns v in ministat's words on one line: "No difference proven at 95.0%
// confidence", or "Difference at 95.0% confidence: 4.1% +/- 2.3%" (three significant digits) (the model's mean against
// the host's, relative to the host's, in percent of the host's, or absolute where the host's mean is 0), or
// "no test (1 host run)"; "-" for the zero StatVerdict.
func (v StatVerdict) String() string {
	d := v.Diff
	switch {
	case !v.Tested && v.Why == "":
		return "-" // the zero StatVerdict: no test was tried
	case !v.Tested:
		return "no test (" + v.Why + ")"
	case !d.Significant:
		return fmt.Sprintf("No difference proven at %.1f%% confidence", d.Confidence)
	case math.IsInf(d.Rel, 0) || math.IsNaN(d.Rel):
		return fmt.Sprintf("Difference at %.1f%% confidence: %s +/- %s", d.Confidence, numfmt.Sig3(d.Delta), numfmt.Sig3(d.HalfWidth))
	}
	return fmt.Sprintf("Difference at %.1f%% confidence: %s%% +/- %s%%", d.Confidence, numfmt.Sig3(d.Rel), numfmt.Sig3(d.RelHalfWidth))
}
