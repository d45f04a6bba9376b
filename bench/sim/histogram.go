package sim

// This file implements Histogram: a latency series kept exactly while it is small and in
// log-linear buckets once it is large, mergeable across threads, groups and runs.

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
)

const (
	// DefaultExactSamples is how many samples a Histogram keeps exactly before it holds only
	// bucket counts (32 KiB of samples), when Config.ExactSamples is 0.
	DefaultExactSamples = 4096
	// subBits is the number of bits below the leading one that the buckets keep: 2^subBits
	// buckets per power of two.
	subBits = 7
	subs    = 1 << subBits
	// octaves is the number of rows of buckets: row 0 holds 0..127, row o ≥ 1 holds
	// [2^(o+6), 2^(o+7)).
	octaves = 64 - subBits + 1
)

// StandardPercentiles are the percentiles reports show when not told otherwise: p50, p75, p90,
// p95, p99, p99.5, p99.9, p99.99 and the maximum (100).
var StandardPercentiles = []float64{50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100}

// A Histogram is a series of latencies in nanoseconds (see [Series]): wake-up latencies, run-queue
// waits or request latencies of a thread, or of many threads and runs merged.
//
// While it holds at most its budget of samples (Config.ExactSamples for the machine's; the larger
// budget of the two for a merge; DefaultExactSamples for a zero Histogram) it keeps every one and
// its percentiles are exact. Beyond, it counts samples in log-linear buckets: values below 256
// one per bucket (exact), and each power of two [2^p, 2^(p+1)) above in 128 buckets of width
// 2^(p-7). A percentile is then the largest value of its bucket, capped at the exact maximum, so
// it is never below the exact percentile and above it by at most 1/128 of it (0.79 %): the bound
// HdrHistogram gives with 2 significant digits, whose bucket layout (lowest discernible value 1)
// this one shares, which TestHistogramMatchesHdrHistogram checks against
// github.com/HdrHistogram/hdrhistogram-go. Buckets take memory only for the powers of two that
// hold samples, 1 KiB each.
//
// The zero Histogram is empty and ready to use. A Histogram is not safe for concurrent use.
// Invariant: exact is sorted except in a histogram a running machine is filling (see add);
// exact holds every sample when buckets is nil, and is nil otherwise.
type Histogram struct {
	exact   []int64
	n       int64
	min     int64
	max     int64
	limit   int32 // the exact budget; 0 means DefaultExactSamples
	buckets *[octaves]*[subs]uint64
}

func (h *Histogram) budget() int64 {
	if h.limit == 0 {
		return DefaultExactSamples
	}
	return int64(h.limit)
}

// add records v ≥ 0 in a histogram a running machine fills (a liveSeries that outgrew the
// machine's sample arena): while the samples are exact it appends v to exact, unsorted, within
// the budget (n, min and max are not kept up to date then: settle derives them, and snapshot
// sorts); at the budget it moves them into buckets, which it keeps up to date after.
//
// A histogram filled by add is a live one: only settle, snapshot and reset may read it.
func (h *Histogram) add(v int64) {
	if h.buckets == nil {
		if n := len(h.exact); int64(n) < h.budget() {
			h.exact = append(grow(h.exact, h.budget()), v)
			return
		}
		h.settle()
		h.spill()
	}
	h.n++
	if v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	o, s := bucket(v)
	if r := h.buckets[o]; r != nil {
		r[s&(subs-1)]++
		return
	}
	h.count(v, 1)
}

// grow returns s with room for one more element, doubling its capacity but never beyond budget
// (len(s) < budget), so that add's test of the capacity is also the test of the budget.
func grow(s []int64, budget int64) []int64 {
	n := len(s)
	if n < cap(s) {
		return s
	}
	g := make([]int64, n, int(min(max(2*int64(n), 4), budget)))
	copy(g, s)
	return g
}

// settle derives n, min and max from the exact samples of a histogram filled by add (see add);
// in one whose samples went into buckets, add keeps them.
func (h *Histogram) settle() {
	if h.buckets != nil {
		return
	}
	h.n = int64(len(h.exact))
	if h.n == 0 {
		h.min, h.max = 0, 0
		return
	}
	lo, hi := int64(math.MaxInt64), int64(0)
	for _, x := range h.exact {
		lo = min(lo, x)
		hi = max(hi, x)
	}
	h.min, h.max = lo, hi
}

// spill moves the exact samples into buckets.
func (h *Histogram) spill() {
	h.buckets = new([octaves]*[subs]uint64)
	for _, x := range h.exact {
		h.count(x, 1)
	}
	h.exact = nil
}

// Add records the sample v, which must not be negative. The complexity is O(budget) while the
// samples are exact (they stay sorted), O(1) after.
func (h *Histogram) Add(v int64) {
	if v < 0 {
		panic(fmt.Sprintf("sim: Histogram.Add(%d): negative latency", v))
	}
	if h.n == 0 || v < h.min {
		h.min = v
	}
	h.max = max(h.max, v)
	h.n++
	if h.buckets == nil && h.n <= h.budget() {
		i, _ := slices.BinarySearch(h.exact, v)
		h.exact = slices.Insert(h.exact, i, v)
		return
	}
	if h.buckets == nil {
		h.spill()
	}
	h.count(v, 1)
}

