package host

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// cyclicOut is cyclictest -q --laptop -t1 -a 1 -i 1000 -l 12 -h 6's output, as rt-tests 2.4
// prints it (with the counts edited: 2 of 3 µs, 5 of 4 µs, 3 of 5 µs, 2 overflows).
const cyclicOut = `# Histogram
000000 000000
000001 000000
000002 000000
000003 000002
000004 000005
000005 000003
# Total: 000000010
# Min Latencies: 00003
# Avg Latencies: 00005
# Max Latencies: 00041
# Histogram Overflows: 00002
# Histogram Overflow at cycle number:
# Thread 0: 00003 00007
`

func TestParseCyclictestHistogram(t *testing.T) {
	h, err := ParseCyclictestHistogram(cyclicOut)
	require.NoError(t, err)
	assert.Equal(t, []int64{0, 0, 0, 2, 5, 3}, h.Counts)
	assert.Equal(t, int64(2), h.Overflows)
	assert.Equal(t, int64(41), h.Max)
	assert.Equal(t, int64(12), h.Total())
	for _, tc := range []struct {
		p    float64
		want int64
	}{{0, 3}, {10, 3}, {17, 4}, {50, 4}, {58, 4}, {59, 5}, {83, 5}, {84, 41}, {100, 41}} {
		got, ok := h.Percentile(tc.p)
		assert.True(t, ok)
		assert.Equal(t, tc.want, got, "p%v", tc.p)
	}
	empty := &CyclicHistogram{}
	_, ok := empty.Percentile(50)
	assert.False(t, ok)
	assert.Panics(t, func() { h.Percentile(101) })
}

func TestParseCyclictestHistogramErrors(t *testing.T) {
	for _, tc := range []struct{ name, out, want string }{
		{"none", "T: 0 ( 1) P: 0 I:1000 C: 5 Min: 3 Act: 4 Avg: 4 Max: 9\n", "no histogram"},
		{"gap", "# Histogram\n000000 000001\n000002 000001\n", `cyclictest:3:1: bucket "000002" where 1 was expected`},
		{"count", "# Histogram\n000000 00x001\n", "cyclictest:2:"},
		{"no count", "# Histogram\n000000\n", "histogram line without a count"},
		{"overflows", "# Histogram\n000000 000001\n# Histogram Overflows: 0x\n", "Histogram Overflows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCyclictestHistogram(tc.out)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// naivePercentile expands h into its latencies (overflows as Max) and takes the nearest rank.
func naivePercentile(h *CyclicHistogram, p float64) int64 {
	var all []int64
	for i, c := range h.Counts {
		for range c {
			all = append(all, int64(i))
		}
	}
	for range h.Overflows {
		all = append(all, h.Max)
	}
	slices.Sort(all)
	r := int(math.Ceil(p / 100 * float64(len(all))))
	return all[max(0, r-1)]
}

// FuzzParseCyclictestHistogram: whatever the text, the reader returns a histogram or an error,
// never panics; a histogram it returns prints back to the same counts, and its percentiles are
// the naive nearest ranks (for a Max at least every bucket, as cyclictest's is).
func FuzzParseCyclictestHistogram(f *testing.F) {
	f.Add(cyclicOut)
	f.Add("# Histogram\n000000 000003 000001\n000001 000000 000002\n# Max Latencies: 00001 00001\n")
	f.Fuzz(func(t *testing.T, out string) {
		h, err := ParseCyclictestHistogram(out)
		if err != nil {
			return
		}
		var b strings.Builder
		b.WriteString("# Histogram\n")
		for i, c := range h.Counts {
			fmt.Fprintf(&b, "%06d %06d\n", i, c)
		}
		fmt.Fprintf(&b, "# Histogram Overflows: %05d\n# Max Latencies: %05d\n", h.Overflows, h.Max)
		h2, err := ParseCyclictestHistogram(b.String())
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		if !slices.Equal(h.Counts, h2.Counts) || h.Overflows != h2.Overflows || h.Max != h2.Max {
			t.Fatalf("round trip: %+v, %+v", h, h2)
		}
		if h.Total() == 0 || h.Total() > 1e5 || h.Max < int64(len(h.Counts)) {
			return
		}
		for _, p := range []float64{0, 1, 50, 90, 99, 99.9, 100} {
			got, _ := h.Percentile(p)
			if want := naivePercentile(h, p); got != want {
				t.Fatalf("Percentile(%v) = %d, want %d (%+v)", p, got, want, h)
			}
		}
	})
}
