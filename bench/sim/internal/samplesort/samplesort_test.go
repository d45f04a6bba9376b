package samplesort

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSort32MatchesSlicesSort checks Sort32 against slices.Sort on random samples of many
// sizes (around Cutoff too) and value ranges (one byte used, all four, a few distinct values,
// already sorted, reversed), with the scratch buffer reused, too small and nil.
func TestSort32MatchesSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var buf []int64
	for _, n := range []int{0, 1, 2, Cutoff - 1, Cutoff, Cutoff + 1, 1000, 4096, 10000} {
		for _, bound := range []int64{1, 3, 256, 1 << 16, 1 << 24, 1 << 32} {
			for shape := range 3 {
				s := make([]int64, n)
				for i := range s {
					s[i] = r.Int64N(bound)
				}
				switch shape {
				case 1:
					slices.Sort(s)
				case 2:
					slices.Sort(s)
					slices.Reverse(s)
				}
				want := slices.Clone(s)
				slices.Sort(want)
				if shape == 0 {
					buf = nil
				}
				buf = Sort32(s, buf)
				if !slices.Equal(s, want) {
					t.Fatalf("n=%d bound=%d shape=%d: Sort32 differs from slices.Sort", n, bound, shape)
				}
			}
		}
	}
}

// TestSort32Panics checks a sample outside [0, 2^32) panics with the package's name, below and
// above Cutoff.
func TestSort32Panics(t *testing.T) {
	for _, n := range []int{1, Cutoff} {
		for _, bad := range []int64{-1, 1 << 32} {
			s := make([]int64, n)
			s[n-1] = bad
			func() {
				defer func() {
					if msg, _ := recover().(string); !strings.HasPrefix(msg, "samplesort: ") {
						t.Errorf("n=%d sample %d: recovered %q, want a panic starting with \"samplesort: \"", n, bad, msg)
					}
				}()
				Sort32(s, nil)
			}()
		}
	}
}

// FuzzSort32 checks Sort32 against slices.Sort on samples read from the fuzzer's bytes, four
// little-endian bytes each, repeated to reach Cutoff when short so that the radix path runs.
func FuzzSort32(f *testing.F) {
	f.Add([]byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}, uint16(300))
	f.Add([]byte{255, 255, 255, 255, 0, 0, 0, 0}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, n uint16) {
		if len(data) < 4 {
			return
		}
		m := max(int(n)%5000, len(data)/4)
		s := make([]int64, m)
		for i := range s {
			j := 4 * i % (len(data) - 3)
			s[i] = int64(binary.LittleEndian.Uint32(data[j:]) ^ (uint32(i)*2654435761)>>7)
		}
		want := slices.Clone(s)
		slices.Sort(want)
		Sort32(s, nil)
		if !slices.Equal(s, want) {
			t.Fatalf("%d samples: Sort32 differs from slices.Sort", m)
		}
	})
}

// BenchmarkSort32 sorts n latency-like samples (below 2^bits ns) with impl=radix (Sort32) and
// its baseline impl=slices (slices.Sort), in the same binary.
func BenchmarkSort32(b *testing.B) {
	for _, n := range []int{64, 1024, 4096} {
		for _, bits := range []int{20, 32} {
			r := rand.New(rand.NewPCG(1, 2))
			src := make([]int64, n)
			for i := range src {
				src[i] = r.Int64N(1 << bits)
			}
			s := make([]int64, n)
			for _, impl := range []string{"radix", "slices"} {
				b.Run(fmt.Sprintf("n=%d/bits=%d/impl=%s", n, bits, impl), func(b *testing.B) {
					b.ReportAllocs()
					var buf []int64
					for range b.N {
						copy(s, src)
						if impl == "radix" {
							buf = Sort32(s, buf)
						} else {
							slices.Sort(s)
						}
					}
				})
			}
		}
	}
}
