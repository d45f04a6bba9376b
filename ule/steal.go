// This file implements stealing: which thread a CPU takes from another (tdq_steal, with the
// legacy quirk of runq_steal_from) and which CPU an idle CPU robs (tdq_idled, tdq_trysteal).

package ule

import (
	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A CalendarSteal says how tdq_steal searches the victim's time-sharing calendar: which
// sched_ule.c generation's runq_steal_from (or, in main, runq_steal_pred over the circular
// range) Params.CalendarSteal models. The real-time and idle queues are always searched for the
// first eligible thread (runq_steal). The four forms differ on a queue whose first thread is
// eligible and whose last is not, and on how many queues a pass looks at; see each constant.
type CalendarSteal uint8

const (
	// StealFirstEligible is main's (2025 rework, D45388): the first thread, in queue and FIFO
	// order from the dequeue offset, that may migrate and may run on the thief.
	StealFirstEligible CalendarSteal = iota
	// StealSkipFirst is main as it stood in 2024 just before the rework (OlCe2/freebsd-src and
	// bnovkov/freebsd-src sys/kern/sched_ule.c @366ae94e and @c566578d): runq_steal_from sets
	// first only for the first thread it visits ("if (first) … else first = td"), returns the
	// first eligible thread visited after it, and falls back to that first thread.
	StealSkipFirst
	// StealSkipPrevious is runq_steal_from from about 2012 to FreeBSD 14 (freebsd/freebsd-src
	// @d8d5f036, sobomax/freebsd14_vendor @0f7ff342): "first = td" runs for every thread
	// visited, so a thread is returned when it is eligible and some thread was visited before
	// it, and the fallback after the scan tests the last thread visited, not the first. A queue
	// whose head is eligible and whose tail is not therefore gives nothing when ridx is 0.
	StealSkipPrevious
	// StealOneQueue is runq_steal_from of FreeBSD 7 to 9.0 (sys/kern/sched_ule.c 1.290,
	// rodrigc/bz-vimage @191fe557; the same in 8.0-RELEASE, oza/FreeBSD-8.0-dyntick @cff798ab, and
	// in 7.3): first is a flag set by every visit, there is no fallback (the first thread visited
	// is never returned on its first visit), and each pass looks at one queue per status word only
	// — on amd64's single 64-bit word, the first non-empty queue at or after ridx, and then (if
	// ridx is not 0) the first non-empty queue of all. A lone queued thread is stolen only when
	// ridx is not 0 and its queue is at or after ridx.
	StealOneQueue
)

var calendarStealNames = []string{StealFirstEligible: "FirstEligible", StealSkipFirst: "SkipFirst",
	StealSkipPrevious: "SkipPrevious", StealOneQueue: "OneQueue"}

// String returns the constant's name without the Steal prefix, such as "SkipFirst".
func (c CalendarSteal) String() string { return sched.EnumName(calendarStealNames, c, "CalendarSteal") }

// A StealFromRule says where in the victim's run queue StealFrom found its thread.
type StealFromRule uint8

const (
	StealFromNothing   StealFromRule = iota // no thread the thief may take
	StealFromRealtime                       // the real-time range (legacy: tdq_realtime), by runq_steal
	StealFromCalendar                       // the calendar, an eligible thread met by the scan
	StealFromFallback                       // the calendar, runq_steal_from's fallback thread after the scan
	StealFromIdleClass                      // the idle range (legacy: tdq_idle), by runq_steal
)

// A StealFromReason explains StealFrom: the rule, the queue the thread is on, and the calendar
// steal form (Params.CalendarSteal) and start (DeqOff in main, Ridx in legacy) used.
type StealFromReason struct {
	Rule  StealFromRule
	Queue runq.Index
	Form  CalendarSteal
	Start uint8
}

var stealFromReasons = []string{StealFromNothing: "nothing the thief may take",
	StealFromRealtime:  "real-time range, queue %[1]d",
	StealFromCalendar:  "calendar queue %[1]d (%[2]v from %[3]d)",
	StealFromFallback:  "calendar queue %[1]d, the fallback thread (%[2]v from %[3]d)",
	StealFromIdleClass: "idle range, queue %[1]d"}

// String formats the reason, such as "calendar queue 140 (SkipFirst from 20)".
func (r StealFromReason) String() string {
	return explain(stealFromReasons, r.Rule, "StealFromReason", r.Queue, r.Form, r.Start)
}

// StealFrom returns the thread tdq_steal takes from victim for CPU thief under p, without
// removing it, or nil. It searches in priority order: the real-time range, then the calendar
// circularly from the dequeue offset (legacy: tdq_ridx) as p.CalendarSteal says, then the idle
// range; within the real-time and idle ranges, the first thread in queue and FIFO order that
// may migrate and may run on thief (runq_steal, runq_steal_pred).
//
// StealFrom reads victim and changes nothing; like Pick it follows victim's own Params. The
// complexity is O(1) searches over the status words plus one eligibility test per thread examined.
func StealFrom(victim *CPUState, thief topology.CPU) (*Thread, StealFromReason) {
	p := victim.p
	ok := func(t *Thread) bool { return t.CanMigrate() && t.CanRunOn(thief) }
	r := StealFromReason{Form: p.CalendarSteal}
	found := func(t *Thread, rule StealFromRule) (*Thread, StealFromReason) {
		r.Rule = rule
		r.Queue, _ = t.Link.Index()
		return t, r
	}
	// Main's one run queue plays the three roles by its ranges; legacy has three run queues.
	rt, ts, idle := &victim.rq0, &victim.rq0, &victim.rq0
	rtRange, tsRange, idleRange := RealtimeRange, TimeshareRange, IdleRange
	r.Start = victim.DeqOff
	start := TimeshareRange.Lo + runq.Index(victim.DeqOff)
	if p.Version.split() {
		rt, ts, idle = victim.rq[rqRealtime], victim.rq[rqTimeshare], victim.rq[rqIdle]
		rtRange, tsRange, idleRange = legacyRange, legacyRange, legacyRange
		r.Start, start = victim.Ridx, runq.Index(victim.Ridx)
	}
	if t, hit := rt.Steal(rtRange, ok); hit {
		return found(t, StealFromRealtime)
	}
	if t, rule := stealCalendar(ts, tsRange, start, p.CalendarSteal, ok); t != nil {
		return found(t, rule)
	}
	if t, hit := idle.Steal(idleRange, ok); hit {
		return found(t, StealFromIdleClass)
	}
	return nil, r
}

// stealCalendar searches the calendar r of rq circularly from start for an eligible thread, in
// the form mode names. Every form but StealFirstEligible is runq_steal_from: a pass from start
// to the end of r and then, if start is not r.Lo, a second pass over the whole of r (so the
// queues at or after start are visited twice), with the fallback test after both (none for
// StealOneQueue). Its rule is StealFromCalendar, or StealFromFallback for that fallback.
func stealCalendar(rq *runq.Runq[Thread], r runq.Range, start runq.Index, mode CalendarSteal, ok func(*Thread) bool) (*Thread, StealFromRule) {
	if mode == StealFirstEligible {
		var found *Thread
		pred := func(_ runq.Index, q *runq.Queue[Thread]) bool {
			found, _ = q.FirstMatch(ok)
			return found != nil
		}
		rq.FindCircular(r, start, pred) // found stays nil unless pred hit
		return found, StealFromCalendar
	}
	var found, first *Thread
	visit := func(q *runq.Queue[Thread]) bool {
		found, _ = q.FirstMatch(func(t *Thread) bool {
			if first == nil {
				first = t
				return false
			}
			if ok(t) {
				return true
			}
			if mode != StealSkipFirst {
				first = t // "first = td" for every thread visited
			}
			return false
		})
		return found != nil
	}
	pass := func(from runq.Index) bool {
		if mode == StealOneQueue {
			// One queue per 64-bit status word: the first non-empty one at or after from.
			st := rq.Status()
			if i, any := st.FirstIn(runq.Range{Lo: from, Hi: r.Hi}); any {
				return visit(rq.Queue(i))
			}
			return false
		}
		_, hit := rq.Find(runq.Range{Lo: from, Hi: r.Hi}, func(_ runq.Index, q *runq.Queue[Thread]) bool { return visit(q) })
		return hit
	}
	if pass(start) || (start != r.Lo && pass(r.Lo)) {
		return found, StealFromCalendar
	}
	if mode != StealOneQueue && first != nil && ok(first) {
		return first, StealFromFallback
	}
	return nil, StealFromNothing
}

// A StealRule says how a search for a victim ended.
type StealRule uint8

const (
	StealFound    StealRule = iota // a victim with an eligible thread
	StealHasWork                   // the thief has work of its own: nothing to steal
	StealDisabled                  // steal_idle is off (or trysteal_limit is 0)
	StealNone                      // no CPU up to the root (or the level limit) has load >= steal_thresh and an eligible thread
)

// A StealReason explains Steal: the rule, the victim and the group it was found in, how many
// groups were searched, and how many candidate victims had no thread the thief could take.
type StealReason struct {
	Rule     StealRule
	Victim   topology.CPU
	Group    *topology.Group
	Searches int
	Refused  int
}

var stealReasons = []string{
	StealFound:    "steal from cpu%[1]d found in %[2]v after %[3]d searches (%[4]d victims refused)",
	StealHasWork:  "the thief has work: no steal",
	StealDisabled: "stealing disabled",
	StealNone:     "nothing to steal after %[3]d searches (%[4]d victims refused)"}

// String formats the reason, such as "steal from cpu3 found in llc{0-5} after 2 searches".
func (r StealReason) String() string {
	return explain(stealReasons, r.Rule, "StealReason", r.Victim, r.Group, r.Searches, r.Refused)
}

// Steal searches for a thread the idle CPU thief can take: tdq_idled when limit is 0,
// tdq_trysteal (at most limit levels) otherwise. Starting at thief's leaf group it asks Highest
// for a CPU with load >= steal_thresh and a transferable thread; finding none, it climbs: if the
// parent has exactly two children it searches the sibling group next and then jumps two levels,
// otherwise it searches the parent; it gives up at the root (tdq_idled) or after limit levels
// (tdq_trysteal). A victim that has no thread thief may take (StealFrom) is dropped from the
// mask and the search goes on in the same group (tdq_idled) or ends (tdq_trysteal).
//
// Steal returns the victim and its thread without moving anything (System.Move does); rnd is
// thief's generator. It finds nothing if stealing is off or thief has load of its own. The
// complexity is that of the Highest searches, O(CPUs) at worst for each level climbed.
//
// With Params.SMP = SMP2008 it is the 2008 tdq_idled (steal2008 in smp2008.go), and tdq_trysteal
// (limit > 0) does not exist.
func (s *System) Steal(thief topology.CPU, limit int, rnd *Rand) (topology.CPU, *Thread, StealReason) {
	var r StealReason
	cpu, t := s.steal(thief, limit, rnd, &r)
	return cpu, t, r
}

// steal is Steal writing its reason to r, which must be zero (Switch's result holds it).
func (s *System) steal(thief topology.CPU, limit int, rnd *Rand, r *StealReason) (topology.CPU, *Thread) {
	if !s.params.StealIdle || (s.params.SMP == SMP2008 && limit > 0) { // 2008 had no tdq_trysteal
		r.Rule = StealDisabled
		return 0, nil
	}
	if s.loads[thief].Load > 0 {
		r.Rule = StealHasWork
		return 0, nil
	}
	if s.params.SMP == SMP2008 {
		return s.steal2008(thief, r)
	}
	// The kernel searches every CPU but the thief (CPU_FILL, CPU_CLR); the thief, without load,
	// has no transferable thread and could not be chosen anyway, so the mask starts as every CPU
	// and is copied only when a victim is refused.
	thresh := clampInt32(s.StealThreshold())
	mask := &s.all
	cg, goup, level := s.top.Leaf(thief), false, 1
	// The CPUs the searches can choose, when the load index lists them: a group that holds none
	// of them would find nothing and draw nothing, and is passed over.
	few := s.ix.StealCandidates(thresh)
	for {
		cpu, found := topology.CPU(0), false
		if few.In(cg) {
			cpu, found = s.highest(cg, mask, thresh, 1, rnd)
		}
		r.Searches++
		if !found {
			var ok bool
			if cg, goup, level, ok = climb(cg, goup, level, limit); !ok {
				break
			}
			continue
		}
		if t, _ := StealFrom(&s.cpus[cpu], thief); t != nil {
			r.Rule, r.Victim, r.Group = StealFound, cpu, cg
			return cpu, t
		}
		r.Refused++
		if limit > 0 {
			break
		}
		if mask == &s.all {
			s.stealMask, mask = s.all, &s.stealMask
		}
		mask.Remove(cpu)
		few.Drop(cpu)
	}
	r.Rule = StealNone
	return 0, nil
}

// climb is tdq_idled's escalation after a search of cg found no CPU to steal from: to the
// parent, but if the parent has only two children, to the other one, avoiding a search of cg
// again, and then (goup) two levels up at once. With a limit (tdq_trysteal) level counts the
// levels searched. It returns the next group, goup, the level, and false when the climb ends:
// at the root, or past the limit.
func climb(cg *topology.Group, goup bool, level, limit int) (*topology.Group, bool, int, bool) {
	if goup {
		cg = cg.Parent()
	}
	if limit > 0 {
		if level++; level > limit {
			return cg, false, level, false
		}
	}
	parent := cg.Parent()
	if parent == nil {
		return cg, false, level, false
	}
	if kids := parent.Children(); len(kids) == 2 {
		if cg == kids[0] {
			return kids[1], true, level, true
		}
		return kids[0], true, level, true
	}
	return parent, false, level, true
}
