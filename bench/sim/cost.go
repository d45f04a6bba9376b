package sim

// This file implements Cost, the time one step of the path from a scheduling decision to its
// effect takes, and Costs, the steps the machine charges: a thread woken, an IPI, a timer's
// expiry, a context switch, the cache refill after it or after a migration, a clock interrupt.

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/topology"
)

// A Cost is the time one step takes: a fixed figure, or a spread given by its quantiles, Min ≤
// P50 ≤ P90 ≤ P99 ≤ P995 ≤ P999 ≤ Max. The machine draws a varying cost from its own random
// stream, derived from Config.Seed, by the inverse of the distribution function that is linear
// between the quantiles (a uniform draw below 0.5 falls between Min and P50, one between 0.999
// and 1 between P999 and Max), in integer arithmetic, so that a run stays the same on every
// architecture. P999 is optional: 0 means none, the segment from 0.99 to 1 then running from P99
// to Max. P995 is optional too, and only with P999: 0 means none, the segment from 0.99 to 0.999
// then running straight from P99 to P999. A fixed cost (Min = Max) draws nothing. The zero Cost
// charges nothing.
//
// Quantiles are what a calibration measures (a histogram's percentiles): the spread of a wake-up
// path, whose tail is much longer than its median, survives into the model that way. The
// maximum of a few thousand samples is one outlier: P999 keeps its weight to a thousandth. P995
// keeps the shape of the tail between P99 and P999, which on a virtual machine often spans a
// factor of 40 (a timer 62 µs late at p99, 2.4 ms at p99.9, when the hypervisor takes the vCPU
// away): on a straight line from P99 to P999 three fifths of that 0.9 % of the draws lie above
// a millisecond, and the p99 of a model's few thousand draws lands anywhere in the span.
type Cost struct {
	Min, P50, P90, P99, P995, P999, Max time.Duration
}

// Fixed returns the cost that is always d.
func Fixed(d time.Duration) Cost {
	return Cost{Min: d, P50: d, P90: d, P99: d, P995: d, P999: d, Max: d}
}

// IsZero reports whether c charges nothing.
func (c Cost) IsZero() bool { return c == Cost{} }

// Varies reports whether c is drawn at random rather than fixed (Min < Max).
func (c Cost) Varies() bool { return c.Min != c.Max }

// Mean returns the mean of the costs c draws: the fixed figure, or the mean of the piecewise
// linear distribution between its quantiles (each segment's midpoint weighted by its share of
// the 2^20 draws sample maps onto it), truncated to the nanosecond. A replay of a recorded trace
// deducts it from each run where the recording paid the step inside the run
// (trace.ImportOptions.Costs).
func (c Cost) Mean() time.Duration {
	if c.Min == c.Max {
		return c.Min
	}
	seg := func(lo, hi time.Duration, a, b int64) int64 { return int64(lo+hi) * (b - a) }
	sum := seg(c.Min, c.P50, 0, drawP50) + seg(c.P50, c.P90, drawP50, drawP90) + seg(c.P90, c.P99, drawP90, drawP99)
	switch {
	case c.P999 == 0:
		sum += seg(c.P99, c.Max, drawP99, drawEnd)
	case c.P995 == 0:
		sum += seg(c.P99, c.P999, drawP99, drawP999) + seg(c.P999, c.Max, drawP999, drawEnd)
	default:
		sum += seg(c.P99, c.P995, drawP99, drawP995) + seg(c.P995, c.P999, drawP995, drawP999) +
			seg(c.P999, c.Max, drawP999, drawEnd)
	}
	return time.Duration(sum / (2 * drawEnd))
}

// String returns c as "3µs" for a fixed cost, or "1µs/3µs/5µs/9µs/20µs/40µs"
// (Min/P50/P90/P99/P999/Max; without P999, five figures; with P995, seven:
// Min/P50/P90/P99/P995/P999/Max).
func (c Cost) String() string {
	switch {
	case !c.Varies():
		return c.Min.String()
	case c.P999 == 0:
		return fmt.Sprintf("%v/%v/%v/%v/%v", c.Min, c.P50, c.P90, c.P99, c.Max)
	case c.P995 != 0:
		return fmt.Sprintf("%v/%v/%v/%v/%v/%v/%v", c.Min, c.P50, c.P90, c.P99, c.P995, c.P999, c.Max)
	}
	return fmt.Sprintf("%v/%v/%v/%v/%v/%v", c.Min, c.P50, c.P90, c.P99, c.P999, c.Max)
}

