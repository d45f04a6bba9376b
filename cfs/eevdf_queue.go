// This file implements the per-queue state changes of EEVDF (v6.6 and v7.1): the running sums
// behind avg_vruntime (avg_vruntime_add/sub and avg_vruntime_update in v6.6,
// sum_w_vruntime_add/sub and update_zero_vruntime in v7.1), the augmented timeline of
// __enqueue_entity / __dequeue_entity, update_curr with update_deadline, place_entity and
// update_entity_lag applied to an entity, set_next_entity, v7.1's slice bookkeeping
// (cfs_rq_min_slice, cfs_rq_max_slice) and slice protection, and reweight_entity.

package cfs

// sumAdd adds se to the averaging sums: avg_vruntime_add (v6.6), sum_w_vruntime_add (v6.18,
// v7.1).
func (q *Queue) sumAdd(se *Entity) { q.sumAddW(se, avgWeight(q.cpu.params.Version, se.load)) }

// sumAddW is sumAdd with se's averaging weight w.
func (q *Queue) sumAddW(se *Entity, w uint64) {
	q.sumW += q.entityKey(se.Vruntime) * int64(w)
	q.sumWeight += w
}

// sumSub removes se from the averaging sums: avg_vruntime_sub, sum_w_vruntime_sub.
func (q *Queue) sumSub(se *Entity) { q.sumSubW(se, avgWeight(q.cpu.params.Version, se.load)) }

// sumSubW is sumSub with se's averaging weight w.
func (q *Queue) sumSubW(se *Entity, w uint64) {
	q.sumW -= q.entityKey(se.Vruntime) * int64(w)
	q.sumWeight -= w
}

// moveZero moves the reference point by delta keeping the sums exact: v7.1's
// update_zero_vruntime (v' = v + d ==> S' = S - d·W).
func (q *Queue) moveZero(delta int64) {
	q.sumW -= int64(q.sumWeight * uint64(delta))
	q.minVruntime += uint64(delta)
}

// avgVruntime is v7.1's avg_vruntime with its side effect: it computes V and moves
// zero_vruntime there. In v6.6 it only computes.
func (q *Queue) avgVruntime() uint64 {
	d := q.avgDelta()
	if q.cpu.params.Version == V66 {
		return q.minVruntime + uint64(d)
	}
	q.moveZero(d)
	return q.minVruntime
}

// enqueueTree puts se on the timeline: the kernel's __enqueue_entity. Classic CFS orders by
// vruntime; v6.6 also keeps the minimum deadline of every subtree and the sums; v7.1 orders by
// deadline, keeps the minimum vruntime of every subtree, the sums, and the slice timeline.
func (q *Queue) enqueueTree(se *Entity) {
	switch q.cpu.params.Version {
	case V65:
		q.timeline.Insert(&se.node, se.Vruntime)
	case V66:
		q.sumAddW(se, ScaleLoadDown(se.load.Weight))
		se.node.SetAug(se.Deadline)
		q.timeline.Insert(&se.node, se.Vruntime)
	case V618: // v7.1's timeline with v6.6's averaging weights
		q.sumAddW(se, ScaleLoadDown(se.load.Weight))
		se.node.SetAug(se.Vruntime)
		q.timeline.Insert(&se.node, se.Deadline)
		q.slices.Insert(&se.sliceNode, se.Slice)
	default:
		q.sumAddW(se, se.load.Weight)
		se.node.SetAug(se.Vruntime)
		q.timeline.Insert(&se.node, se.Deadline)
		q.slices.Insert(&se.sliceNode, se.Slice)
	}
}

// dequeueTree takes se off the timeline: the kernel's __dequeue_entity.
func (q *Queue) dequeueTree(se *Entity) {
	q.timeline.Remove(&se.node)
	switch q.cpu.params.Version {
	case V65:
	case V66:
		q.sumSubW(se, ScaleLoadDown(se.load.Weight))
	case V618:
		q.sumSubW(se, ScaleLoadDown(se.load.Weight))
		q.slices.Remove(&se.sliceNode)
	default:
		q.sumSubW(se, se.load.Weight)
		q.slices.Remove(&se.sliceNode)
	}
}

