package cfs

import (
	"slices"
	"testing"
)

// periodicRun drives one CPU with nhogs nice-0 CPU hogs and one latency-sensitive task that
// wakes every period, runs burst and sleeps again, for total nanoseconds, with ticks at HZ=1000.
// The latency-sensitive task asks for slice (0: the default). Events are ticks, its wakeups
// and the end of its bursts; a reschedule requested by any of them happens at once. It returns
// the wakeup-to-run latency of every burst and the task itself.
func periodicRun(t *testing.T, p Params, nhogs int, slice, period, burst, total uint64) ([]uint64, *Entity) {
	t.Helper()
	const tick = 1_000_000
	c := NewRunQueue(0, p)
	for range nhogs {
		c.Fork(nil, NewTask("hog", Normal, 0), 0)
	}
	l := NewTask("lat", Normal, 0)
	if slice != 0 {
		l.SetSlice(slice)
	}
	c.Fork(nil, l, 0)
	c.Schedule(0)
	var lat []uint64
	now, nextTick, wakeAt := uint64(0), uint64(tick), uint64(0)
	target := burst // l's total run time at the end of its current burst
	asleep := false
	waiting := true // l is runnable and has not run since it woke
	sched := func() {
		if c.Schedule(now) == l && waiting {
			lat = append(lat, now-wakeAt)
			waiting = false
		}
	}
	for now < total {
		next := nextTick
		if asleep && wakeAt < next {
			next = wakeAt
		}
		end := l.ExecStart + (target - l.SumExecRuntime)
		if c.Curr() == l && end < next {
			next = end
		}
		now = next
		switch {
		case c.Curr() == l && now == end:
			c.Sleep(l, now)
			asleep, waiting = true, false
			wakeAt = wakeAt + period
			target += burst
			sched()
		case asleep && now == wakeAt:
			c.Wakeup(l, now)
			asleep, waiting = false, true
			if c.NeedResched() {
				sched()
			}
		default:
			c.Tick(now)
			nextTick += tick
			if c.NeedResched() {
				sched()
			}
		}
		checkCPU(t, c, nil)
	}
	return lat, l
}

// percentile returns the q-th percentile (0 < q <= 1) of xs by the nearest-rank method.
func percentile(xs []uint64, q float64) uint64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(q*float64(len(s))+0.999999) - 1
	return s[max(i, 0)]
}

// TestScenarioShortSlice reproduces the EEVDF paper's claim (Stoica and Abdel-Wahab, 1995) that
// a client's request size sets its latency, not its share: a task that wakes every 10 ms for
// 0.5 ms of work competes with four CPU hogs. With the default slice its deadline, one slice
// after its wakeup, is later than those of the hogs that wait with the same request size, so
// it queues behind them for a tick or more. Asking for a short slice (v7.1,
// sched_attr.sched_runtime = 0.1 ms) gives it the earliest deadline and it preempts at once
// (PREEMPT_SHORT). That needs DELAY_DEQUEUE: without it the task carries the negative lag of its
// last burst (0.5 ms run against a 0.1 ms share) to the next wakeup and is not eligible then.
// Its CPU time is the same in every case.
func TestScenarioShortSlice(t *testing.T) {
	const (
		period = 10_000_000
		burst  = 500_000
		total  = 5_000_000_000
	)
	type result struct {
		name          string
		lat           []uint64
		ran           uint64
		p50, p99, max uint64
	}
	run := func(name string, p Params, slice uint64) result {
		lat, l := periodicRun(t, p, 4, slice, period, burst, total)
		r := result{name: name, lat: lat, ran: l.SumExecRuntime}
		r.p50, r.p99, r.max = percentile(lat, 0.5), percentile(lat, 0.99), slices.Max(lat)
		t.Logf("%-24s bursts %d, ran %d ms, latency p50 %d µs, p99 %d µs, max %d µs",
			name, len(lat), r.ran/1_000_000, r.p50/1000, r.p99/1000, r.max/1000)
		return r
	}
	v66 := run("v6.6 default slice", preset(V66, 1), 0)
	v71 := run("v7.1 default slice", preset(V71, 1), 0)
	short := run("v7.1 slice 0.1 ms", preset(V71, 1), 100_000)
	noShort := preset(V71, 1)
	noShort.PreemptShort = false
	ns := run("v7.1 0.1 ms, no PREEMPT_SHORT", noShort, 100_000)
	noDelay := preset(V71, 1)
	noDelay.DelayDequeue = false
	nd := run("v7.1 0.1 ms, no DELAY_DEQUEUE", noDelay, 100_000)

	for _, r := range []result{v66, v71, short, ns, nd} {
		// Every burst ran (the last one may be cut off by the end of the run).
		if want := uint64(total / period); uint64(len(r.lat)) < want-1 || r.ran < (want-1)*burst {
			t.Errorf("%s: %d bursts, %d ns of CPU; want about %d bursts of %d ns", r.name, len(r.lat), r.ran, want, burst)
		}
		// No wait is longer than one tick-rounded request of each hog.
		if r.max > 4*1_000_000 {
			t.Errorf("%s: max latency %d ns, want at most one tick per hog", r.name, r.max)
		}
	}
	if short.max != 0 {
		t.Errorf("v7.1 with a 0.1 ms slice: max latency %d ns, want 0 (PREEMPT_SHORT preempts at the wakeup)", short.max)
	}
	if v71.p50 < 1_000_000 || v66.p50 < 1_000_000 {
		t.Errorf("default slice: median latency %d ns (v7.1), %d ns (v6.6); want at least a tick: waiting hogs have earlier deadlines",
			v71.p50, v66.p50)
	}
	// Without PREEMPT_SHORT the short slice still helps: the hogs' protection is cut to the
	// shortest slice on the queue, which includes the sleeper's while its dequeue is delayed.
	if nd.p50 < 1_000_000 {
		t.Errorf("0.1 ms slice without DELAY_DEQUEUE: median latency %d ns, want at least a tick (negative lag carried)", nd.p50)
	}
	if ns.p99 >= v71.p50 {
		t.Errorf("0.1 ms slice without PREEMPT_SHORT: p99 latency %d ns, want below the default slice's median %d ns", ns.p99, v71.p50)
	}
}
