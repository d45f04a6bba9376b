package leastload

import (
	"math/rand/v2"
	"testing"
)

// naiveLeast is the model: find_idlest_group_cpu's comparison over ids lo to hi-1 in
// ascending order, a key replacing the least so far only when strictly smaller.
func naiveLeast(keys []uint64, lo, hi int) (int, uint64) {
	least, min := lo, uint64(None)
	for c := lo; c < hi; c++ {
		if keys[c] < min {
			least, min = c, keys[c]
		}
	}
	return least, min
}

// TestLeastMatchesWalk sets random keys (few distinct values, so that ties are common, and
// None) on trees of random sizes, and compares every query of a random range with the walk,
// with queries interleaved with changes so that the lazy update is exercised.
func TestLeastMatchesWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 7))
	for round := range 300 {
		n := 1 + r.IntN(300)
		var tr Tree
		tr.Init(n)
		keys := make([]uint64, n)
		for i := range keys {
			keys[i] = None
		}
		for op := range 200 {
			for range r.IntN(1 + r.IntN(2*n)) {
				c := r.IntN(n)
				switch r.IntN(4) {
				case 0:
					keys[c] = None
				case 1:
					keys[c] = None - 1
				default:
					keys[c] = uint64(r.IntN(5)) * 1024
				}
				tr.Set(c, keys[c])
			}
			lo := r.IntN(n)
			hi := lo + 1 + r.IntN(n-lo)
			gc, gk := tr.Least(lo, hi)
			wc, wk := naiveLeast(keys, lo, hi)
			if gc != wc || gk != wk {
				t.Fatalf("round %d op %d: n %d, Least(%d, %d) = %d, %d; the walk gives %d, %d", round, op, n, lo, hi, gc, gk, wc, wk)
			}
			for c := range n {
				if tr.Key(c) != keys[c] {
					t.Fatalf("round %d: Key(%d) = %d, set %d", round, c, tr.Key(c), keys[c])
				}
			}
		}
	}
}

// TestInitAllNone checks that a new tree answers None over any range, with the range's first
// id.
func TestInitAllNone(t *testing.T) {
	for _, n := range []int{1, 2, 3, 64, 65, 1024} {
		var tr Tree
		tr.Init(n)
		for lo := 0; lo < n; lo += 1 + n/7 {
			if c, k := tr.Least(lo, n); c != lo || k != None {
				t.Errorf("n %d: Least(%d, %d) = %d, %d on a new tree", n, lo, n, c, k)
			}
		}
	}
}

// TestMisusePanics checks the panics' messages.
func TestMisusePanics(t *testing.T) {
	for name, f := range map[string]func(){
		"init": func() { var tr Tree; tr.Init(0) },
		"empty range": func() {
			var tr Tree
			tr.Init(8)
			tr.Least(3, 3)
		},
		"beyond": func() {
			var tr Tree
			tr.Init(5)
			tr.Least(0, 6)
		},
	} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if len(msg) < 10 || msg[:10] != "leastload:" {
					t.Errorf("%s: panic %q, want leastload's", name, msg)
				}
			}()
			f()
		}()
	}
}
