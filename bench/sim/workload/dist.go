package workload

// This file implements Duration and Dist, the durations a behaviour script runs or sleeps for,
// and their sampling with integer arithmetic only.

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"time"
)

// MaxDuration is the longest duration a workload may name or draw, 2^48 ns (about 78 hours). The
// bound keeps every product of a duration and a CPU speed inside an int64.
const MaxDuration Duration = 1 << 48

// A Duration is a span of simulated time in nanoseconds. Its text form is that of
// [time.Duration] ("1.5ms", "250us", "2s"), which is also how it appears in JSON.
type Duration int64

// String returns d in the form of [time.Duration.String], such as "1.5ms", except that
// microseconds are written "us" so that the text stays ASCII.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "µs") {
		s = strings.TrimSuffix(s, "µs") + "us"
	}
	return s
}

// MarshalText implements encoding.TextMarshaler with the form of [Duration.String].
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler; see [ParseDuration].
func (d *Duration) UnmarshalText(text []byte) error {
	x, err := ParseDuration(string(text))
	if err != nil {
		return err
	}
	*d = x
	return nil
}

// ParseDuration parses a non-negative duration written as [time.ParseDuration] accepts it
// ("10ms", "1.5us", "1m30s"; "µs" and "us" both mean microseconds). It returns an error for a
// negative duration, one above [MaxDuration] and anything that is not a duration.
func ParseDuration(s string) (Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q (want a number and a unit such as 10ms, 250us, 2s)", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	if Duration(d) > MaxDuration {
		return 0, fmt.Errorf("duration %q above the maximum %v", s, MaxDuration)
	}
	return Duration(d), nil
}

// A DistKind is the shape of a [Dist].
type DistKind uint8

const (
	// Const is the constant duration A.
	Const DistKind = iota
	// Uniform draws uniformly from A to B, both bounds included.
	Uniform
	// Exp draws from the exponential distribution of mean A (memoryless inter-arrival and service
	// times), truncated at MaxDuration.
	Exp
	// Forever is an unbounded duration: a run that never finishes, as a CPU hog's. Only the run
	// behaviour accepts it.
	Forever
)

// A Dist is a distribution of durations: a constant, a uniform range, an exponential with a mean,
// or forever. Its text form, also used in JSON, is "10ms", "uniform(1ms,3ms)", "exp(2ms)" or
// "forever". The zero Dist is the constant 0.
type Dist struct {
	// Kind is the shape of the distribution.
	Kind DistKind
	// A is the constant, the lower bound of a uniform range, or the mean of an exponential.
	A Duration
	// B is the upper bound of a uniform range; it is 0 for the other kinds.
	B Duration
}

// Fixed returns the constant distribution d.
func Fixed(d Duration) Dist { return Dist{Kind: Const, A: d} }

// Between returns the uniform distribution from lo to hi, both included.
func Between(lo, hi Duration) Dist { return Dist{Kind: Uniform, A: lo, B: hi} }

// Exponential returns the exponential distribution of the given mean.
func Exponential(mean Duration) Dist { return Dist{Kind: Exp, A: mean} }

// Unbounded returns the distribution that is always forever.
func Unbounded() Dist { return Dist{Kind: Forever} }

// String returns the text form of d: "10ms", "uniform(1ms,3ms)", "exp(2ms)" or "forever".
func (d Dist) String() string {
	switch d.Kind {
	case Const:
		return d.A.String()
	case Uniform:
		return "uniform(" + d.A.String() + "," + d.B.String() + ")"
	case Exp:
		return "exp(" + d.A.String() + ")"
	case Forever:
		return "forever"
	}
	return fmt.Sprintf("dist(%d)", d.Kind)
}

