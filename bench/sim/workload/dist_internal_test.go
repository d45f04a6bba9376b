package workload

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestNegLn compares the fixed-point logarithm with math.Log at the edges and on random inputs.
func TestNegLn(t *testing.T) {
	check := func(x uint64) {
		got := float64(negLnQ32(x)) / (1 << 32)
		want := -math.Log(float64(x) / (1 << 64))
		if math.Abs(got-want) > 2e-9 {
			t.Errorf("negLnQ32(%#x) = %.12f, want %.12f", x, got, want)
		}
	}
	for _, x := range []uint64{1, 2, 3, 1 << 32, 1<<63 - 1, 1 << 63, 1<<63 + 1<<53, ^uint64(0), ^uint64(0) - 1<<11} {
		check(x)
	}
	for i := range 256 { // every table interval, at both ends
		check(1<<63 + uint64(i)<<55)
		check(1<<63 + uint64(i+1)<<55 - 1)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		check(r.Uint64() | 1)
		check(r.Uint64()>>r.IntN(64) | 1)
	}
}

func TestLnExact(t *testing.T) {
	for i := range 1000 {
		y := 1<<62 + uint64(i)*(1<<62/1000)
		got := float64(lnExactQ62(y)) / (1 << 62)
		want := math.Log(float64(y) / (1 << 62))
		if math.Abs(got-want) > 1e-15 {
			t.Errorf("lnExactQ62(%#x) = %.17f, want %.17f", y, got, want)
		}
	}
}