// bucket returns the row and column of v ≥ 0.
func bucket(v int64) (int, int) {
	if v < subs {
		return 0, int(v)
	}
	p := bits.Len64(uint64(v)) - 1 // v is in [2^p, 2^(p+1)), p ≥ subBits
	return p - subBits + 1, int(v>>(p-subBits)) & (subs - 1)
}

// lower and upper return the smallest and largest values of bucket (o, s).
func lower(o, s int) int64 {
	if o == 0 {
		return int64(s)
	}
	p := o + subBits - 1
	return int64(1)<<p + int64(s)<<(p-subBits)
}

func upper(o, s int) int64 {
	if o == 0 {
		return int64(s)
	}
	p := o + subBits - 1
	return lower(o, s) + int64(1)<<(p-subBits) - 1
}

func (h *Histogram) count(v int64, n uint64) {
	o, s := bucket(v)
	if h.buckets[o] == nil {
		h.buckets[o] = new([subs]uint64)
	}
	h.buckets[o][s] += n
}

// snapshot returns a copy of h that owns its memory, with exact values sorted and n, min and
// max settled (see add).
func (h *Histogram) snapshot() Histogram {
	c := *h
	c.exact = nil
	if len(h.exact) > 0 {
		c.exact = slices.Clone(h.exact)
		slices.Sort(c.exact)
	}
	c.settle()
	if h.buckets != nil {
		c.buckets = new([octaves]*[subs]uint64)
		for o, b := range h.buckets {
			if b != nil {
				bb := *b
				c.buckets[o] = &bb
			}
		}
	}
	return c
}

// reset empties h, keeping its budget and its memory for exact samples.
func (h *Histogram) reset() {
	*h = Histogram{exact: h.exact[:0], limit: h.limit}
}

// Clone returns a copy of h that shares no memory with it.
func (h *Histogram) Clone() *Histogram {
	c := h.snapshot()
	return &c
}

// Count returns the number of samples.
func (h *Histogram) Count() int64 { return h.n }

// Min and Max return the smallest and largest sample, exactly, or 0 for an empty histogram.
func (h *Histogram) Min() int64 { return h.min }

// Max returns the largest sample, exactly, or 0 for an empty histogram.
func (h *Histogram) Max() int64 { return h.max }

// Exact returns every sample in ascending order and true, or nil and false once the histogram
// holds more samples than its budget. The slice belongs to h, and is read-only: the Histograms
// of a machine's Results share their samples with the machine and with one another (see
// [Machine.Result]).
func (h *Histogram) Exact() ([]int64, bool) {
	if h.buckets != nil {
		return nil, false
	}
	return h.exact, true
}

// Percentile returns the p-th percentile of the samples (p from 0 to 100; 100 is the maximum) by
// the nearest-rank method: the smallest sample that at least p percent of them do not exceed,
// exact while the samples are, else within the bound of [Histogram]. It reports false if h is
// empty. p is rounded to a thousandth of a percent, so Percentile(99.99) is exact. The complexity
// is O(1) while exact, O(buckets) after. Percentile panics if p is outside 0..100.
func (h *Histogram) Percentile(p float64) (int64, bool) {
	milli := percentMilli(p)
	if h.n == 0 {
		return 0, false
	}
	return h.percentile(milli), true
}

// Percentiles returns the percentiles ps of h, or nil if h is empty.
func (h *Histogram) Percentiles(ps ...float64) []int64 {
	if h.n == 0 {
		return nil
	}
	out := make([]int64, len(ps))
	for i, p := range ps {
		out[i] = h.percentile(percentMilli(p))
	}
	return out
}

// percentile returns the nearest-rank percentile for p in thousandths of a percent.
// Preconditions: h is sorted and not empty.
func (h *Histogram) percentile(milli int64) int64 {
	// rank = ceil(n*milli/100000) without overflow for any n.
	hi, lo := bits.Mul64(uint64(h.n), uint64(milli))
	q, r := bits.Div64(hi, lo, 100_000)
	rank := int64(q)
	if r > 0 {
		rank++
	}
	rank = max(rank, 1)
	if h.buckets == nil {
		return h.exact[rank-1]
	}
	var seen uint64
	for o, b := range h.buckets {
		if b == nil {
			continue
		}
		for s, c := range b {
			seen += c
			if seen >= uint64(rank) {
				return min(upper(o, s), h.max)
			}
		}
	}
	return h.max
}

