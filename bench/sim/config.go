package sim

// This file implements Config, the description of the machine a simulation runs on.

import (
	"fmt"
	"time"

	"github.com/schedkit/schedkit/topology"
)

// DefaultSMTFactor is the speed of each of two SMT siblings while both are busy, in 1/1024ths of
// the speed of one running alone: 640, that is 0.625 each and 1.25 together. Measurements put the
// throughput of two hyper-threads of one core at 1.1-1.3 times that of one thread, depending on
// the program: Intel's own figure is "up to 30%" (Marr et al., "Hyper-Threading Technology
// Architecture and Microarchitecture", Intel Technology Journal 6(1), 2002), and Bulpin and Pratt
// measured a mean combined speed-up of about 1.2 over SPEC CPU2000 pairs ("Multiprogramming
// performance of the Pentium 4 with Hyper-Threading", WDDD 2004). 1.25 sits in that range.
const DefaultSMTFactor = 640

// MaxCost is the largest of each of the [Costs] (an hour of simulated time), MaxTime the latest
// time a run may reach (2^62 ns, about 146 years), and MaxThreadsLimit the largest
// Config.MaxThreads (2^24). The machine adds costs, durations (at most workload.MaxDuration) and
// bounds to times in int64 nanoseconds; within these limits no such sum can overflow, so that
// [Config.Validate] refuses exactly the inputs that could wrap an event time negative and stall a
// run (a Costs.Switch of math.MaxInt64 would otherwise make every switch end before it began).
const (
	MaxCost         = time.Hour
	MaxTime         = time.Duration(1 << 62)
	MaxThreadsLimit = 1 << 24
)

// DefaultHz is the default clock rate: FreeBSD's hz on amd64, and Linux's CONFIG_HZ=1000.
const DefaultHz = 1000

// A TraceMode says how much of the trace a run keeps.
type TraceMode uint8

const (
	// TraceOff records nothing; Result.Trace is nil.
	TraceOff TraceMode = iota
	// TraceHash keeps only the trace's hash (Trace.Hash), at no memory cost: enough to check that
	// two runs are identical.
	TraceHash
	// TraceFull keeps every record.
	TraceFull
)

// Checks are the bounds of the checkers; a zero bound turns its checker off. See [ViolationKind].
type Checks struct {
	// WorkConservation is how long a CPU may stay idle while a thread allowed to run on it has
	// been runnable but not running for as long (the invariant of Lozi et al., "The Linux
	// Scheduler: a Decade of Wasted Cores", EuroSys 2016). The machine looks at each clock
	// interrupt of an idle CPU, so a violation is seen once it lasts the bound plus at most one
	// tick period.
	WorkConservation time.Duration
	// Starvation is how long a thread may stay runnable without running.
	Starvation time.Duration
}