// MinSlice returns the shortest slice among the entities queued on q, the running one included
// if it is queued, or 2^64-1 if there is none: v7.1's cfs_rq_min_slice. The complexity is O(1).
// It is meaningful only on a v7.1 CPU, whose queues keep their slices ordered.
func (q *Queue) MinSlice() uint64 {
	m := ^uint64(0)
	if c := q.currQueued(); c != nil {
		m = c.Slice
	}
	if n := q.slices.First(); n != nil {
		m = min(m, n.Key())
	}
	return m
}

// MaxSlice returns the longest slice among the entities queued on q, the running one included
// if it is queued, or 0 if there is none: v7.1's cfs_rq_max_slice. The complexity is O(log n).
// It is meaningful only on a v7.1 CPU.
//
// The kernel keeps this maximum in the augmented timeline but does not initialise a new node's
// max_slice in __enqueue_entity, so a freshly inserted leaf can contribute a stale value until a
// rotation recomputes it; the model always returns the true maximum.
func (q *Queue) MaxSlice() uint64 {
	var m uint64
	if c := q.currQueued(); c != nil {
		m = c.Slice
	}
	if n := q.slices.Last(); n != nil {
		m = max(m, n.Key())
	}
	return m
}

// setSlice changes the slice of an entity that may be queued, keeping the slice timeline
// ordered (min_vruntime_cb_propagate after a group entity's slice changes in v7.1).
func (q *Queue) setSlice(se *Entity, slice uint64) {
	if se.Slice == slice {
		return
	}
	inTree := se.sliceNode.Queued()
	if inTree {
		q.slices.Remove(&se.sliceNode)
	}
	se.Slice = slice
	if inTree {
		q.slices.Insert(&se.sliceNode, slice)
	}
}

// updateDeadline is update_deadline for the running entity se: once its vruntime reaches its
// deadline the request is served, and a new one of Params.DefaultSlice (or its custom slice,
// v7.1) is made from the current vruntime. v7.1 then recentres zero_vruntime. It reports
// whether a new request was made.
func (q *Queue) updateDeadline(se *Entity, p *Params) bool {
	if before(se.Vruntime, se.Deadline) {
		return false
	}
	if p.Version == V66 || !se.customSlice {
		se.Slice = p.DefaultSlice
	}
	se.Deadline = virtualDeadline(p.CalcDelta, se.Vruntime, se.Slice, se.load)
	if p.Version != V66 {
		q.avgVruntime()
	}
	return true
}

// A chargeResult says what EEVDF's update_curr did besides charging: whether the running
// entity's request was served (a new deadline), and, in v7.1, whether its slice protection
// was over; and whether it asked for a reschedule.
type chargeResult struct {
	charged, renewed, unprotected, resched bool
}

// updateCurrEEVDF is update_curr of v6.6 and v7.1: charge the running entity, renew its
// request if it is served, and ask for a reschedule when another entity is queued and either
// the request was served or (v7.1) the slice protection is over. v6.6 then advances
// min_vruntime, moving the sums along.
func (q *Queue) updateCurrEEVDF(now uint64, p *Params) chargeResult {
	var r chargeResult
	curr := q.curr
	if curr == nil {
		return r
	}
	delta := now - curr.ExecStart
	if int64(delta) <= 0 {
		return r
	}
	r.charged = true
	curr.ExecStart = now
	curr.SumExecRuntime += delta
	curr.Vruntime += CalcDeltaFair(p.CalcDelta, delta, curr.load)
	r.renewed = q.updateDeadline(curr, p)
	if p.Version == V66 {
		if r.renewed && q.nrRunning > 1 {
			r.resched = true
			q.cpu.needResched = true
			q.clearBuddies(curr)
		}
		q.updateMinVruntime()
		return r
	}
	if q.nrRunning == 1 {
		return r
	}
	r.unprotected = !protected(curr)
	if r.renewed || r.unprotected {
		r.resched = true
		q.cpu.needResched = true
		q.clearBuddies(curr)
	}
	return r
}

