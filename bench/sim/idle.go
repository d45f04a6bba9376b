package sim

// This file implements Idle, the machine options for what an idle CPU does: a deep sleep that
// takes time to leave, wake-up IPIs that are lost, and an idle loop that spins.

import (
	"fmt"
	"time"
)

// DefaultSpinFactor is the speed of a CPU while its SMT sibling spins in the idle loop, in
// 1/1024ths, when Idle.SpinFactor is 0: 512, the "about 50%" seed 002 reports for 4BSD with
// machdep.idle=spin on a hyper-threaded Core 2.
const DefaultSpinFactor = 512

// Idle describes the idle loop of every CPU. The zero value is an ideal one: an idle CPU runs
// the next thread the moment a reschedule reaches it, and its SMT siblings run at full speed.
//
// The three options reproduce what seed 002 (Bruce Evans on lost wake-ups of idle threads)
// measures. A CPU in a deep C-state wakes with a delay (ExitLatency). The wake-up IPI can be
// lost: FreeBSD's idle loop checks for work, then halts, and an IPI that lands between the check
// and the halt is lost until the next clock interrupt wakes the CPU, which then finds the
// thread (MissProbability, MissWindow). Spinning (machdep.idle=spin) loses no wake-up and
// wakes at once, but a spinning hardware thread competes for its core with its busy sibling
// (Spin, SpinFactor).
type Idle struct {
	// ExitLatency is how long a CPU that has been idle (and does not spin) takes to start the
	// thread it picks (the idle state's exit latency, drawn for each exit when it varies): the
	// thread makes no progress meanwhile, as with Costs.Switch, and CPUStats.IdleExit counts
	// it. Unlike a switch, the exit is not the thread's CPU time but its wait
	// (ThreadStats.WaitTime): the kernels start a thread's CPU time when the CPU, out of its
	// idle loop, runs it. The exit of a CPU that picks a thread its own timer woke is drawn at
	// the point of ExitLatency's distribution at which that timer's Costs.Timer was drawn: a
	// calibration measures the two together (a sleeper alone on an idle CPU) and the timer
	// apart (beside a busy one), and takes the exit as the difference quantile by quantile, so
	// drawn together they add up to the measured whole; drawn apart, their tails would stack.
	// At most MaxCost.
	ExitLatency Cost
	// PollWindow is how long an idle CPU polls for work before it halts (drawn for each exit
	// when it varies): a CPU that has been idle for at most that long starts the thread it
	// picks without ExitLatency. On a KVM guest that halts, the host's halt polling
	// (kvm.halt_poll_ns, 200 µs by default, adapted per vCPU) keeps the vCPU on its host CPU
	// for that long; cpuidle's POLL state and the haltpoll governor do the same on their
	// machines. 0 means no polling: every idle period ends with ExitLatency. At most MaxCost.
	PollWindow Cost
	// IPICurve, if given, is the latency of a reschedule IPI to an idle CPU by how long the CPU
	// has been idle when the IPI is sent, points in ascending order of idle time: such an IPI
	// draws from it (one draw from the cost stream, as Costs.IPI's) instead of from Costs.IPI,
	// which stays the latency of an IPI to a busy CPU. Between two points the latency is
	// interpolated quantile by quantile: the point u of the distributions drawn, the two
	// points' costs at u, and the line between them at the idle time (truncated to the
	// nanosecond); before the first point it is the first point's, at or after the last the
	// last's. ExitLatency still charges the exit of a CPU idle beyond PollWindow: a point
	// beyond the window stands for the IPI without the exit (the calibration takes the exit
	// away there, as it does from Costs.IPI), so that nothing is charged twice.
	//
	// It stands for KVM's halt polling of a guest that halts at once (cpuidle-haltpoll with
	// guest_halt_poll_ns=0): virt/kvm/kvm_main.c's kvm_vcpu_halt polls the halted vCPU
	// (kvm_vcpu_check_block) for up to its halt_poll_ns before kvm_vcpu_block puts its thread
	// to sleep, and adapts that window to the halts it sees: a halt shorter than the module's
	// kvm.halt_poll_ns (the maximum, 200 µs by default) and than the window grows it
	// (grow_halt_poll_ns: times halt_poll_ns_grow, 2, from halt_poll_ns_grow_start, 10 µs), a
	// halt beyond the maximum shrinks it (shrink_halt_poll_ns). A wake-up that finds the vCPU
	// polling is cheaper the sooner it comes, and one after the window pays the host's wake-up
	// of the vCPU's thread; a measured curve holds both, at the window the workload that
	// measured it left behind. At most MaxCost each; nil means none.
	IPICurve []IdleIPI
	// MissProbability is the probability, 0..1, that a reschedule IPI sent to an idle CPU that
	// does not spin is lost: the CPU stays idle until its next clock interrupt, which does the
	// reschedule. Each IPI draws from the machine's own random stream, derived from
	// Config.Seed, so a run stays deterministic; a probability of 0 draws nothing. Only IPIs
	// are lost: a CPU's reschedule of itself (its own timer or clock interrupt) never is. The
	// trace shows the lost IPI's Resched record with no IPI or switch after it; the switch comes
	// at the CPU's next clock interrupt.
	MissProbability float64
	// MissWindow limits the loss to IPIs sent within this long after the CPU last entered its
	// idle loop, the race between the idle loop's check for work and its halt; 0 means at any
	// time. The loop is entered when the CPU goes idle and again after each reschedule that
	// finds nothing, such as a CPU that forward_wakeup woke and another CPU beat to the thread:
	// FreeBSD's sched_idletd then calls cpu_idle again, whose store of the idle state and check
	// of sched_runnable() race with the waker's runq_add and cpu_idle_wakeup's read of that
	// state (FreeBSD 12's sys/x86/x86/cpu_machdep.c: plain stores and loads, with no fence
	// between either side's store and its load, which x86 lets pass each other). At most
	// MaxTime.
	MissWindow time.Duration
	// MissTimer is how long a CPU that lost an IPI sleeps on its own timer: 0 means until its
	// next clock interrupt, as with a periodic timer or FreeBSD's busy idle path (cpu_idle(1):
	// mwait with the timer left running). FreeBSD 12's tickless idle (cpu_idle(0) calls
	// cpu_idleclock; sys/kern/kern_clocksource.c, getnextcpuevent(idle)) drops the statclock
	// from an idle CPU's timer and skips hardclocks for hz/2 periods, so its next interrupt
	// comes up to half a second after it went idle unless a callout is due sooner. With a
	// MissTimer, the lost IPI's CPU skips its clock interrupts (Policy.Tick) and wakes at the
	// first multiple of MissTimer after it last entered its idle loop that is later than the
	// loss, or sooner at a later IPI that is not lost or a timer of its own; the machine keeps
	// the first CPU's clock interrupts, from which the policies run their housekeeping.
	// Meanwhile the stranded thread waits for another CPU to reschedule (a slice's end, a
	// sleep, an exit). At most MaxTime.
	MissTimer time.Duration
	// Spin makes idle CPUs spin instead of halting: no exit latency and no lost IPI, but each
	// SMT sibling of a spinning CPU runs at SpinFactor/1024 of its speed while no sibling is
	// busy (a busy sibling slows it by Config.SMTFactor instead).
	Spin bool
	// SpinFactor is the speed of a CPU beside a spinning sibling, in 1/1024ths, 1..1024; 0
	// means DefaultSpinFactor.
	SpinFactor int
}

