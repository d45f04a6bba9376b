package host

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestTimerTraceFallback: where perf cannot be found the timer probe runs untraced, and the
// calibration says which method its timer figure takes and why.
func TestTimerTraceFallback(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	why := timerTracing()
	assert.NotEmpty(t, why)
	var log strings.Builder
	c := &calibration{ctx: context.Background(), o: CalibrateOptions{Log: &log}.withDefaults()}
	c.startTimerTrace()
	assert.Equal(t, why, c.m.TimerUntraced)
	assert.Contains(t, log.String(), "runs untraced ("+why+")")
	notes := c.finishTimerTrace()
	assert.Equal(t, []string{"timer probe beside the hog untraced (" + why + "): the timer figure is the untraced method's"}, notes)
	assert.Zero(t, c.m.TimerWaking)
}
