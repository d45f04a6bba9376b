package sim

// This file implements the checkers: work conservation and starvation, watched during the run,
// and the conservation of threads, checked on demand by Machine.Check.

import (
	"fmt"
	"strings"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// An Invariant is a property of a correct scheduler that a checker watches.
type Invariant uint8

const (
	// WorkConservation: no CPU stays idle for longer than Checks.WorkConservation while a thread
	// allowed on it has been runnable, and not running, for as long (Lozi et al., "The Linux
	// Scheduler: a Decade of Wasted Cores", EuroSys 2016: "no core remains idle while another
	// core's run queue has waiting threads").
	WorkConservation Invariant = iota
	// Starvation: no thread stays runnable without running for longer than Checks.Starvation.
	Starvation
	// ThreadConservation: the policy neither loses nor duplicates threads. The machine sees a
	// duplicate when Pick returns a thread that is not runnable (running elsewhere, blocked,
	// exited, unknown) or not allowed on the CPU; Machine.Check sees a loss when a policy that is a
	// Queuer holds a different number of threads from the machine's count of runnable threads
	// that are not running. A lost thread also shows as starvation.
	ThreadConservation
	// NumInvariants is the number of invariants.
	NumInvariants = int(iota)
)

var invariantNames = [NumInvariants]string{"work-conservation", "starvation", "thread-conservation"}

// String returns the hyphenated name of v, such as "work-conservation".
func (v Invariant) String() string { return sched.EnumName(invariantNames[:], v, "invariant") }

// A Violation is one breach of an invariant.
type Violation struct {
	// Invariant is what was breached.
	Invariant Invariant
	// Time is when the machine noticed.
	Time int64
	// CPU is the idle CPU (WorkConservation), the CPU the thread was picked for
	// (ThreadConservation) or where it finally ran (Starvation), or NoCPU.
	CPU topology.CPU
	// Thread is the thread concerned, or -1 if the policy picked an id that does not exist.
	Thread sched.ID
	// Wait is how long the thread had been runnable without running when noticed.
	Wait int64
}

// String describes v in one line.
func (v Violation) String() string {
	when := fmt.Sprintf("%d.%09ds", v.Time/1e9, v.Time%1e9)
	switch v.Invariant {
	case WorkConservation:
		return fmt.Sprintf("%s: %s: %v idle while %v waited %dns", when, v.Invariant, v.CPU, v.Thread, v.Wait)
	case Starvation:
		return fmt.Sprintf("%s: %s: %v runnable for %dns", when, v.Invariant, v.Thread, v.Wait)
	}
	return fmt.Sprintf("%s: %s: picked %v for %v, which is not a runnable thread allowed there",
		when, v.Invariant, v.Thread, v.CPU)
}

// maxViolations is how many violations a run keeps in detail; it counts them all.
const maxViolations = 1000

type violations struct {
	list  []Violation
	count [NumInvariants]int
}

func (m *Machine) violate(inv Invariant, id topology.CPU, tid int32, wait int64) {
	m.viol.count[inv]++
	if tid >= 0 && int(tid) < len(m.threads) {
		m.threads[tid].reported |= 1 << inv
	}
	if len(m.viol.list) < maxViolations {
		m.viol.list = append(m.viol.list, Violation{Invariant: inv, Time: m.now, CPU: id, Thread: sched.ID(tid), Wait: wait})
	}
	if m.trace != nil {
		m.trace.add(Record{Time: m.now, Kind: KindViolation, CPU: id, Thread: sched.ID(tid), Other: -1, Arg: uint8(inv)})
	}
}

// checkTick runs the checkers on a clock interrupt of CPU id. The wait list is in order of the
// time each thread became runnable, so only its long-waiting head is visited.
func (m *Machine) checkTick(id topology.CPU) {
	if b := int64(m.cfg.Checks.Starvation); b > 0 && id == m.first {
		for tid := m.waitHead; tid != nobody; tid = m.threads[tid].waitNext {
			t := &m.threads[tid]
			if m.now-t.since <= b {
				break
			}
			if t.reported&(1<<Starvation) == 0 {
				m.violate(Starvation, NoCPU, tid, m.now-t.since)
			}
		}
	}
	c := &m.cpus[id]
	if b := int64(m.cfg.Checks.WorkConservation); b > 0 && !c.busy && m.now-c.since > b {
		for tid := m.waitHead; tid != nobody; tid = m.threads[tid].waitNext {
			t := &m.threads[tid]
			if m.now-t.since <= b {
				break
			}
			if t.reported&(1<<WorkConservation) == 0 && m.allowed(t, id) {
				m.violate(WorkConservation, id, tid, m.now-t.since)
			}
		}
	}
}

// Check verifies the conservation of threads between events and returns an error describing the
// first breach, or nil: every CPU runs at most one thread, a thread runs on at most one CPU and is
// running exactly when a CPU says so, the machine's count of runnable threads matches the states
// of its threads and, when it keeps their list for a checker (Config.Checks), the list, and, if
// the policy is a [Queuer], the policy's count matches too. Tests call it after every Step; it costs O(threads + CPUs).
func (m *Machine) Check() error {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	running := 0
	for id := range m.cpus {
		c := &m.cpus[id]
		if c.cur == nobody {
			continue
		}
		running++
		if c.cur < 0 || int(c.cur) >= len(m.threads) {
			fail("cpu%d runs unknown thread %d", id, c.cur)
			continue
		}
		if t := &m.threads[c.cur]; t.state != tRunning || t.cpu != int32(id) {
			fail("cpu%d runs t%d, which is %s on cpu %d", id, c.cur, t.state, t.cpu)
		}
		if !c.busy {
			fail("cpu%d runs t%d but is accounted idle", id, c.cur)
		}
	}
	var n [tExited + 1]int
	for tid := range m.threads {
		t := &m.threads[tid]
		n[t.state]++
		if t.state == tRunning && (t.cpu < 0 || m.cpus[t.cpu].cur != int32(tid)) {
			fail("t%d is running but cpu %d does not run it", tid, t.cpu)
		}
		if t.state != tRunning && t.cpu != nobody {
			fail("t%d is %s but says it runs on cpu %d", tid, t.state, t.cpu)
		}
	}
	if n[tRunning] != running {
		fail("%d threads running on %d busy CPUs", n[tRunning], running)
	}
	listed := 0
	if !m.checking {
		// No checker needs the list of runnable threads, so the machine keeps only their count.
		listed = m.nwait
	}
	prevSince := int64(-1 << 63)
	for tid := m.waitHead; m.checking && tid != nobody; tid = m.threads[tid].waitNext {
		t := &m.threads[tid]
		if t.state != tRunnable {
			fail("t%d is on the runnable list but %s", tid, t.state)
		}
		if t.since < prevSince {
			fail("runnable list out of order at t%d", tid)
		}
		prevSince = t.since
		listed++
		if listed > len(m.threads) {
			fail("runnable list has a cycle")
			break
		}
	}
	if listed != n[tRunnable] || m.nwait != listed {
		fail("%d threads runnable, %d on the list, count %d", n[tRunnable], listed, m.nwait)
	}
	alive := len(m.threads) - n[tExited] + len(m.spawns) - m.nspawn
	if alive != m.live {
		fail("%d threads alive or to come, count %d", alive, m.live)
	}
	if m.queued != nil {
		if q := m.queued.Queued(); q != n[tRunnable] {
			fail("%s holds %d threads in its queues; %d are runnable and not running", m.pol.Name(), q, n[tRunnable])
		}
	}
	if errs == nil {
		return nil
	}
	return fmt.Errorf("sim: at time %d: %s", m.now, strings.Join(errs, "; "))
}
