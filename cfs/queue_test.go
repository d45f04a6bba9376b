package cfs

import (
	"math"
	"math/rand/v2"
	"testing"
)

// advanceMinVruntimeRef is __update_min_vruntime as the kernel writes it, with a branch; the
// Queue's advanceMinVruntime clamps the advance at 0 instead.
func advanceMinVruntimeRef(q *Queue, v uint64) {
	if delta := int64(v - q.minVruntime); delta > 0 {
		q.sumW -= int64(q.sumWeight * uint64(delta))
		q.minVruntime = v
	}
}

// vruntimeNear returns a random vruntime: anywhere, or within a few units of base, or at the
// distance 2^63 from it where the wrap-aware comparison changes sides.
func vruntimeNear(r *rand.Rand, base uint64) uint64 {
	switch r.IntN(4) {
	case 0:
		return r.Uint64()
	case 1:
		return base + uint64(r.IntN(7)) - 3
	case 2:
		return base + 1<<63 + uint64(r.IntN(3)) - 1
	}
	return base + uint64(r.Int64N(1<<40)) - 1<<39
}

// TestAdvanceMinVruntimeRef compares advanceMinVruntime with the kernel's branch on random
// queues, min_vruntime near the wrap and advances of 0, ±1, ±2^63 and anything.
func TestAdvanceMinVruntimeRef(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 5))
	for range 200000 {
		q := Queue{minVruntime: vruntimeNear(r, InitialMinVruntime), sumW: r.Int64(), sumWeight: r.Uint64()}
		if r.IntN(3) == 0 {
			q.sumW, q.sumWeight = int64(r.IntN(1<<20))-1<<19, uint64(r.IntN(1<<20))
		}
		if r.IntN(8) == 0 {
			q.sumW = []int64{0, math.MinInt64, math.MaxInt64}[r.IntN(3)]
		}
		v := vruntimeNear(r, q.minVruntime)
		want := Queue{minVruntime: q.minVruntime, sumW: q.sumW, sumWeight: q.sumWeight}
		advanceMinVruntimeRef(&want, v)
		q.advanceMinVruntime(v)
		if q.minVruntime != want.minVruntime || q.sumW != want.sumW || q.sumWeight != want.sumWeight {
			t.Fatalf("advance to %d: min_vruntime %d, sums %d %d; want %d, %d %d",
				v, q.minVruntime, q.sumW, q.sumWeight, want.minVruntime, want.sumW, want.sumWeight)
		}
	}
}
