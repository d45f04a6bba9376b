// This file implements the verdicts: how a figure of ours is judged against a seed's, by size
// as well as by direction, one set of rules for every table, summary and picture.

package scenario

import (
	"fmt"
	"math"
	"slices"
)

// The bands of the verdicts. A seed's effect e (a ratio to its baseline, such as 20.05× or
// 0.95×) is judged in log terms, where ln e is the size of the effect and its sign the
// direction:
//
//   - the band around the seed's ratio is a quarter of its effect, ±0.25·|ln e|, but never
//     narrower than ±ln 1.05 (a ratio within 5 % of a small effect agrees) nor wider than
//     ±ln 1.25 (within 1.25× of a large one): 20.05× takes 16.0×..25.1×, 1.36× takes
//     1.27×..1.47×, 1.02× takes 0.97×..1.07×; where the seed showed an effect, the band
//     stops halfway to no effect (ours at least half the seed's effect, in log terms, the
//     same way): the seed's 0.95× shown by its test takes 0.907×..0.975×, not 1×;
//   - an effect is one the seed showed when its own test said so (ministat's "Difference at
//     95.0% confidence", an mmtests '*'), or, where it printed no test, when it is at least
//     10 % (ratio ≥ 1.10 or ≤ 1/1.10).
//
// A value that is not a ratio (a share in %, a latency the seed measured on a machine like
// ours) is within its band when ours is within 1.25× of the seed's either way.
const (
	// BandShare is the band's half-width as a share of the seed's effect, in log terms.
	BandShare = 0.25
	// BandMin and BandMax bound the band's half-width, as ratios.
	BandMin = 1.05
	BandMax = 1.25
	// EffectMin is the smallest ratio counted as an effect where the seed printed no test.
	EffectMin = 1.10
	// Negligible bounds an effect of ours too small to count even when significant: the
	// model's runs can be all alike, so that Student's t finds a 0.01 % difference
	// significant. Outside the seed's band, a significant ratio within 1 % of 1 counts as no
	// effect.
	Negligible = 1.01
)

// A Significance is what the seed's own statistics said about a difference.
type Significance int8

const (
	// SigUnknown: the seed printed no test (one run, a sentence, a mean without a test); an
	// effect of EffectMin or more is taken as shown.
	SigUnknown Significance = iota
	// SigShown: the seed's test found the difference (ministat's "Difference at 95.0%
	// confidence", an mmtests '*').
	SigShown
	// SigNone: the seed's test found no difference (ministat's "No difference proven", an
	// mmtests figure without '*').
	SigNone
)

// A Kind is the class of a verdict.
type Kind int8

const (
	// NoFigure: the seed printed no figure for this row (or its figure does not apply at this
	// grid point); ours is shown alone.
	NoFigure Kind = iota
	// IsBaseline: the row is the baseline other rows are compared with.
	IsBaseline
	// Matches: the seed's figure is exact (a count) and every repetition of ours equals it.
	Matches
	// Reproduced: ours lies within the band of the seed's figure and, where the seed showed
	// an effect, ours is significant at 95 % in the same direction; or neither shows an effect.
	Reproduced
	// DirectionOnly: ours is a significant effect in the seed's direction, but its size lies
	// outside the band.
	DirectionOnly
	// NotReproduced: the seed showed an effect and ours is none (no difference proven at 95 %),
	// or the seed showed none and ours is one outside the band, or an exact or absolute figure
	// of ours is outside the band of the seed's.
	NotReproduced
	// Opposite: the seed showed an effect and ours is a significant effect the other way.
	Opposite
	// Untested: fewer than two repetitions, or a baseline whose mean is 0, so no ratio or test.
	Untested
)

var kindNames = [...]string{
	NoFigure: "no figure", IsBaseline: "baseline", Matches: "matches", Reproduced: "reproduced",
	DirectionOnly: "direction only", NotReproduced: "not reproduced", Opposite: "opposite", Untested: "untested",
}

// String returns the verdict's name as the tables print it, such as "direction only".
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// Comes reports whether a verdict of kind k says the seed's figure comes out: Matches or
// Reproduced.
func (k Kind) Comes() bool { return k == Matches || k == Reproduced }

// Evidence is what a verdict weighs: the seed's figure and ours. Ratio figures are a row's
// mean over its baseline's (ours) and the seed's two printed figures' ratio, or a ratio it
// printed; other figures are values in the metric's unit.
type Evidence struct {
	// Seed is the seed's figure; 0 with HasSeed false means it printed none.
	Seed    float64
	HasSeed bool
	// Ratio says Seed and Ours are ratios to a baseline.
	Ratio bool
	// SeedSig is what the seed's own test said of its ratio.
	SeedSig Significance
	// AtLeast says the seed's figure is a lower bound ("over an hour"); Exact that it is a
	// count every repetition of ours must equal.
	AtLeast, Exact bool
	// Ours is our ratio of means (Ratio) or our mean.
	Ours float64
	// Runs are our repetitions' values (used by Exact).
	Runs []float64
	// Tested says our test could run (two repetitions or more, a baseline mean other than
	// 0); Significant is its result at 95 %.
	Tested, Significant bool
}

// A Verdict is the judgement of one comparison, with the evidence it weighed.
type Verdict struct {
	Kind Kind
	Evidence
	// Band is the half-width of the band around Seed, as a ratio (≥ 1).
	Band float64
}

// Band returns the half-width, as a ratio, of the band around a seed's ratio e (see BandShare).
func Band(e float64) float64 {
	b := BandShare * math.Abs(math.Log(e))
	return math.Exp(min(max(b, math.Log(BandMin)), math.Log(BandMax)))
}