// validate reports what is wrong with c, the cost named name: a negative quantile, quantiles
// out of order, a P995 without P999, or a maximum above MaxCost.
func (c Cost) validate(name string) error {
	switch {
	case c.Min < 0:
		return fmt.Errorf("sim: %s: negative cost %v", name, c)
	case c.Min > c.P50 || c.P50 > c.P90 || c.P90 > c.P99 || c.P99 > c.Max || c.P999 != 0 && (c.P999 < c.P99 || c.P999 > c.Max):
		return fmt.Errorf("sim: %s: quantiles %v out of order (want Min ≤ P50 ≤ P90 ≤ P99 ≤ P999 ≤ Max)", name, c)
	case c.P995 != 0 && c.P999 == 0:
		return fmt.Errorf("sim: %s: P995 %v without P999", name, c.P995)
	case c.P995 != 0 && (c.P995 < c.P99 || c.P995 > c.P999):
		return fmt.Errorf("sim: %s: quantiles %v out of order (want P99 ≤ P995 ≤ P999)", name, c)
	case c.Max > MaxCost:
		return fmt.Errorf("sim: %s: cost above MaxCost (%v): %v", name, MaxCost, c)
	}
	return nil
}

// The quantiles' positions on a 20-bit scale: 0.5, 0.9, 0.99, 0.995 and 0.999 of 1<<20.
const (
	drawBits = 20
	drawP50  = 1 << drawBits / 2
	drawP90  = 943718  // ⌊0.9 × 2^20⌋
	drawP99  = 1038090 // ⌊0.99 × 2^20⌋
	drawP995 = 1043333 // ⌊0.995 × 2^20⌋
	drawP999 = 1047527 // ⌊0.999 × 2^20⌋
	drawEnd  = 1 << drawBits
)

// sample draws c from src: fixed costs without drawing, varying ones piecewise linearly between
// the quantiles. A cost is at most MaxCost (under 2^42 ns), so a difference of quantiles times
// a 20-bit fraction fits in 62 bits. It inlines, so that a fixed cost costs its caller a
// comparison; a varying one is drawVarying.
func (c *Cost) sample(src *rand.PCG) int64 {
	if c.Min == c.Max {
		return int64(c.Min)
	}
	return c.drawVarying(src)
}

// drawVarying is sample for a varying cost: c.at(draw(src)), with draw written out (the
// generator's step inlines here, not in a function of its own).
func (c *Cost) drawVarying(src *rand.PCG) int64 {
	return c.at(int64(src.Uint64() >> (64 - drawBits)))
}

// draw returns a uniform number in [0, 2^20) from src: the point of a distribution a varying
// Cost's sample takes.
func draw(src *rand.PCG) int64 { return int64(src.Uint64() >> (64 - drawBits)) }

// at returns c's cost at the point u of its distribution, u in [0, 2^20): the inverse of the
// distribution function, linear between the quantiles.
func (c *Cost) at(u int64) int64 {
	var lo, hi time.Duration
	var a, b int64
	switch {
	case u < drawP50:
		lo, hi, a, b = c.Min, c.P50, 0, drawP50
	case u < drawP90:
		lo, hi, a, b = c.P50, c.P90, drawP50, drawP90
	case u < drawP99:
		lo, hi, a, b = c.P90, c.P99, drawP90, drawP99
	case c.P999 == 0:
		lo, hi, a, b = c.P99, c.Max, drawP99, drawEnd
	case c.P995 != 0 && u < drawP995:
		lo, hi, a, b = c.P99, c.P995, drawP99, drawP995
	case c.P995 != 0 && u < drawP999:
		lo, hi, a, b = c.P995, c.P999, drawP995, drawP999
	case u < drawP999:
		lo, hi, a, b = c.P99, c.P999, drawP99, drawP999
	default:
		lo, hi, a, b = c.P999, c.Max, drawP999, drawEnd
	}
	return int64(lo) + int64(hi-lo)*(u-a)/(b-a)
}

// MigrationCosts are the cache refill a thread pays when it first runs on a CPU other than the
// one it ran on last, by the closest level of the topology the two CPUs share: the further
// apart, the less of its working set is still in a cache it reaches cheaply.
type MigrationCosts struct {
	// SMT is a move to another hardware thread of the same core: L1 and L2 are shared.
	SMT Cost
	// LLC is a move to another core of the same last-level cache (a cluster's L2 included).
	LLC Cost
	// Node is a move to a core of another last-level cache of the same NUMA node.
	Node Cost
	// Remote is a move to another NUMA node or package: the working set comes from remote
	// memory or another socket's cache.
	Remote Cost
}

// EveryLevel returns the migration costs that charge c whatever the level crossed.
func EveryLevel(c Cost) MigrationCosts { return MigrationCosts{SMT: c, LLC: c, Node: c, Remote: c} }

// IsZero reports whether every level charges nothing.
func (mc MigrationCosts) IsZero() bool { return mc == MigrationCosts{} }

