package host

// This file implements the reader of cyclictest's latency histogram (-h), from which the
// model-vs-host table takes cyclictest's percentiles.

import (
	"math"
	"strconv"
	"strings"
)

// A CyclicHistogram is cyclictest's histogram of one thread's latencies (cyclictest -t1 -h N
// prints one column per thread; this reads the first): Counts[i] is the number of latencies of
// i microseconds, Overflows the number beyond the histogram's N µs, Max the largest latency.
type CyclicHistogram struct {
	Counts    []int64
	Overflows int64
	Max       int64
}

// ParseCyclictestHistogram reads the histogram cyclictest -h N prints (with -q, at the end): the
// lines "# Histogram", then "BUCKET COUNT…" for each microsecond, then "# Histogram Overflows:
// N…" and "# Max Latencies: N…" among the summary lines. Other lines are skipped. It is an error
// if there is no histogram, a bucket is out of order, or a number is not one.
func ParseCyclictestHistogram(out string) (*CyclicHistogram, error) {
	const file = "cyclictest"
	h := &CyclicHistogram{}
	in := false
	seen := false
	for i, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case t == "# Histogram":
			in, seen = true, true
			continue
		case strings.HasPrefix(t, "#"):
			in = false
			key, val, ok := strings.Cut(strings.TrimPrefix(t, "#"), ":")
			if !ok {
				continue
			}
			f := strings.Fields(val)
			if len(f) == 0 {
				continue
			}
			var p *int64
			switch strings.TrimSpace(key) {
			case "Histogram Overflows":
				p = &h.Overflows
			case "Max Latencies":
				p = &h.Max
			default:
				continue
			}
			n, err := parseCount(f[0])
			if err != nil {
				return nil, &ParseError{File: file, Line: i + 1, Col: 1, Msg: strings.TrimSpace(key) + ": " + err.Error()}
			}
			*p = n
		case in && t != "":
			f := strings.Fields(t)
			if len(f) < 2 {
				return nil, &ParseError{File: file, Line: i + 1, Col: 1, Msg: "histogram line without a count"}
			}
			b, err := strconv.Atoi(f[0])
			if err != nil || b != len(h.Counts) {
				return nil, &ParseError{File: file, Line: i + 1, Col: 1, Msg: "bucket " + strconv.Quote(f[0]) + " where " + strconv.Itoa(len(h.Counts)) + " was expected"}
			}
			n, err := parseCount(f[1])
			if err != nil {
				return nil, &ParseError{File: file, Line: i + 1, Col: len(l) - len(strings.TrimLeft(l, " \t")) + len(f[0]) + 2, Msg: err.Error()}
			}
			h.Counts = append(h.Counts, n)
		}
	}
	if !seen {
		return nil, &ParseError{File: file, Line: strings.Count(out, "\n") + 1, Col: 1, Msg: "no histogram (cyclictest -h)"}
	}
	return h, nil
}

// Total returns the number of latencies in h, the overflows included.
func (h *CyclicHistogram) Total() int64 {
	n := h.Overflows
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Percentile returns the p-th percentile (0 to 100, nearest rank) of h's latencies in
// microseconds, and false if h is empty. A rank among the overflows is Max. It panics if p is
// outside 0..100.
func (h *CyclicHistogram) Percentile(p float64) (int64, bool) {
	if !(p >= 0 && p <= 100) {
		panic("host: CyclicHistogram.Percentile: p outside 0..100")
	}
	total := h.Total()
	if total == 0 {
		return 0, false
	}
	// The nearest rank: the smallest latency with at least ⌈p/100 × total⌉ latencies at or
	// below it (the first for p = 0).
	rank := max(1, int64(math.Ceil(p/100*float64(total))))
	var seen int64
	for i, c := range h.Counts {
		seen += c
		if seen >= rank {
			return int64(i), true
		}
	}
	return h.Max, true
}
