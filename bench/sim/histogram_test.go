package sim

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
)

func TestBucketBounds(t *testing.T) {
	vals := []int64{0, 1, 127, 128, 129, 255, 256, 1000, 1 << 20, 3_000_000, 1<<62 - 1, 1 << 62}
	r := rand.New(rand.NewPCG(1, 1))
	for range 10000 {
		vals = append(vals, r.Int64N(1<<40))
	}
	for _, v := range vals {
		o, s := bucket(v)
		up := upper(o, s)
		if up < v || up-v > v>>subBits {
			t.Errorf("bucket(%d) = %d, %d with upper bound %d: not within 1/128 above", v, o, s, up)
		}
		if v < subs && up != v {
			t.Errorf("upper(bucket(%d)) = %d, want the value itself below 128", v, up)
		}
		if o2, s2 := bucket(up); o2 != o || s2 != s {
			t.Errorf("upper bound %d of bucket(%d) lies in another bucket", up, v)
		}
	}
}

// TestHistogramAgainstSort compares the percentiles with those of the sorted samples: equal
// while exact, within 1/128 above once the histogram takes over.
func TestHistogramAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{1, 10, DefaultExactSamples, DefaultExactSamples + 1, 50000} {
		var l Histogram
		var all []int64
		for range n {
			v := r.Int64N(1 << uint(r.IntN(30)))
			l.add(v)
			all = append(all, v)
		}
		slices.Sort(all)
		s := l.snapshot()
		for _, milli := range []int64{0, 1, 50000, 90000, 99000, 99900, 100000} {
			rank := max((int64(n)*milli+99999)/100000, 1)
			want := all[rank-1]
			got := s.percentile(milli)
			if n <= DefaultExactSamples && got != want {
				t.Errorf("n=%d p=%d/1000: %d, want exactly %d", n, milli, got, want)
			}
			if got < want || got-want > want>>subBits {
				t.Errorf("n=%d p=%d/1000: %d, want %d within 1/128 above", n, milli, got, want)
			}
		}
		if s.percentile(100000) != all[n-1] {
			t.Errorf("n=%d: maximum %d, want %d", n, s.percentile(100000), all[n-1])
		}
		if (s.buckets == nil) != (n <= DefaultExactSamples) || (s.exact == nil) != (n > DefaultExactSamples) {
			t.Errorf("n=%d: exact %v, histogram %v", n, s.exact != nil, s.buckets != nil)
		}
	}
}

// TestHistogramMatchesHdrHistogram checks the bucket layout against HdrHistogram's with the same
// precision (lowest discernible value 1, 2 significant digits): two values share a bucket here
// exactly when they are equivalent there, and a bucket's largest value is HdrHistogram's
// highest equivalent value.
func TestHistogramMatchesHdrHistogram(t *testing.T) {
	hdr := hdrhistogram.New(1, 1<<50, 2)
	r := rand.New(rand.NewPCG(3, 3))
	for range 20000 {
		v := r.Int64N(1 << uint(1+r.IntN(48)))
		o, s := bucket(v)
		lo, hi := lower(o, s), upper(o, s)
		if !hdr.ValuesAreEquivalent(v, lo) || !hdr.ValuesAreEquivalent(v, hi) {
			t.Fatalf("bucket of %d is [%d, %d]; HdrHistogram does not find them equivalent", v, lo, hi)
		}
		if lo > 0 && hdr.ValuesAreEquivalent(lo-1, v) || hdr.ValuesAreEquivalent(hi+1, v) {
			t.Fatalf("bucket of %d is [%d, %d]; HdrHistogram's is wider", v, lo, hi)
		}
	}
}

