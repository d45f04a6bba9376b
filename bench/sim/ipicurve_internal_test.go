package sim

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestIPICurveAt: the point below, the point above, and between two points the line between
// their costs at the same point of the distributions, against the formula written out.
func TestIPICurveAt(t *testing.T) {
	us := time.Microsecond
	spread := Cost{Min: 10 * us, P50: 20 * us, P90: 30 * us, P99: 40 * us, Max: 50 * us}
	wide := Cost{Min: 30 * us, P50: 60 * us, P90: 90 * us, P99: 120 * us, Max: 150 * us}
	pts := []IdleIPI{{10 * us, spread}, {110 * us, wide}, {200 * us, Fixed(5 * us)}}
	lerp := func(a, b, num, den int64) int64 { return a + (b-a)*(num<<drawBits/den)/drawEnd }
	for _, c := range []struct {
		name    string
		idle, u int64
		want    int64
	}{
		{"before the first point: the first's", 0, drawP50, int64(20 * us)},
		{"at the first point", int64(10 * us), drawP90, int64(30 * us)},
		{"at the first point's minimum", int64(10 * us), 0, int64(10 * us)},
		{"halfway, at the median", int64(60 * us), drawP50, int64(40 * us)},
		{"halfway, at the minimum", int64(60 * us), 0, int64(20 * us)},
		{"a quarter of the way, at p90", int64(35 * us), drawP90, lerp(int64(30*us), int64(90*us), int64(25*us), int64(100*us))},
		{"a third of the way, between p50 and p90", int64(100*us)/3 + int64(10*us), drawP50 + 1000,
			lerp(spread.at(drawP50+1000), wide.at(drawP50+1000), int64(100*us)/3, int64(100*us))},
		{"at the middle point", int64(110 * us), drawP99, int64(120 * us)},
		{"falling towards a cheaper point", int64(155 * us), drawP50, lerp(int64(60*us), int64(5*us), int64(45*us), int64(90*us))},
		{"at the last point", int64(200 * us), drawEnd - 1, int64(5 * us)},
		{"beyond the last: the last's", int64(time.Hour), 12345, int64(5 * us)},
	} {
		assert.Equal(t, c.want, ipiCurveAt(pts, c.idle, c.u), c.name)
	}
	one := []IdleIPI{{50 * us, spread}}
	for _, idle := range []int64{0, int64(50 * us), int64(time.Second)} {
		assert.Equal(t, spread.at(drawP90), ipiCurveAt(one, idle, drawP90), "a single point at idle %d", idle)
	}
	// The largest idle times and costs validateCurve allows do not overflow.
	big := []IdleIPI{{0, Fixed(0)}, {MaxCost, Fixed(MaxCost)}}
	assert.Equal(t, int64(MaxCost)/2, ipiCurveAt(big, int64(MaxCost)/2, 0))
	// The fraction is on the 20-bit scale: below the line by at most a 2^20th of the gap.
	got := ipiCurveAt(big, int64(MaxCost)-1, 0)
	assert.LessOrEqual(t, got, int64(MaxCost)-1)
	assert.LessOrEqual(t, int64(MaxCost)-1-got, int64(MaxCost)>>drawBits+1)
}

// TestValidateCurve: points out of order, outside 0..MaxCost, or with a bad cost are errors
// naming the point.
func TestValidateCurve(t *testing.T) {
	us := time.Microsecond
	assert.NoError(t, validateCurve(nil))
	assert.NoError(t, validateCurve([]IdleIPI{{0, Fixed(us)}, {us, Fixed(2 * us)}}))
	for _, c := range []struct {
		pts  []IdleIPI
		want string
	}{
		{[]IdleIPI{{-1, Fixed(us)}}, "Config.Idle.IPICurve[0]: idle time -1ns outside"},
		{[]IdleIPI{{MaxCost + 1, Fixed(us)}}, "Config.Idle.IPICurve[0]: idle time"},
		{[]IdleIPI{{us, Fixed(us)}, {us, Fixed(us)}}, "Config.Idle.IPICurve[1]: idle time 1µs not above the point before's (1µs)"},
		{[]IdleIPI{{2 * us, Fixed(us)}, {us, Fixed(us)}}, "Config.Idle.IPICurve[1]: idle time 1µs not above"},
		{[]IdleIPI{{0, Fixed(us)}, {us, Cost{Min: 3 * us, P50: 2 * us, P90: 3 * us, P99: 3 * us, Max: 3 * us}}}, "Config.Idle.IPICurve[1].Cost: quantiles"},
		{[]IdleIPI{{0, Fixed(MaxCost + 1)}}, "Config.Idle.IPICurve[0].Cost: cost above MaxCost"},
	} {
		assert.ErrorContains(t, validateCurve(c.pts), c.want)
	}
}