func (d *Idle) validate() error {
	if err := d.ExitLatency.validate("Config.Idle.ExitLatency"); err != nil {
		return err
	}
	if err := d.PollWindow.validate("Config.Idle.PollWindow"); err != nil {
		return err
	}
	if err := validateCurve(d.IPICurve); err != nil {
		return err
	}
	switch {
	case !(d.MissProbability >= 0 && d.MissProbability <= 1):
		return fmt.Errorf("sim: Config.Idle.MissProbability %v outside 0..1", d.MissProbability)
	case d.MissWindow < 0 || d.MissWindow > MaxTime:
		return fmt.Errorf("sim: Config.Idle.MissWindow %v outside 0..%v", d.MissWindow, MaxTime)
	case d.MissTimer < 0 || d.MissTimer > MaxTime:
		return fmt.Errorf("sim: Config.Idle.MissTimer %v outside 0..%v", d.MissTimer, MaxTime)
	case d.SpinFactor < 0 || d.SpinFactor > 1024:
		return fmt.Errorf("sim: Config.Idle.SpinFactor %d outside 0..1024", d.SpinFactor)
	}
	return nil
}

// missThreshold returns MissProbability as a threshold on 53-bit random numbers.
func (d *Idle) missThreshold() uint64 {
	return uint64(d.MissProbability * (1 << 53))
}

// missed reports whether a reschedule IPI to the idle CPU c is lost, drawing from the machine's
// idle stream only when the option is on and the CPU can miss it.
func (m *Machine) missed(c *cpu) bool {
	if m.missAt == 0 || m.cfg.Idle.Spin || c.busy {
		return false
	}
	if w := int64(m.cfg.Idle.MissWindow); w > 0 && m.now-c.idleAt > w {
		return false
	}
	return m.idleRng.Uint64()>>11 < m.missAt
}

// lostUntil returns when the idle CPU c, whose IPI is lost now, next wakes by itself: its next
// clock interrupt, or with Idle.MissTimer the timer it armed when it last entered its idle loop
// (re-armed each MissTimer while it stays idle).
func (m *Machine) lostUntil(c *cpu) int64 {
	d := int64(m.cfg.Idle.MissTimer)
	if d <= 0 {
		return m.tickAt
	}
	return c.idleAt + d*((m.now-c.idleAt)/d+1)
}
