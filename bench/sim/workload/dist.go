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

// MaxSlack is the largest timer slack a thread may ask for, 1 s: prctl(PR_SET_TIMERSLACK) takes
// more, but a sleep's timer a second late is a mistake in a workload, not a slack.
const MaxSlack Duration = Duration(time.Second)

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
			return fmt.Errorf("constant %v outside 0..%v", d.A, MaxDuration)
		}
	case Uniform:
		if !inRange(d.A) || !inRange(d.B) {
			return fmt.Errorf("uniform(%v,%v) outside 0..%v", d.A, d.B, MaxDuration)
		}
		if d.A > d.B {
			return fmt.Errorf("uniform(%v,%v) has its bounds the wrong way round", d.A, d.B)
		}
	case Exp:
		if d.A <= 0 || d.A > MaxDuration || d.B != 0 {
			return fmt.Errorf("exp(%v): the mean must be within 1ns..%v", d.A, MaxDuration)
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

// canBePositive reports whether d can draw a positive duration: every distribution but the
// constant 0 and uniform(0,0).
func (d Dist) canBePositive() bool {
	switch d.Kind {
	case Const:
		return d.A > 0
	case Uniform:
		return d.B > 0
	}
	return true
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

// lnTable holds, for the 256 intervals [1+i/256, 1+(i+1)/256) of a mantissa, the reciprocal of
// the interval's midpoint c (1/c in 1.63 fixed point) and ln c (in 2.62 fixed point, computed
// exactly by lnExactQ62). It is built once, with integer arithmetic only.
var lnTable = func() (t [256]struct{ inv, ln uint64 }) {
	for i := range t {
		c := uint64(1)<<62 + uint64(2*i+1)<<53 // 1 + (i+0.5)/256 in 2.62
		hi, lo := uint64(1)<<61, uint64(0)     // 2^125, so that 2^125/c is 1/c in 1.63
		t[i].inv, _ = bits.Div64(hi, lo, c)
		t[i].ln = lnExactQ62(c)
	}
	return t
}()

// lnExactQ62 returns ln(y) in 2.62 fixed point for y in [1, 2) given in 2.62 fixed point, by the
// bit-by-bit binary logarithm: square y, and each time it reaches 2, halve it and set the next
// bit of log2(y); then multiply by ln 2. It is exact to 2^-60 and slow (62 multiplications).
func lnExactQ62(y uint64) uint64 {
	var frac uint64 // log2(y) in 0.64 fixed point
	for i := 63; i >= 2; i-- {
		hi, lo := bits.Mul64(y, y)
		y = hi<<2 | lo>>62
		if y >= 2<<62 {
			y >>= 1
			frac |= 1 << i
		}
	}
	hi, _ := bits.Mul64(frac, ln2Q64)
	return hi >> 2
}

// mulQ62 returns a*b in 2.62 fixed point for signed a and b.
func mulQ62(a, b int64) int64 {
	neg := (a < 0) != (b < 0)
	ua, ub := uint64(a), uint64(b)
	if a < 0 {
		ua = -ua
	}
	if b < 0 {
		ub = -ub
	}
	hi, lo := bits.Mul64(ua, ub)
	r := int64(hi<<2 | lo>>62)
	if neg {
		return -r
	}
	return r
}

// negLnQ32 returns -ln(x / 2^64) in 32.32 fixed point for x > 0. With y the mantissa of x in
// [1, 2) and c the midpoint of y's 1/256th interval, ln y = ln c + ln(y/c), where ln c comes from
// lnTable and ln(y/c), with |y/c - 1| < 2^-9, from four terms of its series. The error is below
// 2^-36, and the arithmetic is integer, so every architecture gives the same bits.
func negLnQ32(x uint64) uint64 {
	n := bits.LeadingZeros64(x)
	y := (x << n) >> 1 // the mantissa in 2.62 fixed point, in [2^62, 2^63)
	e := &lnTable[(y>>54)&0xFF]
	hi, lo := bits.Mul64(y, e.inv)
	d := int64(hi<<1|lo>>63) - 1<<62 // y/c - 1 in 2.62
	d2 := mulQ62(d, d)
	d3 := mulQ62(d2, d)
	d4 := mulQ62(d3, d)
	lnY := int64(e.ln) + d - d2/2 + d3/3 - d4/4 // ln y in 2.62
	// -ln(x/2^64) = (n+1) ln 2 - ln y, in 8.56 fixed point (n+1 ≤ 64), then in 32.32.
	q56 := uint64(n+1)*(ln2Q64>>8) - uint64(lnY>>6)
	return q56 >> 24
}

// mulQ32 returns a * q / 2^32 for a 32.32 fixed-point q, saturating at the largest uint64.
func mulQ32(a, q uint64) uint64 {
	hi, lo := bits.Mul64(a, q)
	if hi>>32 != 0 {
		return ^uint64(0)
	}
	return hi<<32 | lo>>32
}