// Config describes the machine: CPUs and their speeds, clock rates, costs, and what to record.
type Config struct {
	// Topology is the machine's CPU topology; it is required, and must be built by package
	// topology (a zero topology.Topology has no CPUs and is refused).
	Topology *topology.Topology
	// Hz is the periodic clock rate the policy is told about (FreeBSD hz, Linux CONFIG_HZ); 0 means
	// DefaultHz.
	Hz int
	// StatHz is FreeBSD's statistics clock rate (127 on x86); 0 means Hz. The machine calls
	// Policy.Tick at the rate Policy.TickHz returns, which for ULE and 4BSD is this one.
	StatHz int
	// Seed seeds the workload's random durations and is passed to the policy.
	Seed uint64
	// Speed is the speed of each CPU, indexed by CPU id, in 1/1024ths of the fastest CPU: a thread
	// alone on a CPU of speed s does s/1024 ns of work per ns. Nil means the capacity the topology
	// gives each CPU (1024 unless it is heterogeneous). Values must be in 1..4096.
	Speed []int
	// SMTFactor is the speed of each SMT sibling while another thread of the same core is busy, in
	// 1/1024ths; 0 means DefaultSMTFactor, 1024 turns the slowdown off.
	SMTFactor int
	// Costs are the costs of the path from a decision to its effect; the zero value charges
	// nothing (the ideal machine). A measured Profile sets them (Profile.Apply).
	Costs Costs
	// Checks are the checkers' bounds.
	Checks Checks
	// Trace says how much of the trace to keep.
	Trace TraceMode
	// Explain makes the policy's explanations (sched.Env.Explain) part of the trace; it needs a
	// Trace other than TraceOff.
	Explain bool
	// FlattenGroups runs every thread in the root group and creates no control groups, for
	// policies without group scheduling (ULE, 4BSD) on workloads that declare groups.
	FlattenGroups bool
	// MaxThreads bounds the number of threads forks may create; 0 means 1<<20, and at most
	// MaxThreadsLimit. A run that exceeds it stops with an error.
	MaxThreads int
	// ExactSamples is how many samples of each latency series (see [Series]) a thread keeps
	// exactly before its [Histogram] holds only bucket counts; 0 means DefaultExactSamples, and
	// at most 1<<20.
	ExactSamples int
	// Idle describes what an idle CPU does: sleep deeply, miss wake-ups, spin. The zero value
	// is an ideal idle loop that wakes at once.
	Idle Idle
	// EveryTick makes the machine call Policy.Tick on every CPU at every clock interrupt, also
	// on the idle CPUs whose interrupts a [TicklessIdle] policy said would do nothing. Results
	// are the same either way (the policy promises it, and the tests check it); EveryTick is
	// for checking that promise, at the cost of the calls it spares.
	EveryTick bool
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.Hz == 0 {
		d.Hz = DefaultHz
	}
	if d.SMTFactor == 0 {
		d.SMTFactor = DefaultSMTFactor
	}
	if d.MaxThreads == 0 {
		d.MaxThreads = 1 << 20
	}
	if d.ExactSamples == 0 {
		d.ExactSamples = DefaultExactSamples
	}
	return d
}

// Validate reports what is wrong with c, or nil: a missing topology, rates, speeds and factors
// out of range, negative costs or bounds, costs above [MaxCost], bounds above [MaxTime], limits
// out of range and [Idle] options out of range.
func (c *Config) Validate() error {
	d := c.withDefaults()
	switch {
	case d.Topology == nil:
		return fmt.Errorf("sim: Config without a topology")
	case d.Topology.NumCPUs() == 0:
		return fmt.Errorf("sim: Config.Topology has no CPUs (build it with a constructor of package topology)")
	case d.Hz < 0 || d.Hz > 1_000_000:
		return fmt.Errorf("sim: Config.Hz %d outside 1..1000000", c.Hz)
	case d.StatHz < 0 || d.StatHz > 1_000_000:
		return fmt.Errorf("sim: Config.StatHz %d outside 0..1000000", c.StatHz)
	case d.SMTFactor < 1 || d.SMTFactor > 1024:
		return fmt.Errorf("sim: Config.SMTFactor %d outside 1..1024", c.SMTFactor)
	case d.Speed != nil && len(d.Speed) != d.Topology.NumIDs():
		return fmt.Errorf("sim: Config.Speed has %d entries for %d CPU ids", len(d.Speed), d.Topology.NumIDs())
	case d.Checks.WorkConservation < 0 || d.Checks.Starvation < 0:
		return fmt.Errorf("sim: negative checker bound in %+v", d.Checks)
	case d.Checks.WorkConservation > MaxTime || d.Checks.Starvation > MaxTime:
		return fmt.Errorf("sim: checker bound above MaxTime in %+v", d.Checks)
	case d.Trace > TraceFull:
		return fmt.Errorf("sim: unknown trace mode %d", d.Trace)
	case d.Explain && d.Trace == TraceOff:
		return fmt.Errorf("sim: Config.Explain needs a trace")
	case d.MaxThreads < 0 || d.MaxThreads > MaxThreadsLimit:
		return fmt.Errorf("sim: Config.MaxThreads %d outside 0..%d", d.MaxThreads, MaxThreadsLimit)
	case d.ExactSamples < 0 || d.ExactSamples > 1<<20:
		return fmt.Errorf("sim: Config.ExactSamples %d outside 0..%d", d.ExactSamples, 1<<20)
	}
	if err := d.Costs.validate(); err != nil {
		return err
	}
	if err := d.Idle.validate(); err != nil {
		return err
	}
	for id, s := range d.Speed {
		if d.Topology.Has(topology.CPU(id)) && (s < 1 || s > 4096) {
			return fmt.Errorf("sim: Config.Speed[%d] = %d outside 1..4096", id, s)
		}
	}
	return nil
}
