// This file implements stealing: which thread a CPU takes from another (tdq_steal, with the
// legacy quirk of runq_steal_from) and which CPU an idle CPU robs (tdq_idled, tdq_trysteal).

package ule

import (
	"fmt"
	"math/bits"

	"github.com/schedkit/schedkit/runq"
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
	// rodrigc/bz-vimage @191fe557; the same in 8.0-RELEASE, oza/FreeBSD-8.0-dyntick @cff798ab,
	// and in 7.3): first is a flag set by every visit,
	// there is no fallback (the first thread visited is never returned on its first visit),
	// and each pass looks at one queue per status word only — on amd64's single 64-bit word,
	// the first non-empty queue at or after ridx, and then (if ridx is not 0) the first
	// non-empty queue of all. A lone queued thread is stolen only when ridx is not 0 and its
	// queue is at or after ridx.
	StealOneQueue
)

// String returns the constant's name without the Steal prefix, such as "SkipFirst".
func (c CalendarSteal) String() string {
	switch c {
	case StealFirstEligible:
		return "FirstEligible"
	case StealSkipFirst:
		return "SkipFirst"
	case StealSkipPrevious:
		return "SkipPrevious"
	case StealOneQueue:
		return "OneQueue"
	}
	return fmt.Sprintf("CalendarSteal(%d)", uint8(c))
}

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

// String formats the reason, such as "calendar queue 140 (SkipFirst from 20)".
func (r StealFromReason) String() string {
	switch r.Rule {
	case StealFromNothing:
		return "nothing the thief may take"
	case StealFromRealtime:
		return fmt.Sprintf("real-time range, queue %d", r.Queue)
	case StealFromCalendar:
		return fmt.Sprintf("calendar queue %d (%v from %d)", r.Queue, r.Form, r.Start)
	case StealFromFallback:
		return fmt.Sprintf("calendar queue %d, the fallback thread (%v from %d)", r.Queue, r.Form, r.Start)
	case StealFromIdleClass:
		return fmt.Sprintf("idle range, queue %d", r.Queue)
	}
	return "StealFromReason(?)"
}

// StealFrom returns the thread tdq_steal takes from victim for CPU thief under p, without
// removing it, or nil. It searches in priority order: the real-time range, then the calendar
// circularly from the dequeue offset (legacy: tdq_ridx) as p.CalendarSteal says, then the idle
// range; within the real-time and idle ranges, the first thread in queue and FIFO order that
// may migrate and may run on thief (runq_steal, runq_steal_pred).
//
// StealFrom reads victim and changes nothing. As for Pick, p must be of the Version victim was
// built for (the layout of its run queues follows it); StealFrom panics otherwise. The
// complexity is O(1) searches over the status words plus one eligibility test per thread
// examined.
func StealFrom(victim *CPUState, thief topology.CPU, p *Params) (*Thread, StealFromReason) {
	if p.Version.split() != (victim.rq[rqTimeshare] != nil) {
		panic(fmt.Sprintf("ule: StealFrom: Params of version %v on the state of cpu%d, built for %v", p.Version, victim.ID, victim.p.Version))
	}
	ok := func(t *Thread) bool { return t.CanMigrate() && t.CanRunOn(thief) }
	r := StealFromReason{Form: p.CalendarSteal}
	found := func(t *Thread, rule StealFromRule) (*Thread, StealFromReason) {
		r.Rule = rule
		r.Queue, _ = t.Link.Index()
		return t, r
	}
	calendar := func(t *Thread, fallback bool) (*Thread, StealFromReason) {
		if fallback {
			return found(t, StealFromFallback)
		}
		return found(t, StealFromCalendar)
	}
	if p.Version.split() {
		r.Start = victim.Ridx
		if t, hit := victim.rq[rqRealtime].Steal(legacyRange, ok); hit {
			return found(t, StealFromRealtime)
		}
		if t, fb := stealCalendar(victim.rq[rqTimeshare], legacyRange, runq.Index(victim.Ridx), p.CalendarSteal, ok); t != nil {
			return calendar(t, fb)
		}
		if t, hit := victim.rq[rqIdle].Steal(legacyRange, ok); hit {
			return found(t, StealFromIdleClass)
		}
		return nil, r
	}
	r.Start = victim.DeqOff
	rq := &victim.rq0
	if t, hit := rq.Steal(RealtimeRange, ok); hit {
		return found(t, StealFromRealtime)
	}
	if t, fb := stealCalendar(rq, TimeshareRange, TimeshareRange.Lo+runq.Index(victim.DeqOff), p.CalendarSteal, ok); t != nil {
		return calendar(t, fb)
	}
	if t, hit := rq.Steal(IdleRange, ok); hit {
		return found(t, StealFromIdleClass)
	}
	return nil, r
}