// TestHistogramPercentilesWithinBound is the property test of the error bound: on random data of
// random sizes and spreads, every percentile is the exact one while the samples fit the budget,
// and at most 1/128 above it after.
func TestHistogramPercentilesWithinBound(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	ps := []float64{0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100}
	for trial := range 200 {
		n := 1 + r.IntN(3*DefaultExactSamples)
		spread := uint(1 + r.IntN(45))
		var h Histogram
		all := make([]int64, n)
		for i := range all {
			all[i] = r.Int64N(1 << spread)
			h.Add(all[i])
		}
		slices.Sort(all)
		for _, p := range ps {
			want, _ := Percentile(all, p)
			got, ok := h.Percentile(p)
			if !ok || got < want || got-want > want/128 || n <= DefaultExactSamples && got != want {
				t.Fatalf("trial %d, n=%d: p%v = %d, exact %d", trial, n, p, got, want)
			}
		}
		if h.Min() != all[0] || h.Max() != all[n-1] || h.Count() != int64(n) {
			t.Fatalf("trial %d: min %d max %d count %d", trial, h.Min(), h.Max(), h.Count())
		}
	}
}

// TestHistogramMerge checks that merging is the same as adding every sample to one histogram,
// exact or bucketed, and that JSON round-trips both forms.
func TestHistogramMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, sizes := range [][2]int{{0, 0}, {0, 5}, {5, 0}, {100, 200}, {3000, 2000}, {10000, 3}, {3, 10000}, {20000, 20000}} {
		var a, b, all Histogram
		for range sizes[0] {
			v := r.Int64N(1 << 30)
			a.Add(v)
			all.Add(v)
		}
		for range sizes[1] {
			v := r.Int64N(1 << 20)
			b.Add(v)
			all.Add(v)
		}
		a.Merge(&b)
		if a.Count() != all.Count() || a.Min() != all.Min() || a.Max() != all.Max() {
			t.Fatalf("%v: merged count/min/max %d %d %d, want %d %d %d", sizes, a.Count(), a.Min(), a.Max(), all.Count(), all.Min(), all.Max())
		}
		_, ea := a.Exact()
		_, ew := all.Exact()
		if ea != ew {
			t.Fatalf("%v: merged exact %v, one histogram exact %v", sizes, ea, ew)
		}
		for _, p := range []float64{0, 50, 99, 99.9, 100} {
			x, _ := a.Percentile(p)
			y, _ := all.Percentile(p)
			if x != y {
				t.Fatalf("%v: p%v merged %d, one histogram %d", sizes, p, x, y)
			}
		}
		data, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		var back Histogram
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("%v: %v in %s", sizes, err, data)
		}
		if !reflect.DeepEqual(back.Percentiles(0, 50, 99, 100), a.Percentiles(0, 50, 99, 100)) || back.Count() != a.Count() {
			t.Fatalf("%v: JSON round trip changed the histogram", sizes)
		}
	}
}

func TestHistogramJSONErrors(t *testing.T) {
	for _, in := range []string{
		`{"count":-1}`,
		`{"count":2,"min_ns":1,"max_ns":2,"exact_ns":[2,1]}`,
		`{"count":2,"min_ns":1,"max_ns":2,"exact_ns":[1]}`,
		`{"count":3,"min_ns":1,"max_ns":300,"buckets":[[1,1],[301,2]]}`,
		`{"count":3,"min_ns":1,"max_ns":300,"buckets":[[1,1],[298,1]]}`,
		`{"count":1,"min_ns":1,"max_ns":1,"exact_ns":[1],"buckets":[[1,1]]}`,
		`{"count":0,"min_ns":5}`,
	} {
		var h Histogram
		if err := json.Unmarshal([]byte(in), &h); err == nil {
			t.Errorf("Unmarshal(%s) = nil error", in)
		}
	}
}

// TestLiveHistogramMatchesAdd is the differential test of a histogram a running machine fills
// once a series left the sample arena (see add: appending unsorted within its budget, then
// counting in buckets; reset between some runs, as a warm-up does): once snapshot, it equals
// one filled by the public Add, the model, for budgets and sizes on both sides of the spill.
// While filling, exact's capacity never exceeds the budget.
func TestLiveHistogramMatchesAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for trial := range 300 {
		limit := int32(1 + r.IntN(300))
		if trial%10 == 0 {
			limit = 0 // DefaultExactSamples
		}
		live := Histogram{limit: limit}
		for round := range 1 + r.IntN(3) {
			if round > 0 {
				live.reset()
			}
			model := Histogram{limit: limit}
			n := r.IntN(3 * int(live.budget()))
			spread := uint(1 + r.IntN(40))
			for range n {
				v := r.Int64N(1 << spread)
				live.add(v)
				model.Add(v)
				if live.buckets == nil && int64(cap(live.exact)) > live.budget() {
					t.Fatalf("trial %d: capacity %d above the budget %d", trial, cap(live.exact), live.budget())
				}
			}
			checkSameHistogram(t, fmt.Sprintf("trial %d round %d, n=%d", trial, round, n), live.snapshot(), model)
		}
	}
}

