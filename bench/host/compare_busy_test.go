package host

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOthersShare checks the share of the CPU time others took between two marks, worked out by
// hand, and that a missing mark, a change of CPU count or no elapsed time give no share.
func TestOthersShare(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mark := func(at time.Duration, busy, own time.Duration) cpuMark {
		return cpuMark{ok: true, at: t0.Add(at), cpus: 2, busy: busy, own: own}
	}
	a := mark(0, 10*time.Second, 3*time.Second)
	for _, c := range []struct {
		name string
		b    cpuMark
		want float64
		ok   bool
	}{
		// Over 1 s of two CPUs, 2 s of capacity: the machine was busy 1.5 s, the runs 1 s of it.
		{"a quarter", mark(time.Second, 11500*time.Millisecond, 4*time.Second), 0.25, true},
		{"the runs alone", mark(time.Second, 12*time.Second, 5*time.Second), 0, true},
		// /proc/stat's 10 ms ticks can count less than the runs' exact CPU time: no negative share.
		{"ticks behind rusage", mark(time.Second, 10990*time.Millisecond, 4*time.Second), 0, true},
		{"never above one", mark(time.Second, 20*time.Second, 3*time.Second), 1, true},
		{"no time", mark(0, 11*time.Second, 3*time.Second), 0, false},
		{"unread", cpuMark{}, 0, false},
		{"CPUs changed", cpuMark{ok: true, at: t0.Add(time.Second), cpus: 3, busy: 11 * time.Second}, 0, false},
	} {
		got, ok := othersShare(a, c.b)
		require.Equal(t, c.ok, ok, c.name)
		require.InDelta(t, c.want, got, 1e-12, c.name)
	}
}

// TestOthersTally checks that a row's share over several intervals is the others' time over the
// capacity of all of them (not the mean of their shares), worked out by hand, and that one
// unreadable interval, or none, gives no share.
func TestOthersTally(t *testing.T) {
	t0 := time.Unix(1000, 0)
	mark := func(at time.Duration, busy, own time.Duration) cpuMark {
		return cpuMark{ok: true, at: t0.Add(at), cpus: 2, busy: busy, own: own}
	}
	var tally othersTally
	_, ok := tally.share()
	require.False(t, ok, "no interval")
	// 1 s of two CPUs with 0.5 s of others, then 3 s with none: 0.5 s of 8 s, not (0.25 + 0) / 2.
	tally.add(mark(0, 10*time.Second, 3*time.Second), mark(time.Second, 11500*time.Millisecond, 4*time.Second))
	tally.add(mark(5*time.Second, 20*time.Second, 8*time.Second), mark(8*time.Second, 26*time.Second, 14*time.Second))
	share, ok := tally.share()
	require.True(t, ok)
	require.InDelta(t, 0.0625, share, 1e-12)
	tally.add(mark(9*time.Second, 0, 0), cpuMark{})
	_, ok = tally.share()
	require.False(t, ok, "an unread interval")
}

// TestRowBusy checks that a measured share decides a row's busy flag, whatever its load average
// (which counts the runs' own threads), and that the load average decides where no share was
// measured.
func TestRowBusy(t *testing.T) {
	for _, c := range []struct {
		name string
		row  Row
		want bool
	}{
		{"quiet machine, busy experiment", Row{Load: [2]float64{0.5, 14}, Others: 0.01, OthersMeasured: true}, false},
		{"others above the share", Row{Load: [2]float64{0.1, 0.2}, Others: BusyShare + 0.01, OthersMeasured: true}, true},
		{"not measured, low load", Row{Load: [2]float64{0.1, 0.4}}, false},
		{"not measured, high load", Row{Load: [2]float64{0.1, 2}}, true},
	} {
		require.Equal(t, c.want, c.row.Busy(), c.name)
	}
	var b strings.Builder
	host := []float64{1, 2, 3}
	require.NoError(t, WriteRows(&b, []Row{{Experiment: "e", Metric: "m", Host: host, Nearest: "p",
		Models: []ModelFigure{{"p", 2}}, Ratio: 1, Verdict: "agrees", Load: [2]float64{0.5, 14},
		Others: 0.012, OthersMeasured: true, Stat: HostVsModel(host, []float64{2}, 95)}}))
	require.Contains(t, b.String(), "0.50-14.00, others 1.2% ")
	require.NotContains(t, b.String(), "busy")
}

// TestMarkCPU checks that the marks read on this system either are complete or say they are
// not, and that the share between two of them is a share.
func TestMarkCPU(t *testing.T) {
	a := markCPU()
	if !a.ok {
		t.Skip("no /proc/stat or getrusage here: the table falls back on the load average")
	}
	// Spin until this process has run 20 ms more (however busy the machine), 10 s at most.
	b := a
	for deadline := time.Now().Add(10 * time.Second); b.own < a.own+20*time.Millisecond && time.Now().Before(deadline); {
		b = markCPU()
	}
	require.True(t, b.ok)
	require.Greater(t, a.cpus, 0)
	require.GreaterOrEqual(t, b.own, a.own+20*time.Millisecond, "spinning counts in this process's CPU time")
	share, ok := othersShare(a, b)
	require.True(t, ok)
	require.False(t, math.IsNaN(share))
	require.GreaterOrEqual(t, share, 0.0)
	require.LessOrEqual(t, share, 1.0)
}