// Merge adds the samples of o to h: the series of two threads, a group, or two runs pooled.
// The result keeps exact samples if both were exact and they fit the larger of the two budgets.
// Merge panics if o is nil.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil {
		panic("sim: Histogram.Merge of a nil histogram")
	}
	if o.n == 0 {
		return
	}
	h.limit = max(h.limit, o.limit)
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	h.max = max(h.max, o.max)
	if h.buckets == nil && o.buckets == nil && h.n+o.n <= h.budget() {
		merged := make([]int64, 0, h.n+o.n)
		a, b := h.exact, o.exact
		for len(a) > 0 && len(b) > 0 {
			if a[0] <= b[0] {
				merged, a = append(merged, a[0]), a[1:]
			} else {
				merged, b = append(merged, b[0]), b[1:]
			}
		}
		h.exact = append(append(merged, a...), b...)
		h.n += o.n
		return
	}
	if h.buckets == nil {
		h.spill()
	}
	h.n += o.n
	if o.buckets == nil {
		for _, v := range o.exact {
			h.count(v, 1)
		}
		return
	}
	for r, b := range o.buckets {
		if b == nil {
			continue
		}
		for s, c := range b {
			if c > 0 {
				h.count(lower(r, s), c)
			}
		}
	}
}

// percentMilli returns p in thousandths of a percent.
func percentMilli(p float64) int64 {
	if !(p >= 0 && p <= 100) {
		panic(fmt.Sprintf("sim: percentile %v outside 0..100", p))
	}
	return int64(p*1000 + 0.5)
}

// histogramJSON is the JSON form of a Histogram: see [Histogram.MarshalJSON].
type histogramJSON struct {
	Count   int64      `json:"count"`
	Min     int64      `json:"min_ns"`
	Max     int64      `json:"max_ns"`
	Budget  int32      `json:"budget,omitempty"`
	Exact   []int64    `json:"exact_ns,omitempty"`
	Buckets [][2]int64 `json:"buckets,omitempty"`
}

// MarshalJSON writes h as {"count", "min_ns", "max_ns", "budget", "exact_ns"} while it is exact
// (every sample in ascending order, in nanoseconds) or {"count", "min_ns", "max_ns", "budget",
// "buckets"} after, where buckets lists the non-empty buckets in ascending order as [lowest value
// in ns, count] pairs. budget is omitted when it is DefaultExactSamples.
func (h Histogram) MarshalJSON() ([]byte, error) {
	j := histogramJSON{Count: h.n, Min: h.min, Max: h.max, Exact: h.exact}
	if h.limit != 0 && h.limit != DefaultExactSamples {
		j.Budget = h.limit
	}
	if h.buckets != nil {
		j.Exact = nil
		for o, b := range h.buckets {
			if b == nil {
				continue
			}
			for s, c := range b {
				if c > 0 {
					j.Buckets = append(j.Buckets, [2]int64{lower(o, s), int64(c)})
				}
			}
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the form of [Histogram.MarshalJSON]. It returns an error if the counts do
// not add up, a value is negative, the exact samples are not sorted or lie outside min..max, or a
// bucket's value is not a bucket's lowest value.
func (h *Histogram) UnmarshalJSON(b []byte) error {
	var j histogramJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	switch {
	case j.Count < 0 || j.Min < 0 || j.Max < j.Min || j.Budget < 0 || j.Budget > 1<<20:
		return fmt.Errorf("sim: histogram with count %d, min %d, max %d, budget %d", j.Count, j.Min, j.Max, j.Budget)
	case j.Exact != nil && j.Buckets != nil:
		return fmt.Errorf("sim: histogram with both exact samples and buckets")
	case j.Count == 0 && (j.Min != 0 || j.Max != 0 || j.Exact != nil || j.Buckets != nil):
		return fmt.Errorf("sim: empty histogram with samples")
	}
	g := Histogram{n: j.Count, min: j.Min, max: j.Max, limit: j.Budget}
	if j.Buckets == nil {
		if int64(len(j.Exact)) != j.Count || !slices.IsSorted(j.Exact) ||
			len(j.Exact) > 0 && (j.Exact[0] != j.Min || j.Exact[len(j.Exact)-1] != j.Max) {
			return fmt.Errorf("sim: histogram's %d exact samples are not %d sorted ones from %d to %d",
				len(j.Exact), j.Count, j.Min, j.Max)
		}
		g.exact = j.Exact
		*h = g
		return nil
	}
	g.buckets = new([octaves]*[subs]uint64)
	var total int64
	prev := int64(-1)
	for _, bc := range j.Buckets {
		v, c := bc[0], bc[1]
		if v <= prev || v < 0 || c <= 0 {
			return fmt.Errorf("sim: histogram bucket [%d, %d] out of order or empty", v, c)
		}
		if o, s := bucket(v); lower(o, s) != v {
			return fmt.Errorf("sim: histogram bucket value %d is not the lowest of its bucket", v)
		}
		if total += c; total > j.Count || total < 0 {
			return fmt.Errorf("sim: histogram buckets hold more than count %d", j.Count)
		}
		g.count(v, uint64(c))
		prev = v
	}
	if total != j.Count {
		return fmt.Errorf("sim: histogram buckets hold %d samples, count %d", total, j.Count)
	}
	*h = g
	return nil
}
