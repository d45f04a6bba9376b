package workload_test

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDist(t *testing.T) {
	cases := []struct {
		text string
		want workload.Dist
		str  string
	}{
		{"10ms", workload.Fixed(10000000), "10ms"},
		{"0s", workload.Fixed(0), "0s"},
		{"1.5us", workload.Fixed(1500), "1.5us"},
		{"1500ns", workload.Fixed(1500), "1.5us"},
		{"2µs", workload.Fixed(2000), "2us"},
		{" uniform( 1ms , 3ms ) ", workload.Between(1000000, 3000000), "uniform(1ms,3ms)"},
		{"exp(2ms)", workload.Exponential(2000000), "exp(2ms)"},
		{"forever", workload.Unbounded(), "forever"},
	}
	for _, tc := range cases {
		d, err := workload.ParseDist(tc.text)
		require.NoError(t, err, tc.text)
		assert.Equal(t, tc.want, d, tc.text)
		assert.Equal(t, tc.str, d.String(), tc.text)
	}
	for _, bad := range []string{"", "ms", "-1ms", "uniform(1ms)", "uniform(1ms,2ms,3ms)", "exp(0s)", "exp(1ms", "pareto(1ms)", "79h"} {
		_, err := workload.ParseDist(bad)
		assert.Error(t, err, "ParseDist(%q)", bad)
	}
}

func TestSampleConstAndForeverUseNoRandomness(t *testing.T) {
	src := rand.NewPCG(1, 2)
	before := *src
	assert.Equal(t, workload.Duration(7), workload.Fixed(7).Sample(src))
	assert.Equal(t, workload.MaxDuration+1, workload.Unbounded().Sample(src))
	assert.Equal(t, before, *src)
}

func TestSampleUniform(t *testing.T) {
	src := rand.NewPCG(3, 4)
	d := workload.Between(10, 13)
	var seen [4]int
	for range 40000 {
		x := d.Sample(src)
		require.True(t, x >= 10 && x <= 13, "uniform(10,13) drew %d", x)
		seen[x-10]++
	}
	for i, n := range seen {
		assert.InDelta(t, 10000, n, 400, "value %d drawn %d times in 40000", 10+i, n)
	}
	assert.Equal(t, workload.Duration(5), workload.Between(5, 5).Sample(src))
}

func TestSampleExponential(t *testing.T) {
	src := rand.NewPCG(5, 6)
	d := workload.Exponential(1000000)
	const n = 200000
	var sum, above float64
	for range n {
		x := float64(d.Sample(src))
		sum += x
		if x > 2000000 {
			above++
		}
	}
	// The mean is 1ms within 1% (the standard error is 0.22%), and P(X > 2 mean) = e^-2.
	assert.InDelta(t, 1000000, sum/n, 10000)
	assert.InDelta(t, 0.1353, above/n, 0.003)
}

// TestSampleGolden pins the draws of a seeded source, which must not change between releases
// or architectures.
func TestSampleGolden(t *testing.T) {
	src := rand.NewPCG(42, 42)
	var got []workload.Duration
	for _, d := range []workload.Dist{workload.Exponential(1000000), workload.Between(0, 999), workload.Exponential(1000)} {
		for range 3 {
			got = append(got, d.Sample(src))
		}
	}
	assert.Equal(t, []workload.Duration{479182, 977727, 449234, 512, 957, 266, 1390, 277, 198}, got)
}