// MarshalText implements encoding.TextMarshaler with the form of [Dist.String].
func (d Dist) MarshalText() ([]byte, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return []byte(d.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; see [ParseDist].
func (d *Dist) UnmarshalText(text []byte) error {
	x, err := ParseDist(string(text))
	if err != nil {
		return err
	}
	*d = x
	return nil
}

// ParseDist parses the text form of a distribution (see [Dist]); spaces around the arguments are
// allowed. The error says what is wrong.
func ParseDist(s string) (Dist, error) {
	s = strings.TrimSpace(s)
	if s == "forever" {
		return Unbounded(), nil
	}
	name, args, ok := strings.Cut(s, "(")
	if !ok {
		d, err := ParseDuration(s)
		if err != nil {
			return Dist{}, err
		}
		return Fixed(d), nil
	}
	if !strings.HasSuffix(args, ")") {
		return Dist{}, fmt.Errorf("distribution %q lacks its closing parenthesis", s)
	}
	parts := strings.Split(args[:len(args)-1], ",")
	var ds []Duration
	for _, p := range parts {
		d, err := ParseDuration(strings.TrimSpace(p))
		if err != nil {
			return Dist{}, err
		}
		ds = append(ds, d)
	}
	var d Dist
	switch strings.TrimSpace(name) {
	case "uniform":
		if len(ds) != 2 {
			return Dist{}, fmt.Errorf("uniform takes 2 durations, got %d", len(ds))
		}
		d = Between(ds[0], ds[1])
	case "exp":
		if len(ds) != 1 {
			return Dist{}, fmt.Errorf("exp takes 1 duration (the mean), got %d", len(ds))
		}
		d = Exponential(ds[0])
	default:
		return Dist{}, fmt.Errorf("unknown distribution %q (want uniform or exp)", name)
	}
	return d, d.Validate()
}

// Validate reports what is wrong with d, or nil: an unknown kind, a duration outside 0 ..
// MaxDuration, a uniform range with A > B, an exponential with mean 0.
func (d Dist) Validate() error {
	inRange := func(x Duration) bool { return x >= 0 && x <= MaxDuration }
	switch d.Kind {
	case Const:
		if !inRange(d.A) || d.B != 0 {
			return fmt.Errorf("constant %d ns outside 0..%v", d.A, MaxDuration)
		}
	case Uniform:
		if !inRange(d.A) || !inRange(d.B) || d.A > d.B {
			return fmt.Errorf("uniform(%d ns, %d ns) is not a range within 0..%v", d.A, d.B, MaxDuration)
		}
	case Exp:
		if d.A <= 0 || d.A > MaxDuration || d.B != 0 {
			return fmt.Errorf("exp mean %d ns outside 1ns..%v", d.A, MaxDuration)
		}
	case Forever:
		if d.A != 0 || d.B != 0 {
			return fmt.Errorf("forever takes no durations")
		}
	default:
		return fmt.Errorf("unknown distribution kind %d", d.Kind)
	}
	return nil
}

// Min returns the smallest duration d can draw (0 for an exponential).
func (d Dist) Min() Duration {
	if d.Kind == Exp {
		return 0
	}
	return d.A
}

// Sample draws a duration from d using src, with integer arithmetic only, so that the same source
// state gives the same duration on every architecture. A constant or forever distribution does not
// consume randomness; a uniform one consumes one or more words, an exponential exactly one.
// Sample returns MaxDuration+1 for Forever; a d that does not validate gives an unspecified
// duration. The complexity is O(1) (O(64) word operations for an exponential).
func (d Dist) Sample(src rand.Source) Duration {
	switch d.Kind {
	case Uniform:
		return d.A + Duration(uniform(src, uint64(d.B-d.A)+1))
	case Exp:
		x := mulQ32(uint64(d.A), negLnQ32(src.Uint64()|1))
		if x > uint64(MaxDuration) {
			return MaxDuration
		}
		return Duration(x)
	case Forever:
		return MaxDuration + 1
	}
	return d.A
}

// uniform returns a uniform integer in [0, n) for n > 0 by Lemire's multiply-and-reject method
// ("Fast Random Integer Generation in an Interval", 2019).
func uniform(src rand.Source, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// ln2Q64 is ln 2 in 0.64 fixed point, rounded down.
const ln2Q64 = 0xB17217F7D1CF79AB

// negLnQ32 returns -ln(x / 2^64) in 32.32 fixed point for x > 0, computed with the bit-by-bit
// binary logarithm (squaring the mantissa, one bit per step) and a multiplication by ln 2.
func negLnQ32(x uint64) uint64 {
	n := bits.LeadingZeros64(x)
	// y is x's mantissa in [1, 2) as a 2.62 fixed-point number.
	y := (x << n) >> 1
	var frac uint64 // log2(y) in 0.32 fixed point
	for i := 31; i >= 0; i-- {
		hi, lo := bits.Mul64(y, y)
		y = hi<<2 | lo>>62 // y*y in 2.62, in [1, 4)
		if y >= 2<<62 {
			y >>= 1
			frac |= 1 << i
		}
	}
	// log2(x/2^64) = log2(y) + 63 - n - 64, so -log2 = n + 1 - log2(y).
	neg := uint64(n+1)<<32 - frac
	hi, _ := bits.Mul64(neg, ln2Q64)
	return hi
}

// mulQ32 returns a * q / 2^32 for a 32.32 fixed-point q, saturating at the largest uint64.
func mulQ32(a, q uint64) uint64 {
	hi, lo := bits.Mul64(a, q)
	if hi>>32 != 0 {
		return ^uint64(0)
	}
	return hi<<32 | lo>>32
}
