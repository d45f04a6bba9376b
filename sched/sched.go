package sched

import (
	"fmt"
	"strconv"

	"github.com/schedkit/schedkit/topology"
)

// An ID identifies a thread of one machine. IDs are small and dense (0, 1, 2, …) so that
// policies can keep per-thread state in slices indexed by ID.
type ID int32

// String formats id as "t7".
func (id ID) String() string {
	var b [24]byte // one allocation: the string, where "t" + strconv.Itoa made two
	return string(strconv.AppendInt(append(b[:0], 't'), int64(id), 10))
}

// A Class is a scheduling class: the Linux policy (sched_setscheduler) or its FreeBSD rtprio
// equivalent.
type Class uint8

const (
	// Normal is time sharing: SCHED_OTHER on Linux, RTP_PRIO_NORMAL (the timeshare class) on
	// FreeBSD.
	Normal Class = iota
	// Batch is time sharing for throughput: SCHED_BATCH on Linux (never wakeup-preempts);
	// FreeBSD has no such class and treats it as Normal.
	Batch
	// Idle runs only when nothing else wants the CPU, softly on Linux (SCHED_IDLE: weight 3)
	// and strictly on FreeBSD (RTP_PRIO_IDLE: priorities 224-255).
	Idle
	// FIFO is fixed-priority real time without time slicing: SCHED_FIFO, RTP_PRIO_FIFO.
	FIFO
	// RR is fixed-priority real time with round-robin slicing: SCHED_RR, RTP_PRIO_REALTIME.
	RR
)

var classNames = [...]string{Normal: "normal", Batch: "batch", Idle: "idle", FIFO: "fifo", RR: "rr"}

// String returns the class's name in lower case: "normal", "batch", "idle", "fifo", "rr".
func (c Class) String() string { return EnumName(classNames[:], c, "class") }

// RealTime reports whether c is FIFO or RR.
func (c Class) RealTime() bool { return c == FIFO || c == RR }

