package runq_test

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/runq"
)

// occupancies are the bit patterns the exhaustive Status tests run over: empty, full, one bit at
// each word boundary, every third queue, and a seeded sparse pattern.
func occupancies() map[string][]runq.Index {
	all := make([]runq.Index, 0, runq.NumQueues)
	thirds := []runq.Index{}
	for i := range runq.NumQueues {
		all = append(all, runq.Index(i))
		if i%3 == 0 {
			thirds = append(thirds, runq.Index(i))
		}
	}
	return map[string][]runq.Index{
		"empty":      nil,
		"full":       all,
		"boundaries": {0, 63, 64, 127, 128, 191, 192, 255},
		"thirds":     thirds,
		"sparse":     {5, 56, 114, 115, 200, 224},
		"single255":  {255},
	}
}

// naiveFirstIn is the reference for Status.FirstIn: a linear scan of a bool array.
func naiveFirstIn(set *[runq.NumQueues]bool, lo, hi int) (runq.Index, bool) {
	for i := lo; i <= hi; i++ {
		if set[i] {
			return runq.Index(i), true
		}
	}
	return 0, false
}

func TestStatusSetClearHasEveryIndex(t *testing.T) {
	var s runq.Status
	for i := range runq.NumQueues {
		x := runq.Index(i)
		s.Set(x)
		if !s.Has(x) {
			t.Fatalf("after Set(%d), Has(%d) = false", x, x)
		}
		if got := s.Count(); got != 1 {
			t.Fatalf("after Set(%d), Count() = %d, want 1", x, got)
		}
		if w := s[i/64]; w != 1<<(i%64) {
			t.Fatalf("after Set(%d), word %d = %#x, want %#x", x, i/64, w, uint64(1)<<(i%64))
		}
		if f, ok := s.First(); f != x || !ok {
			t.Fatalf("First() = %d, %t; want %d, true", f, ok, x)
		}
		s.Clear(x)
		if s.Has(x) || !s.Empty() {
			t.Fatalf("after Clear(%d), Has = %t, Empty = %t", x, s.Has(x), s.Empty())
		}
	}
	if _, ok := s.First(); ok {
		t.Errorf("First() of the empty Status reported a bit")
	}
}

func TestStatusFirstInEveryRange(t *testing.T) {
	for name, occ := range occupancies() {
		t.Run("occupancy="+name, func(t *testing.T) {
			var s runq.Status
			var set [runq.NumQueues]bool
			for _, i := range occ {
				s.Set(i)
				set[i] = true
			}
			if got := s.Count(); got != len(occ) {
				t.Errorf("Count() = %d, want %d", got, len(occ))
			}
			if got := slices.Collect(s.All()); !slices.Equal(got, occ) {
				t.Errorf("All() = %v, want %v", got, occ)
			}
			for lo := range runq.NumQueues {
				for hi := lo; hi < runq.NumQueues; hi++ {
					r := runq.Range{Lo: runq.Index(lo), Hi: runq.Index(hi)}
					got, ok := s.FirstIn(r)
					want, wok := naiveFirstIn(&set, lo, hi)
					if got != want || ok != wok {
						t.Fatalf("FirstIn(%v) = %d, %t; want %d, %t", r, got, ok, want, wok)
					}
				}
				got, ok := s.After(runq.Index(lo))
				want, wok := naiveFirstIn(&set, lo+1, runq.NumQueues-1)
				if got != want || ok != wok {
					t.Fatalf("After(%d) = %d, %t; want %d, %t", lo, got, ok, want, wok)
				}
			}
		})
	}
}

func TestStatusString(t *testing.T) {
	cases := []struct {
		name string
		set  []runq.Index
		want string
	}{
		{"empty", nil, "{}"},
		{"one", []runq.Index{7}, "{7}"},
		{"run and singles", []runq.Index{0, 7, 56, 57, 58, 255}, "{0 7 56-58 255}"},
		{"across a word", []runq.Index{62, 63, 64, 65}, "{62-65}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var s runq.Status
			for _, i := range tc.set {
				s.Set(i)
			}
			if got := s.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStatusCountMatchesPopcount(t *testing.T) {
	var s runq.Status
	for i := 0; i < runq.NumQueues; i += 5 {
		s.Set(runq.Index(i))
	}
	want := 0
	for _, w := range s {
		want += bits.OnesCount64(w)
	}
	if got := s.Count(); got != want {
		t.Errorf("Count() = %d, want %d", got, want)
	}
}

func TestRange(t *testing.T) {
	cases := []struct {
		r        runq.Range
		valid    bool
		len      int
		contains []runq.Index
		not      []runq.Index
		str      string
	}{
		{runq.FullRange(), true, 256, []runq.Index{0, 255}, nil, "0..255"},
		{runq.Range{Lo: 56, Hi: 223}, true, 168, []runq.Index{56, 223}, []runq.Index{55, 224}, "56..223"},
		{runq.Range{Lo: 9, Hi: 9}, true, 1, []runq.Index{9}, []runq.Index{8, 10}, "9..9"},
		{runq.Range{Lo: 10, Hi: 9}, false, 0, nil, []runq.Index{9, 10}, "10..9"},
	}
	for _, tc := range cases {
		t.Run(tc.str, func(t *testing.T) {
			if got := tc.r.Valid(); got != tc.valid {
				t.Errorf("%v.Valid() = %t, want %t", tc.r, got, tc.valid)
			}
			if tc.valid {
				if got := tc.r.Len(); got != tc.len {
					t.Errorf("%v.Len() = %d, want %d", tc.r, got, tc.len)
				}
			}
			for _, i := range tc.contains {
				if !tc.r.Contains(i) {
					t.Errorf("%v.Contains(%d) = false, want true", tc.r, i)
				}
			}
			for _, i := range tc.not {
				if tc.r.Contains(i) {
					t.Errorf("%v.Contains(%d) = true, want false", tc.r, i)
				}
			}
			if got := tc.r.String(); got != tc.str {
				t.Errorf("String() = %q, want %q", got, tc.str)
			}
		})
	}
}
