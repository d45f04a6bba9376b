// Command fairshare shares a pool of workers between tenants by weight, with the virtual
// runtime mechanism of Linux's CFS: schedkit's timeline.Timeline (the kernel's red-black tree of
// runnable entities, leftmost cached) and its exact weight arithmetic (cfs.CalcDeltaFair,
// __calc_delta), used as a library rather than through the simulator.
//
// Run it with
//
//	go run ./examples/fairshare
//
// Four workers serve three CPU-bound tenants of weights 1024, 2048 and 512, a light "web"
// tenant that sends a 1 ms request every 10 ms, and a "nightly" tenant that is silent for the
// first two seconds and then arrives with a backlog. The program plays it on a simulated clock
// (so the output is the same on every machine; Pool itself reads no clock: the caller says how
// long each job took) and prints each tenant's share of the workers per second, which
// converges to the weights, the light tenant's queueing delay beside what a plain FIFO pool
// gives it, and what the returning tenant gets in its first 100 ms back, with CFS's placement
// rule and without it.
//
//	go run ./examples/fairshare -real [-workers N] [-for 3s]
//
// runs the same Pool for real: N goroutine workers (as many as CPUs by default), each locked
// to its OS thread, take jobs from it; every job is a CPU-bound loop of a nominal size per
// tenant (5, 3 and 8 ms of CPU for the three batch tenants, 1 ms for the light one), and what
// it is charged is its thread's CPU time (CLOCK_THREAD_CPUTIME_ID), not its wall-clock time,
// because vruntime charges time on a CPU and a worker thread on a shared machine is preempted
// mid-job. It prints the batch tenants' shares of the CPU time per window beside their
// weights' shares, then runs a FIFO pool on the same load and prints the light tenant's
// submit-to-start delay under both. That output depends on the machine and its load.
//
// Why this beats the obvious version: a FIFO pool serves whoever queued first, so a tenant
// with a backlog takes every worker and a light tenant waits behind all of it; round robin
// between tenants ignores weights and job lengths; counting "jobs served" instead of time
// favours tenants with long jobs. Virtual runtime charges time, by weight, and the placement
// rule bounds what an idle tenant can claim when it returns.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"time"
)

func main() {
	realMode := flag.Bool("real", false, "run real CPU-bound jobs on real workers instead of the simulated clock")
	workers := flag.Int("workers", runtime.NumCPU(), "with -real: worker goroutines, each locked to a thread")
	dur := flag.Duration("for", 3*time.Second, "with -real: how long each pool (fair, then FIFO) runs")
	flag.Parse()
	if !*realMode {
		run(os.Stdout)
		return
	}
	if *workers < 1 || *dur < 100*time.Millisecond {
		fmt.Fprintln(os.Stderr, "fairshare: -workers must be at least 1 and -for at least 100ms")
		os.Exit(2)
	}
	runRealMode(os.Stdout, *workers, *dur)
}

const (
	workers   = 4
	batchJob  = 5 * time.Millisecond
	webJob    = 1 * time.Millisecond
	webPeriod = 10 * time.Millisecond
	horizon   = 5 * time.Second
	nightlyAt = 2 * time.Second
)

type spec struct {
	name    string
	weight  uint64
	backlog int           // jobs queued at start (or at nightlyAt for the nightly tenant)
	at      time.Duration // when the tenant first submits
}

var specs = []spec{
	{"batch-a", 1024, 1 << 30, 0},
	{"batch-b", 2048, 1 << 30, 0},
	{"batch-c", 512, 1 << 30, 0},
	{"web", 1024, 0, 0},
	{"nightly", 1024, 1 << 30, nightlyAt},
}

// scheduler is what the simulation drives: the fair Pool or the FIFO baseline.
type scheduler interface {
	submit(tenant int, j Job)
	next() (tenant int, j Job, ok bool)
	done(tenant int, d time.Duration)
}

type fairSched struct {
	p  *Pool
	ts []*Tenant
	ix map[*Tenant]int
}

func newFair(credit time.Duration, specs []spec) *fairSched {
	f := &fairSched{p: NewPool(credit), ix: map[*Tenant]int{}}
	for i, s := range specs {
		t := f.p.AddTenant(s.name, s.weight)
		f.ts = append(f.ts, t)
		f.ix[t] = i
	}
	return f
}

func (f *fairSched) submit(i int, j Job) { f.p.Submit(f.ts[i], j) }
func (f *fairSched) next() (int, Job, bool) {
	t, j, ok := f.p.Next()
	if !ok {
		return 0, Job{}, false
	}
	return f.ix[t], j, true
}
func (f *fairSched) done(i int, d time.Duration) { f.p.Done(f.ts[i], d) }

// fifoSched is the obvious pool: one queue in arrival order.
type fifoSched struct {
	q []struct {
		t int
		j Job
	}
}

func (f *fifoSched) submit(i int, j Job) {
	f.q = append(f.q, struct {
		t int
		j Job
	}{i, j})
}
func (f *fifoSched) next() (int, Job, bool) {
	if len(f.q) == 0 {
		return 0, Job{}, false
	}
	x := f.q[0]
	f.q = f.q[1:]
	return x.t, x.j, true
}
func (f *fifoSched) done(int, time.Duration) {}

// result is what one simulated run measured.
type result struct {
	served    [][]time.Duration // [second][tenant] worker time
	webDelays []time.Duration   // queueing delay of each web request
	nightly   time.Duration     // nightly's worker time in its first 100 ms back
}