// stealCalendar searches the calendar r of rq circularly from start for an eligible thread, in
// the form mode names. Every form but StealFirstEligible is runq_steal_from: a pass from start
// to the end of r and then, if start is not r.Lo, a second pass over the whole of r (so the
// queues at or after start are visited twice), with the fallback test after both (none for
// StealOneQueue). It reports whether the thread is that fallback.
func stealCalendar(rq *runq.Runq[Thread], r runq.Range, start runq.Index, mode CalendarSteal, ok func(*Thread) bool) (*Thread, bool) {
	if mode == StealFirstEligible {
		var found *Thread
		pred := func(_ runq.Index, q *runq.Queue[Thread]) bool {
			found, _ = q.FirstMatch(ok)
			return found != nil
		}
		if _, hit := rq.FindCircular(r, start, pred); hit {
			return found, false
		}
		return nil, false
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
	if pass(start) {
		return found, false
	}
	if start != r.Lo && pass(r.Lo) {
		return found, false
	}
	if mode != StealOneQueue && first != nil && ok(first) {
		return first, true
	}
	return nil, false
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
//
// With Params.SMP = SMP2008 it is the 2008 tdq_idled (steal2008 in smp2008.go): the thief climbs
// from its leaf through each parent (no sibling shortcut), the threshold is 1 in an SMT group,
// every candidate victim leaves the mask, and tdq_trysteal (limit > 0) does not exist.
func (s *System) Steal(thief topology.CPU, limit int, rnd *Rand) (topology.CPU, *Thread, StealReason) {
	var r StealReason
	cpu, t := s.steal(thief, limit, rnd, nil, &r)
	return cpu, t, r
}

// steal is Steal writing its reason to r, which must be zero (Switch's result holds it); it
// reads ix, when not nil, instead of every CPU's CPULoad (see loadIndex).
func (s *System) steal(thief topology.CPU, limit int, rnd *Rand, ix *loadIndex, r *StealReason) (topology.CPU, *Thread) {
	if s.Params.SMP == SMP2008 {
		cpu, t, why := s.steal2008(thief, limit)
		*r = why
		return cpu, t
	}
	if !s.Params.StealIdle {
		r.Rule = StealDisabled
		return 0, nil
	}
	if s.Loads[thief].Load > 0 {
		r.Rule = StealHasWork
		return 0, nil
	}
	if ix != nil && s.xferCPUs == 0 {
		// Called on behalf of a mutating method, whose CPUStates keep xferCPUs: no CPU has a
		// transferable thread, so every search of the climb finds no CPU and draws nothing,
		// and the climb ends after climbs[thief] groups, or limit (see stealClimbs).
		r.Rule, r.Searches = StealNone, int(s.climbs[thief])
		if limit > 0 {
			r.Searches = min(r.Searches, limit)
		}
		return 0, nil
	}
	thresh := s.StealThreshold()
	if ix != nil && !(ix.stealOn && ix.big == 0) {
		ix = nil
	}
	if cpu, t, ok := s.stealFew(thief, limit, thresh, rnd, r, ix); ok {
		return cpu, t
	}
	mask := s.all
	mask.remove(thief)
	cg, group, level := s.Topology.Leaf(thief), false, 1
	// Groups already searched without a candidate: the climb's next searches take their totals
	// instead of visiting them again (searched explains why the result is the same).
	var done searched
	var prevTotal int32
	for {
		total, cpu, found := s.highestDone(cg, &mask, thresh, 1, rnd, &done)
		r.Searches++
		if !found {
			done.add(int32(cg.ID()), total)
			if group {
				// cg is the sibling of the group searched before: their parent, of exactly these
				// two children, holds no candidate either.
				cg, group = cg.Parent(), false
				done.add(int32(cg.ID()), prevTotal+total)
			}
			prevTotal = total
			if limit > 0 {
				if level++; level > limit {
					break
				}
			}
			next, sibling := climb(cg)
			if next == nil {
				break
			}
			cg, group = next, sibling
			continue
		}
		if t, _ := StealFrom(&s.CPUs[cpu], thief, &s.Params); t != nil {
			r.Rule, r.Victim, r.Group = StealFound, cpu, cg
			return cpu, t
		}
		r.Refused++
		if limit > 0 {
			break
		}
		mask.remove(cpu)
	}
	r.Rule = StealNone
	return 0, nil
}

// stealFew is Steal when few CPUs could be victims, which is the common case for an idle CPU
// looking for work: one pass over the loads lists the CPUs the searches may choose (load >=
// thresh, a transferable thread; never thief), and when there are at most len(candidates.cpu)
// of them the climb takes the same steps as Steal's with each level's search reduced to a test
// of whether its group holds a candidate: a group that holds none makes the search find
// nothing and draw nothing. A group that holds one is searched by highestPruned, which gives
// the kernel's choice and draws. It reports false, having changed nothing, when the list does
// not apply (too many candidates, a load that is negative or so large that a group's total
// could wrap, or a tree not numbered in preorder); Steal then searches in full.
//
// The pass reads the loads eight at a time: a block whose loads, ORed together, stay below the
// largest power of two not above thresh (and below 1<<12) holds no candidate and no load that
// could wrap, and is passed over without a test per CPU. With the load index ix (not nil only
// when its searches may be used) the candidates come from its masks instead (stealIx), and more
// than len(candidates.cpu) of them take stealMany rather than the full search.
func (s *System) stealFew(thief topology.CPU, limit, thresh int, rnd *Rand, r *StealReason, ix *loadIndex) (topology.CPU, *Thread, bool) {
	if !s.tree.ranges {
		return 0, nil, false
	}
	var cs candidates
	minLoad := clampInt32(thresh)
	if ix != nil {
		if cpu, t, many := s.stealIx(&cs, thief, limit, minLoad, rnd, r, ix); many {
			return cpu, t, true
		}
	} else {
		skip := uint32(0) // a block whose loads OR to below skip is passed over
		if minLoad > 0 {
			skip = min(uint32(1)<<(bits.Len32(uint32(minLoad))-1), 1<<12)
		}
		var or int32
		loads := s.Loads
		c := 0
		for ; c+8 <= len(loads); c += 8 {
			b := loads[c : c+8 : c+8]
			if uint32(b[0].Load|b[1].Load|b[2].Load|b[3].Load|b[4].Load|b[5].Load|b[6].Load|b[7].Load) < skip {
				continue
			}
			for i := range b {
				if !cs.scan(&b[i], topology.CPU(c+i), minLoad, thief, &s.all, &or) {
					return 0, nil, false
				}
			}
		}
		for ; c < len(loads); c++ {
			if !cs.scan(&loads[c], topology.CPU(c), minLoad, thief, &s.all, &or) {
				return 0, nil, false
			}
		}
		// Totals are sums of Load*256 over at most MaxCPUs CPUs: below 1<<12 each, they cannot
		// wrap an int32; a negative load sets the sign bit of or.
		if or < 0 || or >= 1<<12 {
			return 0, nil, false
		}
	}
	cs.thief = thief
	a := highestArgs{loads: s.loads, minLoad: minLoad, minTrans: 1, rnd: rnd}
	cg, group, level := s.Topology.Leaf(thief), false, 1
	for {
		r.Searches++
		if cs.n == 0 || !cs.anyIn(&s.tree, int32(cg.ID())) {
			var ok bool
			if cg, group, level, ok = stealClimb(cg, group, level, limit); !ok {
				break
			}
			continue
		}
		cpu := topology.CPU(s.tree.highestPruned(int32(cg.ID()), &a, &cs, &s.all))
		if t, _ := StealFrom(&s.CPUs[cpu], thief, &s.Params); t != nil {
			r.Rule, r.Victim, r.Group = StealFound, cpu, cg
			return cpu, t, true
		}
		r.Refused++
		if limit > 0 {
			break
		}
		cs.refuse(cpu)
	}
	r.Rule = StealNone
	return 0, nil, true
}

// stealIx lists in cs the candidates of stealFew (load >= minLoad, a transferable thread, in the
// machine, not thief) from the load index ix, a word at a time: the level of minLoad, the
// transferable mask and the machine's mask ANDed (ix.big must be zero, so that the levels hold
// every load). When there are more than len(cs.cpu) of them it runs stealMany over them
// instead and returns its result with many set. The complexity is O(CPUs/64).
func (s *System) stealIx(cs *candidates, thief topology.CPU, limit int, minLoad int32, rnd *Rand, r *StealReason, ix *loadIndex) (cpu topology.CPU, t *Thread, many bool) {
	const wmask = topology.MaxCPUs/64 - 1
	var cand cpuBits
	n := 0
	for w := range s.tree.nwords {
		c := ix.xfer[w&wmask] & s.all[w&wmask] & ix.atLeast(w&wmask, minLoad)
		cand[w&wmask] = c
		n += bits.OnesCount64(c)
	}
	if cand.has(thief) {
		cand.remove(thief)
		n--
	}
	if n > len(cs.cpu) {
		cpu, t := s.stealMany(thief, limit, minLoad, rnd, r, &cand, ix)
		return cpu, t, true
	}
	for w := range s.tree.nwords {
		for c := cand[w&wmask]; c != 0; c &= c - 1 {
			cs.cpu[cs.n&(len(cs.cpu)-1)] = topology.CPU(w<<6 | bits.TrailingZeros64(c))
			cs.n++
		}
	}
	return 0, nil, false
}

// stealMany is stealFew's climb for candidates given as a mask cand (removed from it as they
// are refused): a group holds a candidate when cand has a CPU of it; a group whose candidates all
// lie in one leaf is searched in that leaf alone (highestPruned says why that is exact), by
// highestLeafIx; any other is searched in full, with the mask Steal's search would have.
func (s *System) stealMany(thief topology.CPU, limit int, minLoad int32, rnd *Rand, r *StealReason, cand *cpuBits, ix *loadIndex) (topology.CPU, *Thread) {
	mask := s.all // the full search's mask: all but thief and the refused CPUs
	mask.remove(thief)
	a := highestArgs{loads: s.loads, minLoad: minLoad, minTrans: 1, rnd: rnd}
	cg, group, level := s.Topology.Leaf(thief), false, 1
	for {
		r.Searches++
		leaf := s.tree.candLeaf(int32(cg.ID()), cand)
		if leaf == -1 {
			var ok bool
			if cg, group, level, ok = stealClimb(cg, group, level, limit); !ok {
				break
			}
			continue
		}
		var cpu topology.CPU
		if leaf >= 0 {
			cpu = topology.CPU(s.tree.highestLeafIx(&s.tree.nodes[leaf], rnd, ix, cand))
		} else {
			a.mask = &mask
			_, c, _ := s.tree.highest(int32(cg.ID()), &a)
			cpu = topology.CPU(c)
		}
		if t, _ := StealFrom(&s.CPUs[cpu], thief, &s.Params); t != nil {
			r.Rule, r.Victim, r.Group = StealFound, cpu, cg
			return cpu, t
		}
		r.Refused++
		if limit > 0 {
			break
		}
		cand.remove(cpu)
		mask.remove(cpu)
	}
	r.Rule = StealNone
	return 0, nil
}

// stealClimbs returns, for every CPU id c of top, the number of groups Steal's climb from c's
// leaf looks at when none of them holds a candidate and no limit applies: climb's steps up to
// the root. With a limit the climb looks at min(limit, climbs[c]) groups: each search without a
// candidate raises the level, and the climb stops once the level passes the limit.
func stealClimbs(top *topology.Topology) []int32 {
	n := make([]int32, top.NumIDs())
	for c := range top.CPUs().All() {
		cg, group := top.Leaf(c), false
		for {
			n[c]++
			if group {
				cg, group = cg.Parent(), false
			}
			next, sibling := climb(cg)
			if next == nil {
				break
			}
			cg, group = next, sibling
		}
	}
	return n
}

// stealClimb is one step of Steal's climb after a search of cg found no candidate, as steal's
// loop takes it: from a sibling back to the parent of the two, one level more against limit
// (tdq_trysteal's), then climb. It returns the next group, whether it is a sibling, the new
// level, and false when the climb ends.
func stealClimb(cg *topology.Group, group bool, level, limit int) (*topology.Group, bool, int, bool) {
	if group {
		cg = cg.Parent()
	}
	if limit > 0 {
		if level++; level > limit {
			return cg, false, level, false
		}
	}
	next, sibling := climb(cg)
	return next, sibling, level, next != nil
}

// climb returns the group the steal search looks at after cg: cg's sibling when their parent has
// exactly two children (sibling true: the parent itself, which holds nothing more, is then
// skipped), else the parent; nil at the root.
func climb(cg *topology.Group) (next *topology.Group, sibling bool) {
	parent := cg.Parent()
	if parent == nil {
		return nil, false
	}
	if kids := parent.Children(); len(kids) == 2 {
		if cg == kids[0] {
			return kids[1], true
		}
		return kids[0], true
	}
	return parent, false
}