// advanceMinVruntime is v6.6's __update_min_vruntime: min_vruntime moves forward to v (never
// back), and the sums, which are relative to it, move along (avg_vruntime_update). The kernel's
// test "delta > 0" is a clamp of delta at 0 here, which moves nothing when delta is not
// positive: whether min_vruntime advances follows no pattern a branch predictor can learn.
func (q *Queue) advanceMinVruntime(v uint64) {
	delta := int64(v - q.minVruntime)
	d := uint64(delta &^ (delta >> 63)) // max(delta, 0)
	q.sumW -= int64(q.sumWeight * d)
	q.minVruntime += d
}

// placeEntity applies place_entity to se (flags: flagInitial for a new task): v7.1 first moves
// zero_vruntime to V (avg_vruntime), then, if se outweighs the queue, onto se's new vruntime.
func (q *Queue) placeEntity(se *Entity, flags qflags, p *Params) {
	if p.Version != V66 {
		q.avgVruntime()
	}
	pl := placeEEVDF(q, se, flags&flagInitial != 0, p)
	se.Slice = pl.Slice
	se.Vruntime = pl.Vruntime
	if pl.MoveZero {
		q.moveZero(-pl.Lag)
	}
	se.Deadline = pl.Deadline
	se.relDeadline = false
}

// updateEntityLag saves se's clamped virtual lag before it leaves q: update_entity_lag (v6.18
// and v7.1 move zero_vruntime to V first). In v7.1, for a delayed entity the lag never grows
// more negative than the one it was delayed with, and with DELAY_ZERO it is clipped to at most
// 0; v6.18's update_entity_lag only clamps (its DELAY_ZERO clip is in
// finish_delayed_dequeue_entity and requeue_delayed_entity). It reports whether the saved lag
// differs from V - vruntime (it was clamped or clipped).
func (q *Queue) updateEntityLag(se *Entity, p *Params) bool {
	avg := q.avgVruntime()
	vlag := EntityLag(q, se, avg, p)
	if se.delayed && p.Version >= V71 {
		vlag = max(vlag, se.VLag)
		if p.DelayZero {
			vlag = min(vlag, 0)
		}
	}
	se.VLag = vlag
	return avg-uint64(vlag) != se.Vruntime
}

// requeueDelayed is v7.1's requeue_delayed_entity: a delayed entity that is woken (or gets a
// task enqueued below it) stays where it is, unless its lag had to be clamped or clipped, in
// which case it is placed again with that lag.
func (q *Queue) requeueDelayed(se *Entity, p *Params) {
	if p.Version == V618 {
		q.requeueDelayed618(se, p)
	} else if q.updateEntityLag(se, p) {
		q.nrRunning--
		if se != q.curr {
			q.dequeueTree(se)
		}
		q.placeEntity(se, 0, p)
		if se != q.curr {
			q.enqueueTree(se)
		}
		q.nrRunning++
	}
	se.delayed = false
	if se.myQ == nil { // clear_delayed: a task counts as runnable again
		for e := se; e != nil; e = e.parent {
			e.q.hNrRunnable++
		}
	}
}

// requeueDelayed618 is the part of v6.18's requeue_delayed_entity (fair.c blob 7e0e2044d840)
// that differs from v7.1's: only with DELAY_ZERO is the lag brought up to date, and only a
// positive one moves the entity, which is placed again with lag 0, at V.
func (q *Queue) requeueDelayed618(se *Entity, p *Params) {
	if !p.DelayZero {
		return
	}
	q.updateEntityLag(se, p)
	if se.VLag <= 0 {
		return
	}
	q.nrRunning--
	if se != q.curr {
		q.dequeueTree(se)
	}
	se.VLag = 0
	q.placeEntity(se, 0, p)
	if se != q.curr {
		q.enqueueTree(se)
	}
	q.nrRunning++
}

