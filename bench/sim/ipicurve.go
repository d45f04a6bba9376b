package sim

// This file implements Idle.IPICurve: the latency of a reschedule IPI to an idle CPU by how long
// that CPU has been idle, for a machine whose wake-up path grows slower the longer the target
// idles (a KVM guest whose vCPU the host halt-polls, then puts to sleep).

import (
	"fmt"
	"slices"
	"time"
)

// An IdleIPI is one point of Idle.IPICurve: the latency of a reschedule IPI (as Costs.IPI) sent
// to a CPU that has been idle for Idle when it is sent.
type IdleIPI struct {
	// Idle is how long the target CPU had been idle when the IPI was sent, 0..MaxCost.
	Idle time.Duration
	// Cost is the IPI's latency then.
	Cost Cost
}

// ipiCurveAt returns the latency of an IPI to a CPU idle for idle ns, at the point u of the
// distributions (u in [0, 2^20), as Cost.at): below the first point the first point's cost, at
// or beyond the last the last's, and between two points the line between the two points' costs
// at u, quantile by quantile, by where idle lies between their idle times. The fraction is
// taken on the 20-bit scale of the draws, truncated, in integer arithmetic: idle times and
// costs are at most MaxCost (under 2^42 ns), so neither product exceeds 62 bits.
func ipiCurveAt(pts []IdleIPI, idle, u int64) int64 {
	i, _ := slices.BinarySearchFunc(pts, idle, func(p IdleIPI, t int64) int {
		switch {
		case int64(p.Idle) < t:
			return -1
		case int64(p.Idle) > t:
			return 1
		}
		return 0
	})
	// pts[i] is the first point at or beyond idle.
	switch {
	case i == len(pts):
		return pts[i-1].Cost.at(u)
	case i == 0 || int64(pts[i].Idle) == idle:
		return pts[i].Cost.at(u)
	}
	lo, hi := &pts[i-1], &pts[i]
	a, b := lo.Cost.at(u), hi.Cost.at(u)
	f := (idle - int64(lo.Idle)) << drawBits / int64(hi.Idle-lo.Idle)
	return a + (b-a)*f/drawEnd
}

// ipiLatency draws the latency of a reschedule IPI to CPU c: from Idle.IPICurve at c's idle
// time so far when the curve is given and c is idle, from Costs.IPI otherwise. Both draw from
// the cost stream, a curve's draw one number whatever its points.
func (m *Machine) ipiLatency(c *cpu) int64 {
	if pts := m.cfg.Idle.IPICurve; len(pts) > 0 && !c.busy {
		return ipiCurveAt(pts, m.now-c.since, draw(&m.costRng))
	}
	return m.cfg.Costs.IPI.sample(&m.costRng)
}

// validateCurve reports what is wrong with Idle.IPICurve: a point's idle time negative, above
// MaxCost or not above the one before, or its cost invalid.
func validateCurve(pts []IdleIPI) error {
	for i, p := range pts {
		name := fmt.Sprintf("Config.Idle.IPICurve[%d]", i)
		switch {
		case p.Idle < 0 || p.Idle > MaxCost:
			return fmt.Errorf("sim: %s: idle time %v outside 0..%v", name, p.Idle, MaxCost)
		case i > 0 && p.Idle <= pts[i-1].Idle:
			return fmt.Errorf("sim: %s: idle time %v not above the point before's (%v)", name, p.Idle, pts[i-1].Idle)
		}
		if err := p.Cost.validate(name + ".Cost"); err != nil {
			return err
		}
	}
	return nil
}
