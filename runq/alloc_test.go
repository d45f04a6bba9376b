package runq_test

import (
	"testing"

	"github.com/schedkit/schedkit/runq"
)

// TestZeroAllocs enforces the package's zero-allocation claim for the hot operations, which
// benchmarks alone cannot (a benchmark never fails).
func TestZeroAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates; allocation counts are checked without -race")
	}
	q, ts := newRunq(256, initialPrio)
	k := 0
	cases := []struct {
		name string
		f    func()
	}{
		{"Choose+Remove+Add", func() {
			x, _ := q.Choose()
			q.Remove(&x.Link)
			q.Add(runq.Index(x.pri), &x.Link)
		}},
		{"Remove+AddHead", func() {
			x := &ts[k%len(ts)]
			k++
			q.Remove(&x.Link)
			q.AddHead(runq.Index(x.pri), &x.Link)
		}},
		{"Find", func() {
			q.Find(runq.FullRange(), func(i runq.Index, _ *runq.Queue[btask]) bool { return i > 200 })
		}},
		{"FindCircular", func() {
			q.FindCircular(runq.Range{Lo: 56, Hi: 223}, 140, func(runq.Index, *runq.Queue[btask]) bool { return false })
		}},
		{"FirstIn", func() { q.FirstIn(runq.Range{Lo: 100, Hi: 200}) }},
		{"Steal", func() { q.Steal(runq.FullRange(), func(x *btask) bool { return x.pri > 250 }) }},
		{"Status", func() {
			s := q.Status()
			s.FirstIn(runq.Range{Lo: 3, Hi: 130})
			s.After(77)
			s.Count()
		}},
	}
	for _, tc := range cases {
		if got := testing.AllocsPerRun(1000, tc.f); got != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, got)
		}
	}
}
