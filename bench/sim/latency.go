package sim

// This file implements latencySet: the wake-to-run latencies of a thread, exact while they are
// few and in a log-linear histogram once they are many, so that memory stays bounded however
// long a run is.

import (
	"math/bits"
	"slices"
)

const (
	// exactLatencies is how many latencies a thread keeps exactly before it switches to the
	// histogram (32 KiB of samples).
	exactLatencies = 4096
	// subBits is the number of bits below the leading one that the histogram keeps: 2^subBits
	// buckets per power of two, a relative resolution of 1/128.
	subBits = 7
	subs    = 1 << subBits
)

// A latencySet records latencies in nanoseconds. Percentiles are exact while it holds at most
// exactLatencies values; after that they are the upper bound of a histogram bucket (values below
// 128 ns exactly, above that within 1/128 of the value, as HdrHistogram's
// highestEquivalentValue), capped at the exact maximum.
type latencySet struct {
	exact []int64 // every value, while n <= exactLatencies; nil once hist is in use
	n     int64
	max   int64
	// hist[o] counts the values of octave o: o = 0 holds 0..127 one per bucket; o ≥ 1 holds
	// [2^(o+6), 2^(o+7)) in 128 buckets.
	hist *[64 - subBits + 1]*[subs]uint64
}

func (l *latencySet) add(v int64) {
	l.n++
	l.max = max(l.max, v)
	if l.hist == nil {
		if l.n <= exactLatencies {
			l.exact = append(l.exact, v)
			return
		}
		l.hist = new([64 - subBits + 1]*[subs]uint64)
		for _, x := range l.exact {
			l.count(x)
		}
		l.exact = nil
	}
	l.count(v)
}

// bucket returns the octave and sub-bucket of v ≥ 0.
func bucket(v int64) (int, int) {
	if v < subs {
		return 0, int(v)
	}
	p := bits.Len64(uint64(v)) - 1 // v is in [2^p, 2^(p+1)), p ≥ subBits
	return p - subBits + 1, int(v>>(p-subBits)) & (subs - 1)
}

// upper returns the largest value of bucket (o, s).
func upper(o, s int) int64 {
	if o == 0 {
		return int64(s)
	}
	p := o + subBits - 1
	width := int64(1) << (p - subBits)
	return int64(1)<<p + int64(s+1)*width - 1
}

func (l *latencySet) count(v int64) {
	o, s := bucket(v)
	if l.hist[o] == nil {
		l.hist[o] = new([subs]uint64)
	}
	l.hist[o][s]++
}

// snapshot returns a copy of l that owns its memory, with exact values sorted.
func (l *latencySet) snapshot() latencySet {
	c := latencySet{n: l.n, max: l.max, exact: slices.Clone(l.exact)}
	slices.Sort(c.exact)
	if l.hist != nil {
		c.hist = new([64 - subBits + 1]*[subs]uint64)
		for o, h := range l.hist {
			if h != nil {
				hh := *h
				c.hist[o] = &hh
			}
		}
	}
	return c
}

// percentile returns the nearest-rank p-th percentile for p in thousandths of a percent.
// Preconditions: l is a snapshot (exact values sorted) and not empty.
func (l *latencySet) percentile(milli int64) int64 {
	rank := max((l.n*milli+100_000-1)/100_000, 1)
	if l.hist == nil {
		return l.exact[rank-1]
	}
	var seen int64
	for o, h := range l.hist {
		if h == nil {
			continue
		}
		for s, c := range h {
			seen += int64(c)
			if seen >= rank {
				return min(upper(o, s), l.max)
			}
		}
	}
	return l.max
}