// MarshalText implements encoding.TextMarshaler with the names of [Class.String].
func (c Class) MarshalText() ([]byte, error) {
	if int(c) >= len(classNames) {
		return nil, fmt.Errorf("sched: invalid class %d", c)
	}
	return []byte(classNames[c]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler; see [ParseClass].
func (c *Class) UnmarshalText(text []byte) error {
	x, err := ParseClass(string(text))
	if err != nil {
		return err
	}
	*c = x
	return nil
}

// ParseClass returns the class named s ("normal", "batch", "idle", "fifo", "rr"; "other" is
// accepted for normal). The error names s.
func ParseClass(s string) (Class, error) {
	if s == "other" {
		return Normal, nil
	}
	for i, n := range classNames {
		if n == s {
			return Class(i), nil
		}
	}
	return 0, fmt.Errorf("sched: unknown scheduling class %q (want normal, batch, idle, fifo or rr)", s)
}

// Nice and real-time priority limits. FreeBSD accepts nice 20 (PRIO_MAX) where Linux stops at
// 19; each policy documents how it maps values outside its own range.
const (
	MinNice   = -20 // PRIO_MIN
	MaxNice   = 20  // PRIO_MAX on FreeBSD; Linux clamps it to 19
	MinRTPrio = 1   // sched_get_priority_min(SCHED_FIFO) on Linux
	MaxRTPrio = 99  // sched_get_priority_max(SCHED_FIFO) on Linux; FreeBSD's is 31
	// MaxFreeBSDRTPrio is RTP_PRIO_MAX, the largest (least important) rtprio(2) level; the
	// smallest, RTP_PRIO_MIN, is 0.
	MaxFreeBSDRTPrio = 31
)

// An RTScale names the system call a real-time priority was written for: the kernels number
// their real-time levels differently, and a workload says what the program asked for, leaving
// the mapping (or the refusal) to the policy.
type RTScale uint8

const (
	// RTLinux is Linux's sched_setscheduler(2) sched_priority: MinRTPrio (1, least important)
	// through MaxRTPrio (99, most important). It is the zero value.
	RTLinux RTScale = iota
	// RTFreeBSD is FreeBSD's rtprio(2) rtp.prio: 0 (RTP_PRIO_MIN, most important) through
	// MaxFreeBSDRTPrio (31, RTP_PRIO_MAX, least important). FreeBSD's POSIX interface,
	// sched_setscheduler(2) with sched_priority p in 0..31, is rtprio 31 - p (p4prio_to_rtpprio
	// in sys/kern/ksched.c).
	RTFreeBSD
)

var rtScaleNames = [...]string{RTLinux: "linux", RTFreeBSD: "freebsd"}

// String returns "linux" or "freebsd".
func (s RTScale) String() string { return EnumName(rtScaleNames[:], s, "RTScale") }

// Range returns the smallest and largest RTPrio the scale accepts.
func (s RTScale) Range() (lo, hi int) {
	if s == RTFreeBSD {
		return 0, MaxFreeBSDRTPrio
	}
	return MinRTPrio, MaxRTPrio
}

// A GroupID identifies a control group. [RootGroup] always exists.
type GroupID int32

// RootGroup is the root of the group hierarchy, the group every thread belongs to by default.
const RootGroup GroupID = 0

// Attr is what a thread asks of the scheduler: its class, nice value, real-time priority, the
// CPUs it may run on and its control group.
type Attr struct {
	// Class is the scheduling class; the zero value is Normal.
	Class Class
	// Nice is the nice value, MinNice..MaxNice; it matters for Normal and Batch threads.
	Nice int
	// RTPrio is the real-time priority of a FIFO or RR thread, numbered as RTScale says:
	// sched_priority 1..99 (larger is more important) for RTLinux, rtprio(2)'s 0..31 (smaller is
	// more important) for RTFreeBSD. Ignored for other classes. Each policy maps the scales it
	// can honour onto its own priorities and refuses the others (see its CheckAttr).
	RTPrio int
	// RTScale is the numbering of RTPrio; the zero value is RTLinux.
	RTScale RTScale
	// Affinity is the set of CPUs the thread may run on; the empty set means every CPU.
	Affinity topology.CPUSet
	// Group is the thread's control group; the zero value is RootGroup.
	Group GroupID
	// Slice is a requested time slice in nanoseconds (sched_attr.sched_runtime, honoured by
	// EEVDF in Linux 6.12 and later); 0 means the policy's default.
	Slice int64
}

// Validate reports the first field of a that is out of range, or nil.
func (a Attr) Validate() error { return a.check() }

// check is Validate through a pointer: the per-call checks ([Contract.Attr],
// [CheckFreeBSDAttr]) run it without copying the attributes and their CPU set.
func (a *Attr) check() error {
	rtLo, rtHi := a.RTScale.Range()
	switch {
	case int(a.Class) >= len(classNames):
		return fmt.Errorf("sched: invalid class %d", a.Class)
	case a.Nice < MinNice || a.Nice > MaxNice:
		return fmt.Errorf("sched: nice %d outside %d..%d", a.Nice, MinNice, MaxNice)
	case int(a.RTScale) >= len(rtScaleNames):
		return fmt.Errorf("sched: invalid real-time scale %d", a.RTScale)
	case a.Class.RealTime() && (a.RTPrio < rtLo || a.RTPrio > rtHi):
		return fmt.Errorf("sched: %s priority %d outside %d..%d (%s scale)", a.Class, a.RTPrio, rtLo, rtHi, a.RTScale)
	case a.Slice < 0:
		return fmt.Errorf("sched: negative slice %d", a.Slice)
	}
	return nil
}

// Allowed reports whether a thread with these attributes may run on cpu: Affinity is empty or
// contains cpu.
func (a *Attr) Allowed(cpu topology.CPU) bool {
	return a.Affinity.IsEmpty() || a.Affinity.Has(cpu)
}

// A Group is a control group of the cgroup v2 cpu controller.
type Group struct {
	// ID names the group; it must not be RootGroup, which always exists.
	ID GroupID
	// Parent is the group that contains this one.
	Parent GroupID
	// Weight is cpu.weight, 1..10000; 100 is the default and equals one nice-0 thread.
	Weight uint64
	// Idle is cpu.idle: the group competes like a SCHED_IDLE thread at its parent's level.
	Idle bool
}

// Cgroup cpu.weight limits (kernel/cgroup/cgroup.c: CGROUP_WEIGHT_MIN/DFL/MAX).
const (
	MinWeight     = 1
	DefaultWeight = 100
	MaxWeight     = 10000
)

// Validate reports the first field of g that is out of range, or nil.
func (g Group) Validate() error {
	switch {
	case g.ID == RootGroup:
		return fmt.Errorf("sched: group id %d is the root group", g.ID)
	case g.ID < 0 || g.Parent < 0:
		return fmt.Errorf("sched: negative group id in group %d (parent %d)", g.ID, g.Parent)
	case g.Weight < MinWeight || g.Weight > MaxWeight:
		return fmt.Errorf("sched: group %d: weight %d outside %d..%d", g.ID, g.Weight, MinWeight, MaxWeight)
	}
	return nil
}

// A StopReason says why the thread running on a CPU stopped running.
type StopReason uint8

const (
	// Sleep: the thread blocked or slept voluntarily (FreeBSD SW_VOL, Linux dequeue with
	// DEQUEUE_SLEEP). It is no longer runnable until a Wakeup.
	Sleep StopReason = iota
	// Preempt: the machine rescheduled the CPU after [Env.Resched]. The thread stays runnable
	// and the policy queues it again (FreeBSD puts it at the head of its queue, SRQ_PREEMPTED).
	Preempt
	// Yield: the thread called sched_yield. It stays runnable.
	Yield
	// Exit: the thread exited; the policy forgets it after this call.
	Exit
)

var stopNames = [...]string{Sleep: "sleep", Preempt: "preempt", Yield: "yield", Exit: "exit"}

// String returns "sleep", "preempt", "yield" or "exit".
func (r StopReason) String() string { return EnumName(stopNames[:], r, "stop") }

// Runnable reports whether a thread stopped for reason r is still runnable (Preempt, Yield).
func (r StopReason) Runnable() bool { return r == Preempt || r == Yield }

// WakeFlags qualify a wake-up.
type WakeFlags uint8

const (
	// WakeFork marks the first wake-up of a newly created thread (WF_FORK; FreeBSD sched_add
	// after sched_fork).
	WakeFork WakeFlags = 1 << iota
	// WakeSync says the waker is about to sleep (WF_SYNC), as in a pipe hand-off.
	WakeSync
)

// Config describes the machine a policy runs on.
type Config struct {
	// Topology is the machine's CPU topology.
	Topology *topology.Topology
	// Hz is the rate of the periodic clock interrupt (FreeBSD hz, Linux CONFIG_HZ).
	Hz int
	// StatHz is the rate of FreeBSD's statistics clock (stathz, 127 on x86 by default),
	// which drives ULE's and 4BSD's accounting; 0 means Hz. It may exceed Hz: with a
	// one-shot event timer FreeBSD sets stathz to about 127 whatever hz is
	// (cpu_initclocks_bsp in sys/kern/kern_clocksource.c), so a kernel with hz=100 has
	// stathz 127.
	StatHz int
	// Seed seeds the policy's own random source (tie-breaks, balancer jitter), so that runs
	// are reproducible.
	Seed uint64
}

// Validate reports what is wrong with c, or nil: a missing topology, or a clock rate that is
// not positive or above MaxHz.
func (c Config) Validate() error {
	switch {
	case c.Topology == nil:
		return fmt.Errorf("sched: Config without a topology")
	case c.Hz <= 0:
		return fmt.Errorf("sched: Config.Hz %d is not positive", c.Hz)
	case c.Hz > MaxHz:
		return fmt.Errorf("sched: Config.Hz %d is above MaxHz (%d)", c.Hz, MaxHz)
	case c.StatHz < 0:
		return fmt.Errorf("sched: Config.StatHz %d is negative", c.StatHz)
	case c.StatHz > MaxHz:
		return fmt.Errorf("sched: Config.StatHz %d is above MaxHz (%d)", c.StatHz, MaxHz)
	}
	return nil
}

// MaxHz is the largest clock rate a Config may ask for: a tick of one microsecond, far above
// any kernel's (Linux's CONFIG_HZ stops at 1000, FreeBSD's hz defaults to 1000), and low
// enough that every conversion of time into ticks ([Ticks]) is exact without overflow.
const MaxHz = 1_000_000

// RealStatHz returns StatHz, or Hz when StatHz is 0: FreeBSD's realstathz.
func (c Config) RealStatHz() int {
	if c.StatHz == 0 {
		return c.Hz
	}
	return c.StatHz
}

// Env is what a machine offers a policy. A policy receives it once, when it is started, and may
// call it from any of its methods.
type Env interface {
	// Resched asks the machine to reschedule cpu as soon as it can: to stop the thread running
	// there (with StopReason Preempt) and ask the policy again which thread to run, or, if the
	// CPU is idle, to wake it up and ask. A remote CPU may be reached only after an IPI's
	// latency. Calling it for a CPU already due to reschedule has no further effect.
	Resched(cpu topology.CPU)
	// Explaining reports whether the machine records explanations; a policy builds the text for
	// Explain only when it does, so explanations cost nothing otherwise.
	Explaining() bool
	// Explain records why the policy decided something about thread tid on cpu (tid may be -1
	// when no thread is concerned).
	Explain(cpu topology.CPU, tid ID, why string)
}

// A ReschedSetter is an Env that can reschedule a set of CPUs in one call, as FreeBSD's
// ipi_selected interrupts the CPUs of a cpuset with one call. A policy that reschedules several
// CPUs at once, such as 4BSD's forward_wakeup, which wakes every idle CPU, may check whether
// its Env offers this and then pay for the set once instead of once per CPU; it falls back to
// Resched otherwise. The machine still reaches each CPU on its own: only the call is shared.
type ReschedSetter interface {
	Env
	// ReschedSet is exactly equivalent to calling Resched for each CPU of set in ascending
	// order: the same effect, in the same order, with the same panics.
	ReschedSet(set topology.CPUSet)
}