// enqueueEEVDF is enqueue_entity of v6.6 and v7.1: the running entity is placed before its
// queue is charged, any other entity after its group weight is final.
func (q *Queue) enqueueEEVDF(se *Entity, now uint64, flags qflags, p *Params) {
	isCurr := q.curr == se
	if isCurr {
		q.placeEntity(se, flags, p)
	}
	q.updateCurrEEVDF(now, p)
	q.updateGroup(se, now, p)
	if !isCurr {
		q.placeEntity(se, flags, p)
	}
	q.accountEnqueue(se)
	if flags&flagMigrated != 0 {
		se.ExecStart = 0
	}
	if !isCurr {
		q.enqueueTree(se)
	}
	se.onRQ = true
}

// dequeueEEVDF is dequeue_entity of v6.6 and v7.1: the lag is saved, and in v7.1 a dequeue
// that is not a sleep keeps the deadline relative. With DELAY_DEQUEUE a sleeping entity that is
// not eligible stays queued, marked delayed, and dequeueEEVDF reports false, unless it sleeps
// into a special state (flagSpecial: exit); flagDelayed finishes such a dequeue.
func (q *Queue) dequeueEEVDF(se *Entity, now uint64, flags qflags, p *Params) bool {
	q.updateCurrEEVDF(now, p)
	q.clearBuddies(se)
	if flags&(flagDelayed|flagSpecial) == 0 && flags&flagWakeup != 0 && p.Version >= V618 && p.DelayDequeue && !entityEligible(q, se) {
		q.delayDequeue(se, p)
		return false
	}
	q.updateEntityLag(se, p)
	if p.Version != V66 && p.PlaceRelDeadline && flags&flagWakeup == 0 {
		se.Deadline -= se.Vruntime
		se.relDeadline = true
	}
	if se != q.curr {
		q.dequeueTree(se)
	}
	se.onRQ = false
	q.accountDequeue(se)
	q.updateGroup(se, now, p)
	if flags&flagDelayed != 0 {
		se.delayed = false
		if p.Version == V618 && p.DelayZero && se.VLag > 0 {
			se.VLag = 0 // v6.18's finish_delayed_dequeue_entity
		}
	}
	if p.Version == V66 && flags&flagSave == 0 {
		q.updateMinVruntime()
	}
	return true
}

// delayDequeue marks se, a sleeper that is not eligible, delayed (set_delayed). v7.1 saves its
// lag first; v6.18's dequeue_entity returns before update_entity_lag, leaving it as it was. It
// is not inlined, so that dequeueEEVDF's common path stays as short as it was before v6.18.
//
//go:noinline
func (q *Queue) delayDequeue(se *Entity, p *Params) {
	if p.Version != V618 {
		q.updateEntityLag(se, p)
	}
	se.delayed = true
}

// setNextEEVDF is set_next_entity of v6.6 and v7.1. v6.6 stashes the deadline in VLag (the
// RUN_TO_PARITY hack); v7.1 sets the slice protection point when first is set (a pick, not a
// renice).
func (q *Queue) setNextEEVDF(se *Entity, now uint64, first bool, p *Params) {
	q.clearBuddies(se)
	if se.onRQ {
		q.dequeueTree(se)
		if p.Version == V66 {
			se.VLag = int64(se.Deadline)
		} else if first {
			se.VProt = protectPoint(q, se, p)
		}
	}
	se.ExecStart = now
	q.curr = se
	se.prevSumExecRuntime = se.SumExecRuntime
}

// updateProtect is v7.1's update_protect_slice: a wakee with a shorter slice shortens the
// running entity's protection to that slice.
func (q *Queue) updateProtect(se *Entity, p *Params) {
	se.VProt = MinVruntime(se.VProt, se.Vruntime+CalcDeltaFair(p.CalcDelta, q.MinSlice(), se.load))
}

// cancelProtect is v7.1's cancel_protect_slice.
func cancelProtect(se *Entity) {
	if protected(se) {
		se.VProt = se.Vruntime
	}
}