// simulate plays the workload on a simulated clock. Backlogs are fed lazily (a CPU-bound
// tenant always has a few jobs queued) so the FIFO baseline sees a realistic queue.
func simulate(s scheduler) result {
	p := newPoolSim(s)
	nextWeb := time.Duration(0)
	now := time.Duration(0)
	for now < horizon {
		p.feed(now)
		p.dispatch(now)
		// The next event: a worker finishing or a web request arriving (or the nightly
		// tenant's return).
		next := nextWeb
		if now < nightlyAt && nightlyAt < next {
			next = nightlyAt
		}
		for _, b := range p.running {
			next = min(next, b.until)
		}
		now = next
		if now == nextWeb {
			p.jobID++
			s.submit(3, Job{ID: p.jobID, Submitted: now})
			p.queued[3]++
			nextWeb += webPeriod
		}
		p.finish(now)
	}
	return p.r
}

// A poolSim is the pool of workers simulate runs: the jobs each tenant has left to submit and
// has queued, the jobs running (each on a worker until a time), and the result so far.
type poolSim struct {
	s       scheduler
	r       result
	running []busy
	idle    int
	left    []int
	queued  []int
	jobID   int
}

// A busy worker runs a job of tenant from start until until.
type busy struct {
	until  time.Duration
	tenant int
	start  time.Duration
}

func newPoolSim(s scheduler) *poolSim {
	p := &poolSim{s: s, r: result{served: make([][]time.Duration, horizon/time.Second)}, idle: workers,
		left: make([]int, len(specs)), queued: make([]int, len(specs))}
	for i := range p.r.served {
		p.r.served[i] = make([]time.Duration, len(specs))
	}
	for i, sp := range specs {
		p.left[i] = sp.backlog
	}
	return p
}

// feed submits the batch tenants' jobs due by now, keeping at most two per worker queued.
func (p *poolSim) feed(now time.Duration) {
	for i, sp := range specs {
		for sp.backlog > 0 && now >= sp.at && p.left[i] > 0 && p.queued[i] < 2*workers {
			p.jobID++
			p.s.submit(i, Job{ID: p.jobID, Submitted: now})
			p.left[i]--
			p.queued[i]++
		}
	}
}

// charge credits tenant t with the worker time from..to, second by second, and the nightly
// tenant's first 100 ms after its return apart.
func (p *poolSim) charge(t int, from, to time.Duration) {
	for from < to && from < horizon {
		sec := from / time.Second
		end := min(to, (sec+1)*time.Second)
		p.r.served[sec][t] += end - from
		if specs[t].name == "nightly" {
			lo, hi := max(from, nightlyAt), min(end, nightlyAt+100*time.Millisecond)
			if hi > lo {
				p.r.nightly += hi - lo
			}
		}
		from = end
	}
}

// dispatch gives each idle worker the job the scheduler picks next, recording a web request's
// wait.
func (p *poolSim) dispatch(now time.Duration) {
	for p.idle > 0 {
		t, j, ok := p.s.next()
		if !ok {
			return
		}
		p.queued[t]--
		d := batchJob
		if specs[t].name == "web" {
			d = webJob
			p.r.webDelays = append(p.r.webDelays, now-j.Submitted)
		}
		p.running = append(p.running, busy{now + d, t, now})
		p.idle--
		p.feed(now)
	}
}

// finish ends the jobs due at now: the scheduler learns how long each ran, its tenant is
// charged, and its worker is idle.
func (p *poolSim) finish(now time.Duration) {
	kept := p.running[:0]
	for _, b := range p.running {
		if b.until == now {
			p.s.done(b.tenant, b.until-b.start)
			p.charge(b.tenant, b.start, b.until)
			p.idle++
		} else {
			kept = append(kept, b)
		}
	}
	p.running = kept
}

func percentile(xs []time.Duration, p float64) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// run prints the lesson to w; the output is deterministic.
func run(w io.Writer) {
	fair, fifo := simulate(newFair(DefaultCredit, specs)), simulate(&fifoSched{})
	unbounded := simulate(newFair(1<<62, specs)) // placement off: a returning tenant keeps all its credit
	fmt.Fprintf(w, "%d workers; share of worker time per second (weights in brackets):\n", workers)
	fmt.Fprintf(w, "%-8s", "second")
	for _, sp := range specs {
		fmt.Fprintf(w, " %12s", fmt.Sprintf("%s[%d]", sp.name, sp.weight))
	}
	fmt.Fprintln(w)
	for sec, row := range fair.served {
		fmt.Fprintf(w, "%-8d", sec)
		for _, d := range row {
			fmt.Fprintf(w, " %11.1f%%", 100*float64(d)/float64(workers*time.Second))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "expected once all five are busy: weights 1024:2048:512 share what web leaves (10% of one worker = 2.5%)")
	fmt.Fprintf(w, "  batch-a %.1f%%  batch-b %.1f%%  batch-c %.1f%%  nightly %.1f%%\n",
		97.5*1024/4608, 97.5*2048/4608, 97.5*512/4608, 97.5*1024/4608)
	fmt.Fprintln(w, "web request queueing delay (1 ms every 10 ms):")
	for _, r := range []struct {
		name string
		res  result
	}{{"fair pool", fair}, {"FIFO pool", fifo}} {
		d := r.res.webDelays
		fmt.Fprintf(w, "  %-9s p50 %-8v p99 %-8v max %v\n", r.name, percentile(d, 50), percentile(d, 99), percentile(d, 100))
	}
	fmt.Fprintf(w, "nightly in its first 100 ms back: %v of worker time (%.0f%% of the pool; its weight's share is %.0f%%)\n",
		fair.nightly, 100*float64(fair.nightly)/float64(workers*100*time.Millisecond), 100*1024.0/4608)
	fmt.Fprintf(w, "without the placement rule it would keep 2 s of credit: %v (%.0f%% of the pool)\n",
		unbounded.nightly, 100*float64(unbounded.nightly)/float64(workers*100*time.Millisecond))
}
