// This file implements Pool: tenants share workers by virtual runtime, with package timeline's
// red-black tree and cfs's weight arithmetic reused as a library.

package main

import (
	"sync"
	"time"

	"github.com/schedkit/schedkit/cfs"
	"github.com/schedkit/schedkit/timeline"
)

// A Job is a unit of a tenant's work. Pool never runs it; it only decides whose job goes next.
type Job struct {
	// ID identifies the job to the caller.
	ID int
	// Submitted is when the job arrived, in the caller's clock; the pool only carries it.
	Submitted time.Duration
}

// A Tenant is a client of the pool with a weight: over any busy period, tenants that always
// have work get worker time in proportion to their weights, as CFS divides a CPU between
// tasks (and cgroups, whose cpu.weight this is) by theirs.
type Tenant struct {
	// Name identifies the tenant in output.
	Name string

	node     timeline.Node[Tenant]
	load     cfs.LoadWeight // the weight scaled to load units, as the kernel's se->load
	vruntime uint64         // worker time received, scaled by NICE_0_LOAD/weight (wraps)
	pending  []Job          // FIFO of queued jobs
	inFlight int            // jobs handed out and not yet Done
	served   time.Duration  // total worker time charged
}

// Vruntime returns the tenant's virtual runtime: nanoseconds of worker time, each weighted by
// 1024/weight, counted from the pool's origin (uint64 arithmetic that wraps, as in the kernel).
func (t *Tenant) Vruntime() uint64 { return t.vruntime }

// Served returns the worker time charged to the tenant so far.
func (t *Tenant) Served() time.Duration { return t.served }

// A Pool chooses which tenant's job a free worker runs next: the tenant with queued jobs and
// the smallest virtual runtime. Every tenant with work (queued or running) sits on a
// timeline.Timeline (the red-black tree the kernel keeps its runnable entities in) keyed by its
// vruntime, so the choice is the leftmost node, skipping at most the tenants whose every job
// is already running (fewer than the number of workers). Charging a finished job costs
// O(log n) in the number of tenants with work.
//
// Three pieces of CFS carry over as they are:
//   - a finished job of d nanoseconds advances its tenant's vruntime by
//     d × NICE_0_LOAD / weight, computed by cfs.CalcDeltaFair with the kernel's fixed-point
//     __calc_delta (so weight 2048 is charged half, weight 512 twice);
//   - the pool keeps min_vruntime, the smallest vruntime of the tenants with work, never
//     moving backwards (update_min_vruntime, which counts the running entity too);
//   - a tenant that had nothing queued and submits again is placed as v6.5's place_entity
//     places a waking task: at max(its own vruntime, min_vruntime − credit), where credit is
//     half of sysctl_sched_latency under GENTLE_FAIR_SLEEPERS. An idle tenant therefore keeps
//     no unbounded credit: after a night of silence it does not get the whole pool until it
//     has caught up on everything it did not use.
//
// A Pool is safe for concurrent use by producers and workers.
type Pool struct {
	mu      sync.Mutex
	queued  timeline.Timeline[Tenant] // tenants with pending jobs, by vruntime
	minVrt  uint64
	credit  uint64
	tenants []*Tenant
}

// DefaultCredit is half of CFS's default sched_latency (6 ms): the most a returning tenant is
// placed behind the queue's min_vruntime.
const DefaultCredit = 3 * time.Millisecond

// NewPool returns a pool that gives a returning tenant at most credit of head start.
func NewPool(credit time.Duration) *Pool {
	if credit < 0 {
		panic("fairshare: NewPool with a negative credit")
	}
	// Start near the top of the uint64 range, as the kernel starts min_vruntime at
	// -(1<<20): the comparisons are wrap-aware, so wrapping early proves they are.
	return &Pool{minVrt: cfs.InitialMinVruntime, credit: uint64(credit)}
}

// AddTenant adds a tenant of the given weight (cpu.weight-like: 1024 is the default; 1 to
// 1<<20). It starts at the pool's min_vruntime, owing nothing and owed nothing.
func (p *Pool) AddTenant(name string, weight uint64) *Tenant {
	if weight < 1 || weight > 1<<20 {
		panic("fairshare: AddTenant weight outside 1..1<<20")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &Tenant{Name: name, load: cfs.LoadWeight{Weight: cfs.ScaleLoad(weight)}, vruntime: p.minVrt}
	t.node.Init(t)
	p.tenants = append(p.tenants, t)
	return t
}

// Submit queues j for t. If t had nothing queued, it is placed as a waking task is.
func (p *Pool) Submit(t *Tenant, j Job) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t.pending = append(t.pending, j)
	if !t.node.Queued() {
		// place_entity for a wake-up: no more credit than p.credit behind min_vruntime.
		t.vruntime = cfs.MaxVruntime(t.vruntime, p.minVrt-p.credit)
		p.queued.Insert(&t.node, t.vruntime)
	}
}

// Next hands out the next job: the oldest job of the tenant with queued jobs and the smallest
// vruntime. It reports false if no tenant has a queued job.
func (p *Pool) Next() (*Tenant, Job, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n := p.queued.First(); n != nil; n = n.Next() {
		t := n.Value()
		if len(t.pending) == 0 {
			continue // all of its jobs are running
		}
		j := t.pending[0]
		t.pending = t.pending[1:]
		t.inFlight++
		return t, j, true
	}
	return nil, Job{}, false
}

// Done charges t for d of worker time spent on one of the jobs Next handed out. A tenant left
// with nothing queued or running leaves the timeline, keeping its vruntime for its return.
func (p *Pool) Done(t *Tenant, d time.Duration) {
	if d < 0 {
		panic("fairshare: Done with a negative duration")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.inFlight == 0 {
		panic("fairshare: Done for a tenant with no job handed out")
	}
	t.inFlight--
	t.served += d
	p.queued.Remove(&t.node)
	t.vruntime += cfs.CalcDeltaFair(cfs.DeltaWMult, uint64(d), t.load)
	// update_curr then update_min_vruntime: the charged tenant counts as the running entity.
	v := t.vruntime
	if n := p.queued.First(); n != nil && cfs.Before(n.Key(), v) {
		v = n.Key()
	}
	p.minVrt = cfs.MaxVruntime(p.minVrt, v)
	if t.inFlight > 0 || len(t.pending) > 0 {
		p.queued.Insert(&t.node, t.vruntime)
	}
}

// MinVruntime returns the pool's min_vruntime.
func (p *Pool) MinVruntime() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.minVrt
}
