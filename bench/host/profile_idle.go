package host

// This file implements DeriveIPIIdle: the profile figure ipi_idle, the IPI's latency by how
// long its target had been idle, made of the idle ping-pong's measurements.

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
)

// IPIIdleTimes are the replier's waits of the idle ping-pong (probeIdlePingPong), from a
// wake-up sent as soon as the sleeper has surely blocked to one well beyond a KVM host's
// default halt-polling window (kvm.halt_poll_ns, 200 µs): 5, 10, 20, 40, 80, 160 and 320 µs.
// The shortest is not 0: a wake-up sent at once finds the sleeper still on its way into
// FUTEX_WAIT (on the CI machine fewer than 1 % of 2000 slept), its CPU not idle yet.
var IPIIdleTimes = []time.Duration{5 * time.Microsecond, 10 * time.Microsecond, 20 * time.Microsecond, 40 * time.Microsecond,
	80 * time.Microsecond, 160 * time.Microsecond, 320 * time.Microsecond}

// An IdleIPILatency is the idle ping-pong at one wait: the wait set, how long after the sleeper
// noted the time before its FUTEX_WAIT the wake-up was sent (the median; the target CPU's idle
// time, give or take the sleeper's way into the wait), and the one-way latency, the median of
// the repetitions' quantile by quantile, with each repetition's.
type IdleIPILatency struct {
	Wait, Sent time.Duration
	Late       sim.Cost
	Reps       []sim.Cost
}

// DeriveIPIIdle returns the figure ipi_idle made of m.IPIByIdle, dated date, as Derive makes
// ipi of the ping-pong: at each point the one-way latency less the futex wake (m.FutexWake's
// median), the wakeup (wakeup's median) and, where the target's idle time until the wakee ran
// (the wake-up's send plus the latency's median) is beyond the poll window (window; every
// point where it is 0), the idle exit (exit's median), which the model charges apart
// (sim.Idle.IPICurve); the point's idle time is the median send. It is an error if a
// measurement is missing, a point comes out at 0 or less, or the sends do not ascend.
func DeriveIPIIdle(m Measurements, wakeup, exit sim.Cost, window time.Duration, date string) (sim.IdleCurve, error) {
	if m.FutexWake.Max <= 0 {
		return sim.IdleCurve{}, errors.New("host: derive: no futex wake measurement")
	}
	if len(m.IPIByIdle) == 0 {
		return sim.IdleCurve{}, errors.New("host: derive: no idle ping-pong measurement")
	}
	c := sim.IdleCurve{Unit: "us", Date: date}
	var seen, exited []string
	for i, l := range m.IPIByIdle {
		if l.Late.Max <= 0 {
			return sim.IdleCurve{}, fmt.Errorf("host: derive: no idle ping-pong measurement at a wait of %v", l.Wait)
		}
		if i > 0 && l.Sent <= c.Points[i-1].Idle {
			return sim.IdleCurve{}, fmt.Errorf("host: derive: the idle ping-pong's wake-up at a wait of %v was sent %v after the sleeper blocked, not later than at %v (%v)",
				l.Wait, l.Sent, m.IPIByIdle[i-1].Wait, c.Points[i-1].Idle)
		}
		x := time.Duration(0)
		if idle := l.Sent + l.Late.P50; window == 0 || idle > window {
			x = exit.P50
			exited = append(exited, l.Wait.String())
		}
		ipi := less(l.Late, m.FutexWake.P50+wakeup.P50+x)
		if ipi.P50 <= 0 {
			return sim.IdleCurve{}, fmt.Errorf("host: derive: the IPI after a wait of %v comes out as %v (one way %v, futex wake %v, wakeup %v, idle exit %v)",
				l.Wait, ipi.P50, l.Late.P50, m.FutexWake.P50, wakeup.P50, x)
		}
		c.Points = append(c.Points, sim.IdleIPI{Idle: l.Sent, Cost: ipi})
		seen = append(seen, fmt.Sprintf("%v: sent after %v, median %v", l.Wait, l.Sent, l.Late.P50))
	}
	exits := "no idle exit (every point's idle time until the wakee ran within the poll window)"
	if len(exited) > 0 {
		exits = fmt.Sprintf("the idle exit (%v) at the waits whose idle time until the wakee ran is beyond the poll window (%v): %s", exit.P50, window, strings.Join(exited, ", "))
	}
	c.Method = fmt.Sprintf("one way of a futex ping-pong between two CPUs whose replier spins (its CPU never idles) and waits a set time after the sleeper noted the time before its FUTEX_WAIT before it wakes it, by wait (%s), each point at the median send, less the futex wake (%v), the wakeup (%v) and %s: the IPI by how long its target had been idle",
		strings.Join(seen, "; "), m.FutexWake.P50, wakeup.P50, exits)
	return c, nil
}
