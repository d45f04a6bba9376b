package sched_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/schedkit/schedkit/sched"
)

// TestSlab checks that a Slab's records are zeroed, distinct and stay where they are, each
// keeping what was written to it while thousands more are made.
func TestSlab(t *testing.T) {
	type rec struct {
		id   int
		next *rec
	}
	var s sched.Slab[rec]
	var recs []*rec
	for i := range 5000 {
		r := s.New()
		if *r != (rec{}) {
			t.Fatalf("record %d is not zeroed: %+v", i, *r)
		}
		r.id = i + 1
		if i > 0 {
			r.next = recs[i-1]
		}
		recs = append(recs, r)
	}
	seen := map[*rec]bool{}
	for i, r := range recs {
		if seen[r] {
			t.Fatalf("record %d handed out twice", i)
		}
		seen[r] = true
		if r.id != i+1 || (i > 0 && r.next != recs[i-1]) {
			t.Fatalf("record %d changed: %+v", i, *r)
		}
	}
}

// TestSlabAllocations checks that a Slab allocates a chunk at a time: 10,000 records take
// fewer than 100 allocations (one per record without it).
func TestSlabAllocations(t *testing.T) {
	allocs := testing.AllocsPerRun(3, func() {
		var s sched.Slab[[64]byte]
		for range 10_000 {
			s.New()[0] = 1
		}
	})
	if allocs >= 100 {
		t.Fatalf("10,000 records took %v allocations", allocs)
	}
}

// TestIDString checks ID.String against the plain formatting, and that it allocates once.
func TestIDString(t *testing.T) {
	for _, id := range []sched.ID{0, 7, 99, 100, 123456, -2, math.MaxInt32, math.MinInt32} {
		if got, want := id.String(), "t"+strconv.Itoa(int(id)); got != want {
			t.Errorf("ID(%d).String() = %q, want %q", int(id), got, want)
		}
	}
	id := sched.ID(123456)
	var s string
	if n := testing.AllocsPerRun(10, func() { s = id.String() }); n != 1 || s != "t123456" {
		t.Errorf("ID.String made %v allocations, want 1", n)
	}
}
