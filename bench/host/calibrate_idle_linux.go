package host

// This file implements CalibrateIPIIdle and the idle ping-pong's part of Calibrate: the IPI's
// latency by how long its target had been idle.

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/topology"
)

// CalibrateIPIIdle measures the idle ping-pong as Calibrate does (at every wait of IPIIdleTimes,
// o.Reps times each, with a FUTEX_WAKE without waiter to take away) and returns the figure
// ipi_idle made of it by DeriveIPIIdle with base's wakeup, idle_exit and idle_poll, the
// provenance notes giving each point's median and p99 in each repetition, and the measurements:
// a profile's curve measured without the rest. Its errors are Calibrate's and DeriveIPIIdle's.
func CalibrateIPIIdle(ctx context.Context, o CalibrateOptions, base *sim.Profile) (sim.IdleCurve, []string, Measurements, error) {
	c := &calibration{ctx: ctx, o: o.withDefaults()}
	var notes []string
	_, _, err := c.measure(func() error {
		var err error
		notes, err = c.idleProbes(true)
		return err
	})
	if err != nil {
		return sim.IdleCurve{}, nil, c.m, err
	}
	curve, err := DeriveIPIIdle(c.m, base.Figures["wakeup"].Cost, base.Figures["idle_exit"].Cost,
		base.Figures["idle_poll"].Cost.P50, c.o.Now.UTC().Format("2006-01-02"))
	return curve, notes, c.m, err
}

// idleProbes runs the idle ping-pong (probeIdlePingPong) between the two CPUs at every wait of
// IPIIdleTimes, and with futex a FUTEX_WAKE without waiter first, through threadProbes, o.Reps
// times: each figure the median of the repetitions', quantile by quantile. It stores them in
// the measurements (none where a probe was skipped: Skipped says why) and returns a provenance
// note for each wait.
func (c *calibration) idleProbes(futex bool) ([]string, error) {
	lat := make([][]sim.Cost, len(IPIIdleTimes))
	sent := make([][]int64, len(IPIIdleTimes))
	var wakes []sim.Cost
	for rep := range c.o.Reps {
		c.rep = rep
		_, err := c.threadProbes(func(pr *prober) []probe {
			var ps []probe
			if futex {
				ps = append(ps, probe{"futex wake without waiter", func() error {
					s, err := pr.probeFutexWake(c.b, c.n)
					wakes = append(wakes, costOf(s))
					return err
				}})
			}
			for i, wait := range IPIIdleTimes {
				ps = append(ps, probe{fmt.Sprintf("futex ping-pong between CPUs, the replier waiting %v", wait), func() error {
					st0, _ := readProcStat()
					l, s, err := pr.probeIdlePingPong(c.a, c.b, c.n, wait)
					if err == nil && len(l) < c.n/10 {
						err = fmt.Errorf("only %d of %d round trips found the sleeper asleep", len(l), c.n)
					}
					if err != nil {
						return err
					}
					st1, _ := readProcStat()
					c.logf("  %d of %d slept; one way: median %v; the sleeper's CPU idle %s of the time", len(l), c.n, costOf(l).P50, idleShare(st0, st1, c.b))
					lat[i], sent[i] = append(lat[i], costOf(l)), append(sent[i], s...)
					return nil
				}})
			}
			return ps
		})
		if err != nil {
			return nil, err
		}
	}
	if futex {
		c.m.FutexWake = MedianCost(wakes)
	}
	var notes []string
	for i, wait := range IPIIdleTimes {
		if len(lat[i]) < c.o.Reps {
			c.m.IPIByIdle = nil
			return nil, nil
		}
		l := IdleIPILatency{Wait: wait, Sent: time.Duration(costOf(sent[i]).P50), Late: MedianCost(lat[i]), Reps: lat[i]}
		c.m.IPIByIdle = append(c.m.IPIByIdle, l)
		notes = append(notes, spreadNote(fmt.Sprintf("the futex ping-pong with the replier waiting %v (ipi_idle's point at %v)", wait, l.Sent), c.n, lat[i]))
	}
	return notes, nil
}

// idleShare returns the share of the ticks CPU cpu was idle between the /proc/stat readings x
// and y, as "93 %", or "unknown": the sleeper's CPU is idle for most of the idle ping-pong
// unless other threads run there.
func idleShare(x, y []CPUTimes, cpu topology.CPU) string {
	for _, a := range x {
		for _, b := range y {
			if a.CPU != int(cpu) || b.CPU != int(cpu) {
				continue
			}
			idle, busy := b.IdleTicks()-a.IdleTicks(), b.BusyTicks()-a.BusyTicks()
			if idle+busy > 0 {
				return fmt.Sprintf("%d %%", 100*idle/(idle+busy))
			}
		}
	}
	return "unknown"
}