// reweightEEVDF is reweight_entity of v6.6 and v7.1, changing se's load to w.
//
// v6.6 keeps the vruntime of a queued entity and scales its relative deadline by old/new
// weight (in place on the timeline); an entity off its queue has its saved lag scaled instead.
// v7.1 takes a queued entity out, scales its lag, relative deadline and (if running and
// protected) relative protection point, and puts it back at V - lag: reweighting does not move
// the average.
func (q *Queue) reweightEEVDF(se *Entity, w LoadWeight, now uint64, p *Params) {
	old := se.load.Weight
	if p.Version == V66 {
		if se.onRQ {
			if q.curr == se {
				q.updateCurrEEVDF(now, p)
			} else {
				q.sumSub(se)
			}
			q.setLoad(q.load.sub(old))
		}
		se.load = w
		if !se.onRQ {
			se.VLag = divS64(int64(uint64(se.VLag)*old), w.Weight)
		} else {
			d := divS64(int64((se.Deadline-se.Vruntime)*old), w.Weight)
			se.Deadline = se.Vruntime + uint64(d)
			if se != q.curr {
				q.timeline.UpdateAug(&se.node, se.Deadline)
			}
			q.setLoad(q.load.add(w.Weight))
			if se != q.curr {
				q.sumAdd(se)
			}
		}
		return
	}
	if p.Version == V618 {
		q.reweight618(se, w, now, p)
		return
	}
	curr := q.curr == se
	relVprot := false
	var avr uint64
	if se.onRQ {
		q.updateCurrEEVDF(now, p)
		avr = q.avgVruntime()
		se.VLag = EntityLag(q, se, avr, p)
		se.Deadline -= avr
		se.relDeadline = true
		if curr && protected(se) {
			se.VProt -= avr
			relVprot = true
		}
		if !curr {
			q.dequeueTree(se)
		}
		q.setLoad(q.load.sub(old))
	}
	// rescale_entity: div64_long of the wrapped products.
	nw := int64(w.Weight)
	se.VLag = int64(uint64(se.VLag)*old) / nw
	if se.relDeadline {
		se.Deadline = uint64(int64(se.Deadline*old) / nw)
	}
	if relVprot {
		se.VProt = uint64(int64(se.VProt*old) / nw)
	}
	se.load = w
	if se.onRQ {
		if relVprot {
			se.VProt += avr
		}
		se.Deadline += avr
		se.relDeadline = false
		se.Vruntime = avr - uint64(se.VLag)
		q.setLoad(q.load.add(w.Weight))
		if !curr {
			q.enqueueTree(se)
		}
	}
}

// reweight618 is v6.18's reweight_entity (fair.c blob 7e0e2044d840), changing se's load to w.
// Unlike v7.1's it keeps a queued entity's deadline and (if running and protected) protection
// point relative to its own vruntime, scales them and its lag with div_s64, and puts it back
// with place_entity, whose PLACE_LAG inflates the lag by (W + w)/W when other entities are
// queued.
func (q *Queue) reweight618(se *Entity, w LoadWeight, now uint64, p *Params) {
	old := se.load.Weight
	curr := q.curr == se
	relVprot := false
	var vprot uint64
	if se.onRQ {
		q.updateCurrEEVDF(now, p)
		q.updateEntityLag(se, p)
		se.Deadline -= se.Vruntime
		se.relDeadline = true
		if curr && protected(se) {
			vprot, relVprot = se.VProt-se.Vruntime, true
		}
		q.nrRunning--
		if !curr {
			q.dequeueTree(se)
		}
		q.setLoad(q.load.sub(old))
	}
	se.VLag = divS64(int64(uint64(se.VLag)*old), w.Weight)
	if se.relDeadline {
		se.Deadline = uint64(divS64(int64(se.Deadline*old), w.Weight))
	}
	if relVprot {
		vprot = uint64(divS64(int64(vprot*old), w.Weight))
	}
	se.load = w
	if se.onRQ {
		q.placeEntity(se, 0, p)
		if relVprot {
			se.VProt = se.Vruntime + vprot
		}
		q.setLoad(q.load.add(w.Weight))
		if !curr {
			q.enqueueTree(se)
		}
		q.nrRunning++
	}
}
