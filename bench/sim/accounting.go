package sim

// This file implements Accounting: a run's CPU time as FreeBSD's tools report it, from sampled
// clock ticks (kern.cp_time) and from exact run time (td_runtime), so that the two can be
// compared as seed 002 does.

import (
	"fmt"
	"time"
)

// Accounting is the whole machine's time over a run's measured interval in the columns of seed
// 002 (Bruce Evans' makeworld reports, "128.57r 566.24u 77.10s 0.83i 644.17t 384.36I 408X"):
// real, user, system, interrupt, their total and idle time from kern.cp_time, which counts the
// stathz ticks by what each CPU was doing, and idle time from td_runtime, the idle threads' exact
// run time. The sampled columns carry the sampling error of statclock; X does not.
type Accounting struct {
	// Real (r) is the measured interval, End - Start.
	Real time.Duration
	// User (u) is the CPUUser and CPUNice ticks, as time; Nice the CPUNice part.
	User, Nice time.Duration
	// Sys (s) is the CPUSys ticks, Intr (i) the CPUIntr ticks, as time.
	Sys, Intr time.Duration
	// Total (t) is User + Sys + Intr.
	Total time.Duration
	// Idle (I) is the CPUIdle ticks, as time: what kern.cp_time reports.
	Idle time.Duration
	// IdleExact (X) is the CPUs' idle time (CPUStats.Idle), exact: what the idle threads'
	// td_runtime reports.
	IdleExact time.Duration
	// Ticks are the clock interrupts of every CPU by state, and TickHz their rate.
	Ticks  [NumCPUStates]int64
	TickHz int
}

// Accounting returns r's accounting. Ticks become time at 1/TickHz each (the machine samples at
// every clock interrupt of the policy: stathz under ULE and 4BSD, hz under CFS).
func (r *Result) Accounting() Accounting {
	a := Accounting{Real: time.Duration(r.End - r.Start), TickHz: r.TickHz}
	var idle int64
	for i := range r.CPUs {
		c := &r.CPUs[i]
		for s, n := range c.Ticks {
			a.Ticks[s] += n
		}
		idle += c.Idle
	}
	a.IdleExact = time.Duration(idle)
	tick := func(n int64) time.Duration {
		if r.TickHz <= 0 {
			return 0
		}
		return time.Duration(n * int64(time.Second) / int64(r.TickHz))
	}
	a.Nice = tick(a.Ticks[CPUNice])
	a.User = tick(a.Ticks[CPUUser] + a.Ticks[CPUNice])
	a.Sys = tick(a.Ticks[CPUSys])
	a.Intr = tick(a.Ticks[CPUIntr])
	a.Total = a.User + a.Sys + a.Intr
	a.Idle = tick(a.Ticks[CPUIdle])
	return a
}

// String formats a in seed 002's columns, in seconds with two decimals: "1.00r 0.50u 0.00s
// 0.00i 0.50t 1.50I 1.52X".
func (a Accounting) String() string {
	s := func(d time.Duration) float64 { return d.Seconds() }
	return fmt.Sprintf("%.2fr %.2fu %.2fs %.2fi %.2ft %.2fI %.2fX", s(a.Real), s(a.User), s(a.Sys), s(a.Intr),
		s(a.Total), s(a.Idle), s(a.IdleExact))
}
