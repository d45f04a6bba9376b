package sim

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
)

func TestPercentile(t *testing.T) {
	sorted := []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}
	cases := []struct {
		p    float64
		want int64
	}{{0, 10}, {1, 10}, {10, 10}, {10.001, 20}, {50, 50}, {99, 100}, {99.9, 100}, {100, 100}}
	for _, tc := range cases {
		if got, ok := Percentile(sorted, tc.p); !ok || got != tc.want {
			t.Errorf("Percentile(1..10 ×10, %v) = %d, %t; want %d, true", tc.p, got, ok, tc.want)
		}
	}
	if _, ok := Percentile(nil, 50); ok {
		t.Error("Percentile(nil, 50) reports a value")
	}
	// p99.9 of 1000 values is the 999th, exactly.
	thousand := make([]int64, 1000)
	for i := range thousand {
		thousand[i] = int64(i + 1)
	}
	if got, _ := Percentile(thousand, 99.9); got != 999 {
		t.Errorf("Percentile(1..1000, 99.9) = %d, want 999", got)
	}
	for _, bad := range []float64{-1, 100.5} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "sim: percentile") {
					t.Errorf("Percentile(%v) did not panic with a sim: message: %v", bad, r)
				}
			}()
			Percentile(sorted, bad)
		}()
	}
}

func TestThreadStatsDerived(t *testing.T) {
	done := ThreadStats{Start: 10, End: 110, CPUTime: 25}
	if c, ok := done.Completion(); !ok || c != 100 {
		t.Errorf("Completion() = %d, %t; want 100, true", c, ok)
	}
	if s := done.Share(); s != 0.25 {
		t.Errorf("Share() = %v, want 0.25", s)
	}
	alive := ThreadStats{Start: 0, End: -1, CPUTime: 30, end: 60}
	if _, ok := alive.Completion(); ok {
		t.Error("Completion() of a live thread reports a value")
	}
	if l := alive.Lifetime(); l != 60 {
		t.Errorf("Lifetime() = %d, want 60", l)
	}
	if s := (&ThreadStats{End: -1}).Share(); s != 0 {
		t.Errorf("Share() of a thread that lived no time = %v, want 0", s)
	}
}

func TestResultErrAndThroughput(t *testing.T) {
	r := &Result{Policy: "p", Makespan: 2e9, Exited: 4, Messages: 10}
	if err := r.Err(); err != nil {
		t.Errorf("Err() = %v for a clean run", err)
	}
	if e, m := r.Throughput(); e != 2 || m != 5 {
		t.Errorf("Throughput() = %v, %v; want 2, 5", e, m)
	}
	for i := range 7 {
		r.Violations = append(r.Violations, Violation{Invariant: Starvation, Time: int64(i), Thread: 3, Wait: 5})
	}
	r.Counts[Starvation] = 7
	msg := r.Err().Error()
	if !strings.HasPrefix(msg, "sim: p: 7 violations; 0.000000000s: starvation: t3 runnable for 5ns") ||
		!strings.HasSuffix(msg, "; …") {
		t.Errorf("Err() = %q", msg)
	}
}

// TestThreadIndex compares Thread with a linear search (the naive model) on Results with
// repeated and missing names, before and after their Threads change, from many goroutines.
func TestThreadIndex(t *testing.T) {
	names := []string{"a", "b", "a", "c.0", "", "c.1", "b"}
	model := func(r *Result, name string) int {
		for i := range r.Threads {
			if r.Threads[i].Name == name {
				return i
			}
		}
		return -1
	}
	check := func(r *Result, when string) {
		t.Helper()
		for _, n := range append(append([]string{}, names...), "missing", "c") {
			got, ok := r.Thread(n)
			want := model(r, n)
			switch {
			case want < 0 && ok:
				t.Errorf("%s: Thread(%q) found %v, want none", when, n, got.ID)
			case want >= 0 && (!ok || got != &r.Threads[want]):
				t.Errorf("%s: Thread(%q) = %v, %v; want thread %d", when, n, got, ok, want)
			}
		}
	}
	for _, indexed := range []bool{true, false} {
		r := &Result{}
		if indexed {
			r.names = &threadIndex{}
		}
		for i, n := range names {
			r.Threads = append(r.Threads, ThreadStats{ID: sched.ID(i), Name: n})
		}
		done := make(chan bool)
		for range 8 {
			go func() { _, ok := r.Thread("c.1"); done <- ok }()
		}
		for range 8 {
			if !<-done {
				t.Fatal("concurrent Thread(c.1) found nothing")
			}
		}
		check(r, "indexed")
		r.Threads = append(r.Threads, ThreadStats{Name: "late"})
		check(r, "after an append")
		r.Threads[1].Name = "renamed" // seen: Threads changed length since the index was built
		check(r, "after a rename")
	}
}
