package host

// This file implements how the model-vs-host table tells a quiet machine from a busy one: the
// share of the machine's CPU time that something other than a row's own host runs took while
// they ran.

import (
	"fmt"
	"math"
	"time"
)

// BusyLoad is the one-minute load average above which the table flags a row's host runs as
// made on a busy machine, where the share of the CPU time other programs took could not be
// measured (Row.OthersMeasured is false).
const BusyLoad = 0.5

// BusyShare is the share of the machine's CPU time, taken by anything other than a row's own
// host runs while they ran, above which the table flags the row's host runs as made on a busy
// machine: 0.05 is a tenth of one CPU on a two-CPU machine.
const BusyShare = 0.05

// Busy reports whether r's host runs shared the machine: something other than the runs took
// more than BusyShare of its CPU time while they ran, or, where that was not measured, the
// one-minute load average rose above BusyLoad. The load average counts the runs' own threads
// (a hackbench row's forty tasks a group raise it to 10 and more on a quiet machine), so it is
// only the fallback.
func (r *Row) Busy() bool {
	if r.OthersMeasured {
		return r.Others > BusyShare
	}
	return r.Load[1] > BusyLoad
}

// A cpuMark is where the machine's CPU time and this process's stood at one moment, for
// othersShare: ok is false where they could not be read.
type cpuMark struct {
	ok   bool
	at   time.Time
	cpus int
	// busy is the non-idle time of every CPU (/proc/stat: user, nice, system, irq, softirq
	// and steal); own is this process's CPU time and that of its children it has waited for
	// (getrusage of RUSAGE_SELF and RUSAGE_CHILDREN).
	busy, own time.Duration
}

// othersShare returns the share of the machine's CPU time between marks a and b that went to
// anything but this process and the children it reaped: (busy − own) / (elapsed × CPUs), in
// [0, 1]. That is other programs, the kernel's threads (including work the runs caused that the
// kernel does in its own threads) and, in a virtual machine, the time the hypervisor took
// (steal). /proc/stat counts in clock ticks of 10 ms, so the share of a short interval is
// coarse: ±20 ms over the interval at most on each CPU. Where the kernel samples its CPU time
// at the clock interrupt (no CONFIG_IRQ_TIME_ACCOUNTING, as on the project's CI machine), a run
// whose threads wake on timers near the tick can be sampled busy for more than it ran: on that
// machine seed 004's probe rows read 6-14 % others on an otherwise idle machine. The flag errs
// towards busy. It returns ok false when either mark is missing or no time passed.
func othersShare(a, b cpuMark) (share float64, ok bool) {
	var t othersTally
	t.add(a, b)
	return t.share()
}

// An othersTally sums what othersShare divides over several intervals: the CPU time others took
// in each and the machine's capacity (elapsed × CPUs), so that a row whose host runs are spread
// over the table's rounds (see Compare) gets one share of all its runs' time.
type othersTally struct {
	others, capacity time.Duration
	// intervals counts the intervals added; unread is set by one whose marks were missing,
	// of different CPU counts, or no time apart.
	intervals int
	unread    bool
}

// add adds the interval from mark a to mark b.
func (t *othersTally) add(a, b cpuMark) {
	t.intervals++
	elapsed := b.at.Sub(a.at)
	if !a.ok || !b.ok || a.cpus != b.cpus || a.cpus <= 0 || elapsed <= 0 {
		t.unread = true
		return
	}
	t.others += (b.busy - a.busy) - (b.own - a.own)
	t.capacity += elapsed * time.Duration(a.cpus)
}

// share returns others / capacity over the intervals added, in [0, 1], and false where an
// interval could not be read or none was added.
func (t *othersTally) share() (float64, bool) {
	if t.unread || t.intervals == 0 || t.capacity <= 0 {
		return 0, false
	}
	return math.Min(math.Max(float64(t.others)/float64(t.capacity), 0), 1), true
}

// loadCell returns the table's load column for r: the load average's range, the share others
// took where measured, and "busy".
func loadCell(r *Row) string {
	load := fmt.Sprintf("%.2f-%.2f", r.Load[0], r.Load[1])
	if r.OthersMeasured {
		load += fmt.Sprintf(", others %.1f%%", 100*r.Others)
	}
	if r.Busy() {
		load += " busy"
	}
	return load
}