// At returns the cost of a move between two CPUs whose closest shared level is l.
func (mc *MigrationCosts) At(l topology.Level) *Cost {
	switch l {
	case topology.SMT:
		return &mc.SMT
	case topology.Cluster, topology.LLC:
		return &mc.LLC
	case topology.Node:
		return &mc.Node
	}
	return &mc.Remote
}

// Costs are the steps between a scheduling decision and its effect that the machine charges, in
// simulated time, each named after the kernel or hardware step it stands for. The zero value
// charges nothing: the ideal machine, on which a woken thread runs the instant it is chosen
// ([IdealProfile]). A measured [Profile] gives them all ([Profile.Apply]); the idle state's exit
// latency is [Idle.ExitLatency].
//
// What each step delays and who pays:
//
//	step       kernel                                    delays                    paid by
//	Wakeup     try_to_wake_up / sched_add of the waker   the wakee's wake-up       the waker (CPU time)
//	IPI        smp_send_reschedule → scheduler_ipi       a remote reschedule       nobody (latency)
//	IPISend    the IPI's send (an APIC write; a VM exit)  nothing                   the sender (CPU time)
//	Timer      hrtimer expiry → hrtimer_wakeup's ttwu    a sleep's end             nobody (latency)
//	TimerExit  ttwu after sched_waking, the rest of the  a preempting sleeper      the CPU (CPUStats.Interrupt);
//	           hrtimer interrupt, irq_exit, schedule     (busy CPU only)           if the sleeper waits, the
//	                                                                               thread it interrupted
//	Switch     context_switch, switch_to, return to user the thread switched in   the CPU (CPUStats.Switch)
//	SwitchMM   switch_mm: another process's address space the thread switched in   the CPU (CPUStats.Switch)
//	Refill     caches refilled after other threads ran   the thread resumed        the CPU (CPUStats.Switch)
//	Migration  caches refilled on another CPU, by level  the thread moved          the CPU (CPUStats.Switch)
//	Tick       the clock interrupt (scheduler_tick)      the running thread        the CPU (CPUStats.Interrupt)
//
// A sleeper's timer wake-up on a busy CPU is charged in these steps, each once: Timer from its
// deadline to its waking (the hrtimer interrupt's expiry of the timer and hrtimer_wakeup's way
// to try_to_wake_up's sched_waking), which delays it whether it then preempts the CPU's thread
// or waits; Wakeup as interrupt time to the thread running there (try_to_wake_up's work: cut
// short where the sleeper preempts that thread at once, so it delays nobody then); TimerExit,
// the way from the waking to the switch-in less the switch and the refill; and Switch and
// Refill when the sleeper runs. No IPI (the timer fires on the sleeper's own CPU). Where the
// sleeper preempts at once (the policy reschedules the CPU at the wake-up and picks it at that
// instant), TimerExit delays it: the kernel finishes the interrupt (the rest of
// hrtimer_interrupt, irq_exit) and schedules on the interrupt's way out
// (preempt_schedule_irq, or the return to user space) before it switches. Where it waits, the
// interrupted thread pays TimerExit as interrupt time and nobody else is delayed: it pays the
// interrupt's remainder and irq_exit in the kernel too, but not schedule and the switch, which
// happen only when something is switched in; the figure holds schedule's pick
// (pick_next_task, a few hundred nanoseconds beside the interrupt's microseconds) but no
// switch, so the thread is charged that pick too much. On an idle CPU the idle exit
// ([Idle.ExitLatency]) follows the Timer instead, and the profile's idle_exit holds the rest of
// the sleeper's lateness there (a calibration takes it as that lateness less the Timer), so
// TimerExit is not charged there. schedbench calibrate measures Timer from the tracepoints
// where it can (root, perf), and TimerExit from the same trace; without them it takes the
// sleeper's whole lateness less Switch and Refill as Timer, which holds that way to the
// switch-in too, and leaves TimerExit out (see the figures' methods in the profile).
//
// The sleeper's return from its sleeping system call after the switch-in (clock_nanosleep's
// exit to user space, about 3 µs on the CI machine in the trace of 2026-12-07, switch_to and
// the refill included) is the sleeper's own CPU time, as a blocking read's return is a pipe
// reader's: the machine charges Switch and Refill of it and leaves the rest to the workload (a
// run step after the sleep), as the workloads charge a pipe's read through the program figure
// pipe, whose non-blocking read holds its system call's return. The traced Timer holds none of
// it; the untraced one (the whole lateness less Switch and Refill) holds it all.
//
// A wake-up's latency, as Result measures it, runs from the moment its cause began (the waker's
// try_to_wake_up, or the timer's expiry) to the moment the woken thread makes its first progress:
// the IPI, the idle exit, the switch and the refill all count, as they do in what cyclictest or
// a thread that timestamps its own wake-up measures.
type Costs struct {
	// Wakeup is the waker's work of waking a thread (try_to_wake_up: select_task_rq, the
	// enqueue and check_preempt_curr; FreeBSD's sched_add with its sched_pickcpu): a thread
	// that wakes another through a pipe, or forks it, spends this long on its CPU first, and
	// the wakee becomes runnable when it is done. A timer's wake-up costs the CPU it fires on as
	// much, as interrupt time, when a thread runs there.
	Wakeup Cost
	// IPI is the latency of a reschedule IPI (smp_send_reschedule, FreeBSD's ipi_cpu with
	// IPI_AST or IPI_PREEMPT): a Resched for another CPU than the one whose event is being
	// handled takes effect this much later.
	IPI Cost
	// IPISend is what sending a reschedule IPI costs the CPU that sends it (the write to the
	// local APIC; on a virtual machine, the exit to the hypervisor that delivers it). A thread
	// whose wake-up of another sends it pays it after the wake-up, before its script goes on;
	// otherwise the thread running on the sending CPU loses it, as interrupt time.
	IPISend Cost
	// Timer is how late a sleep's timer takes effect after its expiry (hrtimer slack and
	// expiry, the timer interrupt's entry, hrtimer_wakeup's try_to_wake_up): a thread that
	// sleeps or waits for its next period is woken (made runnable) this much after its
	// deadline. Its wake-up latency counts from the deadline.
	Timer Cost
	// TimerExit is the timer interrupt's way from a sleeper's wake-up to the preempting
	// switch-in, less the switch and the refill: the rest of try_to_wake_up after its
	// sched_waking (the enqueue, check_preempt_wakeup_fair), the rest of hrtimer_interrupt
	// (other expiries, the clock event reprogrammed: on a virtual machine a VM exit for the
	// TSC-deadline write), irq_exit and schedule's way to the switch. It is charged only for a
	// timer that fires on a busy CPU (on an idle one the idle exit holds that way): as latency
	// before the sleeper runs when it preempts the CPU's thread at once, else as interrupt time
	// to the thread it interrupted. Profiles may leave it out (0: charged nowhere).
	TimerExit Cost
	// Switch is the time a CPU spends switching from one thread to another (context_switch and
	// the way back to the thread's own code); the thread coming in makes no progress
	// meanwhile. It is not charged when a CPU resumes the thread it ran last.
	Switch Cost
	// SwitchMM is the extra of a switch to a thread of another process than the one that ran
	// last on the CPU (switch_mm: another address space, the TLB flushed where the CPU has no
	// address-space tags): threads of one process switch for Switch alone. A workload thread's
	// process is its declaration's, or the one its process= names (workload.Thread.Process).
	SwitchMM Cost
	// Refill is the extra time a thread takes to refill its caches when it resumes on the CPU
	// it ran on last after other threads ran there: it makes no progress meanwhile. A thread
	// that resumes where nothing else ran pays nothing.
	Refill Cost
	// Migration is the refill after a thread moved to another CPU, by the level crossed,
	// instead of Refill: it makes no progress for this long after it first runs there.
	Migration MigrationCosts
	// Tick is the time a clock interrupt takes from the thread it interrupts (interrupt
	// time), the scheduler's work per tick and the periodic balance it triggers included. An
	// idle CPU is not charged: the kernels stop an idle CPU's periodic tick (Linux's
	// NO_HZ_IDLE, FreeBSD's kern.eventtimer.idletick=0), and what remains wakes nothing. A
	// draw is cut to half the policy's tick period (an interrupt cannot outlast the period it
	// belongs to: a longer gap a measurement finds at a tick is the CPU taken away, by a
	// hypervisor for instance), and New refuses a median that is not below it.
	Tick Cost
}

// IsZero reports whether c charges nothing.
func (c *Costs) IsZero() bool { return *c == Costs{} }

// validate reports what is wrong with c.
func (c *Costs) validate() error {
	for _, f := range []struct {
		name string
		c    *Cost
	}{
		{"Costs.Wakeup", &c.Wakeup}, {"Costs.IPI", &c.IPI}, {"Costs.IPISend", &c.IPISend}, {"Costs.Timer", &c.Timer},
		{"Costs.TimerExit", &c.TimerExit}, {"Costs.Switch", &c.Switch}, {"Costs.SwitchMM", &c.SwitchMM}, {"Costs.Refill", &c.Refill}, {"Costs.Migration.SMT", &c.Migration.SMT},
		{"Costs.Migration.LLC", &c.Migration.LLC}, {"Costs.Migration.Node", &c.Migration.Node},
		{"Costs.Migration.Remote", &c.Migration.Remote}, {"Costs.Tick", &c.Tick},
	} {
		if err := f.c.validate(f.name); err != nil {
			return err
		}
	}
	return nil
}