// checkSameHistogram fails unless got and want hold the same samples the same way.
func checkSameHistogram(t *testing.T, what string, got, want Histogram) {
	t.Helper()
	if !reflect.DeepEqual(got.exact, want.exact) && (len(got.exact) > 0 || len(want.exact) > 0) {
		t.Fatalf("%s budget %d: exact samples differ", what, want.budget())
	}
	if got.n != want.n || got.min != want.min || got.max != want.max || got.limit != want.limit ||
		(got.buckets == nil) != (want.buckets == nil) || got.buckets != nil && !reflect.DeepEqual(*got.buckets, *want.buckets) {
		t.Fatalf("%s budget %d: snapshot %d/%d/%d, model %d/%d/%d", what, want.budget(), got.n, got.min, got.max,
			want.n, want.min, want.max)
	}
}

// TestLiveSeriesMatchAdd is the differential test of the machine's hot path, record: several
// series filled in random interleavings (their chunks interleave in the arena), some reset on
// the way as a warm-up resets them (their chunks go to the free list and are taken again), with
// samples now and then beyond 32 bits, each equals once snapshot a histogram filled by the
// public Add. Each round's snapshot merges into what the last one sorted (sortedSeries, as
// Results of a running machine do); it must equal a snapshot made from scratch, and the last
// round's snapshots must be unchanged by it (they share their samples). The arena's chunks are accounted for after every round: the chunks in use by the
// series and those on the free list are every chunk handed out.
func TestLiveSeriesMatchAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 7))
	for trial := range 200 {
		budget := uint32(1 + r.IntN(300))
		if trial%10 == 0 {
			budget = DefaultExactSamples
		}
		m := &Machine{budget: budget}
		series := make([]liveSeries, 1+r.IntN(6))
		sorted := make([]sortedSeries, len(series))
		var last, lastCopy []Histogram
		models := make([]Histogram, len(series))
		for i := range models {
			models[i] = Histogram{limit: int32(budget)}
		}
		for round := range 1 + r.IntN(4) {
			spread := uint(1 + r.IntN(40))
			for range r.IntN(3 * int(budget) * len(series)) {
				i := r.IntN(len(series))
				v := r.Int64N(1 << spread)
				if r.IntN(500) == 0 {
					v = r.Int64N(1 << 40) // now and then one that may not fit 32 bits
				}
				m.record(&series[i], v)
				models[i].Add(v)
				if r.IntN(2000) == 0 {
					m.resetSeries(&series[i])
					sorted[i] = sortedSeries{}
					models[i] = Histogram{limit: int32(budget)}
				}
			}
			for i := range last {
				checkSameHistogram(t, fmt.Sprintf("trial %d round %d series %d, last round's", trial, round, i),
					last[i], lastCopy[i])
			}
			last, lastCopy = last[:0], lastCopy[:0]
			for i := range series {
				what := fmt.Sprintf("trial %d round %d series %d", trial, round, i)
				h := m.snapshotSeries(&series[i], &sorted[i])
				checkSameHistogram(t, what, h, models[i])
				checkSameHistogram(t, what+" from scratch", m.snapshotSeries(&series[i], &sortedSeries{}), models[i])
				last, lastCopy = append(last, h), append(lastCopy, *h.Clone())
			}
			inUse := 0
			for i := range series {
				if n := series[i].n; n > 1 {
					inUse += int(n-1+chunkLen-1) / chunkLen
				}
			}
			free := 0
			for c := m.arena.free; c != noChunk; c = m.arena.prev[c] {
				free++
			}
			if handed := max(int(m.arena.used)-1, 0); inUse+free != handed {
				t.Fatalf("trial %d round %d: %d chunks in use and %d free, %d handed out", trial, round, inUse, free, handed)
			}
		}
	}
}
