package scenario_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seed000-nice's picture reads percentages as percentages (50 %..100 %, not 5000 %), marks the
// seed's 50 % and the weights' 98.6 %, and says where all repetitions are equal.
func TestPictureNice(t *testing.T) {
	s, err := scenario.Lookup("seed000-nice")
	require.NoError(t, err)
	rp, err := scenario.Run(s, scenario.Options{Small: true})
	require.NoError(t, err)
	var b bytes.Buffer
	_, err = rp.Picture(&b, 0, nil)
	require.NoError(t, err)
	svg := b.String()
	assert.Contains(t, svg, ">50%<")
	assert.Contains(t, svg, ">100%<")
	assert.NotContains(t, svg, "5000%")
	assert.Equal(t, 4, strings.Count(svg, `class="mark"`), "the seed's 50 % and three weights' references")
	assert.Contains(t, svg, "seed 000: 50 %")
	assert.Contains(t, svg, "all 3 runs 53.86%")
}

// A scenario of ratios is drawn as ratios to the baseline on a log axis, the seed's ratio
// beside each row that has one; a swept point where the figure does not apply has no mark.
func TestPictureRatios(t *testing.T) {
	s := claimScenario()
	o := scenario.Options{Grid: map[string][]float64{"hog_nice": {0, 20}}}
	rp := report(t, s, o, [][][]float64{
		{{4, 4.1, 4.2}, {8, 8.1, 8.2}, {8, 8.1, 8.2}},
		{{4, 4.1, 4.2}, {7.6, 7.6, 7.6}, {5, 5.1, 5.2}},
	})
	var b bytes.Buffer
	caption, err := rp.Picture(&b, 1, nil)
	require.NoError(t, err)
	svg := b.String()
	assert.Contains(t, caption, "[hog_nice=20]")
	assert.Contains(t, caption, "ratio to the row's baseline mean")
	assert.Equal(t, 2, strings.Count(svg, `class="mark"`))
	assert.Contains(t, svg, "seed 000: 20.05×")
	assert.Contains(t, svg, ">20×<")
	assert.Contains(t, svg, "all 3 runs 1.854×")
	b.Reset()
	_, err = rp.Picture(&b, 0, nil)
	require.NoError(t, err)
	assert.NotContains(t, b.String(), `class="mark"`, "nice 0: the seed's figures are for nice 20")
}
