// This file implements stealing: which thread a CPU takes from another (tdq_steal, with the
// legacy quirk of runq_steal_from) and which CPU an idle CPU robs (tdq_idled, tdq_trysteal).

package ule

import (
	"fmt"

	"github.com/schedkit/schedkit/runq"
	"github.com/schedkit/schedkit/topology"
)

// StealFrom returns the thread tdq_steal takes from victim for CPU thief, without removing it,
// or nil. It searches in priority order: the real-time range, then the calendar circularly from
// the dequeue offset, then the idle range; within each, the first thread in queue and FIFO order
// that may migrate and may run on thief (runq_steal_pred). With Params.StealSkipsHead (legacy's
// runq_steal_from) the calendar search avoids the first thread it visits, the one the victim
// would run next, unless no other thread qualifies.
//
// StealFrom reads victim and changes nothing. The complexity is O(1) searches over the status
// words plus one eligibility test per thread examined.
func StealFrom(victim *CPUState, thief topology.CPU) *Thread {
	ok := func(t *Thread) bool { return t.CanMigrate() && t.CanRunOn(thief) }
	p := victim.p
	if p.Version == Legacy {
		if t, found := victim.rq[rqRealtime].Steal(legacyRange, ok); found {
			return t
		}
		if t := stealCalendar(victim.rq[rqTimeshare], legacyRange, runq.Index(victim.Ridx), p.StealSkipsHead, ok); t != nil {
			return t
		}
		t, _ := victim.rq[rqIdle].Steal(legacyRange, ok)
		return t
	}
	rq := &victim.rq0
	if t, found := rq.Steal(RealtimeRange, ok); found {
		return t
	}
	if t := stealCalendar(rq, TimeshareRange, TimeshareRange.Lo+runq.Index(victim.DeqOff), p.StealSkipsHead, ok); t != nil {
		return t
	}
	t, _ := rq.Steal(IdleRange, ok)
	return t
}

// stealCalendar searches the calendar r of rq circularly from start for an eligible thread.
// Without skipHead it is main's runq_steal_timeshare: the first eligible thread. With skipHead it
// is legacy's runq_steal_from: the scan runs from start to the end of r and then, if start is not
// r.Lo, again over the whole of r; the first thread visited is set aside, and the first eligible
// thread visited after it is returned; failing that, the set-aside thread if it is eligible.
func stealCalendar(rq *runq.Runq[Thread], r runq.Range, start runq.Index, skipHead bool, ok func(*Thread) bool) *Thread {
	var found, first *Thread
	var pred runq.Pred[Thread]
	if skipHead {
		pred = func(_ runq.Index, q *runq.Queue[Thread]) bool {
			found, _ = q.FirstMatch(func(t *Thread) bool {
				if first == nil {
					first = t
					return false
				}
				return ok(t)
			})
			return found != nil
		}
		if _, hit := rq.Find(runq.Range{Lo: start, Hi: r.Hi}, pred); hit {
			return found
		}
		if start != r.Lo {
			if _, hit := rq.Find(r, pred); hit {
				return found
			}
		}
		if first != nil && ok(first) {
			return first
		}
		return nil
	}
	pred = func(_ runq.Index, q *runq.Queue[Thread]) bool {
		found, _ = q.FirstMatch(ok)
		return found != nil
	}
	if _, hit := rq.FindCircular(r, start, pred); hit {
		return found
	}
	return nil
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

// String formats the reason, such as "steal from cpu3 found in llc{0-5} after 2 searches".
func (r StealReason) String() string {
	switch r.Rule {
	case StealFound:
		return fmt.Sprintf("steal from cpu%d found in %v after %d searches (%d victims refused)", r.Victim, r.Group, r.Searches, r.Refused)
	case StealHasWork:
		return "the thief has work: no steal"
	case StealDisabled:
		return "stealing disabled"
	case StealNone:
		return fmt.Sprintf("nothing to steal after %d searches (%d victims refused)", r.Searches, r.Refused)
	}
	return "StealReason(?)"
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
func (s *System) Steal(thief topology.CPU, limit int, rnd *Rand) (topology.CPU, *Thread, StealReason) {
	var r StealReason
	if !s.Params.StealIdle {
		r.Rule = StealDisabled
		return 0, nil, r
	}
	if s.Loads[thief].Load > 0 {
		r.Rule = StealHasWork
		return 0, nil, r
	}
	mask := s.all
	mask.remove(thief)
	cg, group, level := s.Topology.Leaf(thief), false, 1
	for {
		cpu, found := s.highest(cg, &mask, s.Params.StealThresh, 1, rnd)
		r.Searches++
		if !found {
			if group {
				cg, group = cg.Parent(), false
			}
			if limit > 0 {
				if level++; level > limit {
					break
				}
			}
			parent := cg.Parent()
			if parent == nil {
				break
			}
			if kids := parent.Children(); len(kids) == 2 {
				if cg == kids[0] {
					cg = kids[1]
				} else {
					cg = kids[0]
				}
				group = true
			} else {
				cg = parent
			}
			continue
		}
		if t := StealFrom(&s.CPUs[cpu], thief); t != nil {
			r.Rule, r.Victim, r.Group = StealFound, cpu, cg
			return cpu, t, r
		}
		r.Refused++
		if limit > 0 {
			break
		}
		mask.remove(cpu)
	}
	r.Rule = StealNone
	return 0, nil, r
}
