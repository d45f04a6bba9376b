package scenario_test

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
)

// BenchmarkSuite runs every registered scenario at its default size and repetitions: the
// "whole seed suite", on 1 worker and on all cores.
func BenchmarkSuite(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, name := range scenario.Names() {
					s, _ := scenario.Lookup(name)
					if _, err := scenario.Run(s, scenario.Options{Workers: workers}); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkCells runs seed001-kargl at its small size with more and more repetitions: the cost
// should grow linearly in the cells, on one worker and on two.
func BenchmarkCells(b *testing.B) {
	s, err := scenario.Lookup("seed001-kargl")
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		for _, reps := range []int{2, 4, 8} {
			o := scenario.Options{Small: true, Reps: reps, Workers: workers}
			pl, err := scenario.NewPlan(s, o)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("workers=%d/cells=%d", workers, len(pl.Cells)), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := pl.Run(pl.All(), o); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
