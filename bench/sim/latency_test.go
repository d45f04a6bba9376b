package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
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

// TestLatencySetAgainstSort compares the percentiles with those of the sorted samples: equal
// while exact, within 1/128 above once the histogram takes over.
func TestLatencySetAgainstSort(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, n := range []int{1, 10, exactLatencies, exactLatencies + 1, 50000} {
		var l latencySet
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
			if n <= exactLatencies && got != want {
				t.Errorf("n=%d p=%d/1000: %d, want exactly %d", n, milli, got, want)
			}
			if got < want || got-want > want>>subBits {
				t.Errorf("n=%d p=%d/1000: %d, want %d within 1/128 above", n, milli, got, want)
			}
		}
		if s.percentile(100000) != all[n-1] {
			t.Errorf("n=%d: maximum %d, want %d", n, s.percentile(100000), all[n-1])
		}
		if (s.hist == nil) != (n <= exactLatencies) || (s.exact == nil) != (n > exactLatencies) {
			t.Errorf("n=%d: exact %v, histogram %v", n, s.exact != nil, s.hist != nil)
		}
	}
}