// Judge returns the verdict on e by the rules above. It is a pure function of its argument.
func Judge(e Evidence) Verdict {
	v := Verdict{Evidence: e}
	switch {
	case !e.HasSeed:
		v.Kind = NoFigure
		return v
	case e.Exact:
		v.Kind = NotReproduced
		if len(e.Runs) > 0 && !slices.ContainsFunc(e.Runs, func(x float64) bool { return x != e.Seed }) {
			v.Kind = Matches
		}
		return v
	case !e.Ratio:
		v.Band = BandMax
		v.Kind = NotReproduced
		if e.Seed > 0 && e.Ours > 0 && math.Abs(math.Log(e.Ours/e.Seed)) <= math.Log(BandMax)+1e-12 {
			v.Kind = Reproduced
		} else if e.Seed > 0 && e.AtLeast && e.Ours >= e.Seed/BandMax {
			v.Kind = Reproduced
		}
		return v
	case !e.Tested || !(e.Ours > 0) || math.IsInf(e.Ours, 0) || !(e.Seed > 0):
		v.Kind = Untested
		return v
	}
	v.Band = Band(e.Seed)
	ls, lo, lb := math.Log(e.Seed), math.Log(e.Ours), math.Log(v.Band)+1e-12
	seedEffect := e.seedEffect()
	within := math.Abs(lo-ls) <= lb
	sameSign := ls != 0 && lo != 0 && (ls > 0) == (lo > 0)
	if e.AtLeast {
		within = lo >= ls-lb
	} else if seedEffect {
		// The band stops halfway to no effect: where the seed's effect is smaller than
		// BandMin, the band would otherwise take in 1× itself, and an effect of ours a
		// hundredth of the seed's would count as its size.
		within = within && sameSign && math.Abs(lo) >= math.Abs(ls)/2-1e-12
	}
	none := !e.Significant || math.Abs(lo) < math.Log(Negligible)
	switch {
	case e.Significant && within:
		v.Kind = Reproduced
	case none && seedEffect:
		v.Kind = NotReproduced
	case none:
		// Neither shows an effect: the seed's test found none, or it is below EffectMin.
		v.Kind = Reproduced
	case sameSign && e.SeedSig != SigNone:
		v.Kind = DirectionOnly
	case seedEffect:
		v.Kind = Opposite
	default:
		v.Kind = NotReproduced
	}
	return v
}

// String returns the verdict in a few words: its kind, and for the kinds that do not come out
// the two figures, such as "direction only: 1.84× vs seed 20.05×" or "not reproduced: seed
// 1.92×, ours no difference".
func (v Verdict) String() string {
	switch v.Kind {
	case NoFigure:
		if !v.Ratio || !v.Tested {
			return "no figure"
		}
		if !v.Significant {
			return "no figure (ours: no difference)"
		}
		return "no figure (ours: " + times(v.Ours) + ")"
	case IsBaseline, Matches:
		return v.Kind.String()
	case Untested:
		if !v.Tested {
			return "untested: fewer than 2 runs"
		}
		return "untested: no ratio (a mean of 0)"
	case Reproduced:
		if v.Ratio && v.none() && !v.seedEffect() {
			return "reproduced: no effect, as the seed"
		}
		return "reproduced"
	}
	seed, ours := v.SeedText(), v.OursText()
	if v.Kind == NotReproduced && v.Ratio && !v.Significant {
		return fmt.Sprintf("not reproduced: seed %s, ours no difference", seed)
	}
	if v.Kind == NotReproduced && v.Ratio && v.none() {
		return fmt.Sprintf("not reproduced: seed %s, ours %s, under 1 %%", seed, ours)
	}
	return fmt.Sprintf("%s: ours %s vs seed %s", v.Kind, ours, seed)
}

// seedEffect reports whether the seed showed an effect: its own test said so, or, where it
// printed none, the ratio is at least EffectMin either way.
func (e Evidence) seedEffect() bool {
	return e.SeedSig == SigShown || (e.SeedSig == SigUnknown && math.Abs(math.Log(e.Seed)) >= math.Log(EffectMin)-1e-12)
}

// none reports whether our ratio counts as no effect: not significant, or within Negligible
// of 1.
func (v Verdict) none() bool {
	return !v.Significant || math.Abs(math.Log(v.Ours)) < math.Log(Negligible)
}

// SeedText formats the seed's figure: "20.05×", "≥ 8.57×", "8".
func (v Verdict) SeedText() string {
	if !v.HasSeed {
		return "-"
	}
	s := num(v.Seed)
	if v.Ratio {
		s = times(v.Seed)
	}
	if v.AtLeast {
		s = "≥ " + s
	}
	return s
}

// OursText formats our figure: a ratio "1.84×", "1.00× n.s." when our test found no
// difference, or a value.
func (v Verdict) OursText() string {
	if !v.Ratio {
		return num(v.Ours)
	}
	if math.IsNaN(v.Ours) || math.IsInf(v.Ours, 0) {
		return "-"
	}
	if v.Tested && !v.Significant {
		return times(v.Ours) + " n.s."
	}
	return times(v.Ours)
}

// times formats a ratio with two decimals, four within 0.5 % of 1, or three significant
// digits below 0.1.
func times(x float64) string {
	if x != 0 && math.Abs(x) < 0.1 {
		return fmt.Sprintf("%.3g×", x)
	}
	if x != 1 && math.Abs(x-1) < 0.005 {
		// 1.0027×, not 1.00×: a small effect shows its size.
		return fmt.Sprintf("%.4f×", x)
	}
	return fmt.Sprintf("%.2f×", x)
}
