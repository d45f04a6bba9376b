// This file is the -real mode: the same Pool driven by real goroutine workers running real
// CPU-bound jobs, each charged the CPU time its thread spent on it.

package main

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// The real load: three CPU-bound tenants with different weights and different job sizes (so
// that counting jobs instead of time would be visibly wrong), and a light tenant with one 1 ms
// request outstanding at a time, the next sent 10 ms after the answer. (An open-loop tenant
// sending 1 ms every 10 ms, as the simulation has it, asks for a tenth of a CPU whatever the
// workers get; on a machine shared with other jobs they may get less than a quarter of the
// CPUs, and then it is no longer light: it is backlogged at its weight's share.) Sizes are
// nominal CPU time, turned into loop iterations by calibrate; what the pool is charged is
// what the job measured.
var realSpecs = []spec{
	{name: "batch-a", weight: 1024},
	{name: "batch-b", weight: 2048},
	{name: "batch-c", weight: 512},
	{name: "web", weight: 1024},
}

var realJob = []time.Duration{5 * time.Millisecond, 3 * time.Millisecond, 8 * time.Millisecond, webJob}

const realWeb = 3 // index of the light tenant in realSpecs

// threadCPU returns the CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID, which
// Linux keeps from the scheduler's sum_exec_runtime, to the nanosecond). The caller must be
// locked to its thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic("fairshare: clock_gettime(CLOCK_THREAD_CPUTIME_ID): " + err.Error())
	}
	return time.Duration(ts.Nano())
}

// spin is the CPU-bound job: n rounds of xorshift64, no memory traffic, no allocation (so no
// GC assist is charged to it). Its callers add the result to spinSink, so the loop cannot be
// optimised away.
func spin(n int) uint64 {
	x := uint64(n) | 1
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

var spinSink atomic.Uint64

// calibrate returns how many spin rounds take one millisecond of this thread's CPU time.
func calibrate() int {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n := 1 << 16
	for {
		c0 := threadCPU()
		spinSink.Add(spin(n))
		if d := threadCPU() - c0; d >= 20*time.Millisecond {
			return max(1, int(float64(n)*float64(time.Millisecond)/float64(d)))
		}
		n *= 2
	}
}

// realConfig describes one real run.
type realConfig struct {
	workers int           // goroutines, each locked to its own thread
	dur     time.Duration // wall-clock length of the run
	windows int           // reporting windows the run is divided into
	// minCPU, if positive, ends the run as soon as the batch tenants have been charged this
	// much CPU time in total (dur still bounds it).
	minCPU time.Duration
	perMs  int // spin rounds per millisecond of CPU time, from calibrate
}

// realResult is what one real run measured.
type realResult struct {
	elapsed time.Duration
	cpu     [][]time.Duration // [window][tenant] CPU time charged, by when the job ended
	wall    time.Duration     // the same jobs' wall-clock time, all tenants
	delays  []time.Duration   // the light tenant's queueing delays (submit to start)
	maxJob  []time.Duration   // each tenant's largest charge for one job
	jobs    []int
	idle    int // times a worker found nothing queued
}

// workerStats is one worker's share of a realResult, merged when the run ends.
type workerStats struct {
	cpu    [][]time.Duration
	wall   time.Duration
	delays []time.Duration
	maxJob []time.Duration
	jobs   []int
	idle   int
}

// lockedFIFO is fifoSched made safe for concurrent workers.
type lockedFIFO struct {
	mu sync.Mutex
	f  fifoSched
}

func (l *lockedFIFO) submit(i int, j Job) { l.mu.Lock(); l.f.submit(i, j); l.mu.Unlock() }
func (l *lockedFIFO) next() (int, Job, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.next()
}
func (l *lockedFIFO) done(int, time.Duration) {}

// runReal drives s with cfg.workers goroutines, each locked to an OS thread, for cfg.dur (or
// until cfg.minCPU). Each batch tenant keeps 2×workers jobs queued or running (a finished job
// is replaced by a new one), so it always has work; the light tenant's goroutine submits one
// job, waits for it to finish, waits webPeriod, and so on. A job's charge is its thread's CPU time from start to end,
// not its wall-clock time: vruntime is what CFS charges for time on a CPU (sum_exec_runtime),
// and on a machine shared with other processes a worker thread is preempted mid-job, so wall
// time would charge a tenant for time the kernel gave to someone else.
func runReal(s scheduler, cfg realConfig) realResult {
	// Every worker spins; the light tenant's producer and the timer need a P of their own, or
	// they wait for the Go scheduler's 10 ms preemption and its submissions bunch up.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), cfg.workers+1)))
	n := len(realSpecs)
	r := &realRun{s: s, cfg: cfg, iters: make([]int, n), winLen: cfg.dur / time.Duration(cfg.windows),
		t0: time.Now(), stopped: make(chan struct{}), webDone: make(chan struct{}, 1)}
	for i, d := range realJob {
		r.iters[i] = int(int64(cfg.perMs) * int64(d) / int64(time.Millisecond))
	}
	for i := range realSpecs {
		if i != realWeb {
			for range 2 * cfg.workers {
				s.submit(i, Job{})
			}
		}
	}
	stats := make([]*workerStats, cfg.workers)
	var wg sync.WaitGroup
	for w := range stats {
		st := &workerStats{cpu: make([][]time.Duration, cfg.windows), maxJob: make([]time.Duration, n), jobs: make([]int, n)}
		for k := range st.cpu {
			st.cpu[k] = make([]time.Duration, n)
		}
		stats[w] = st
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.worker(st)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.light()
	}()
	for time.Since(r.t0) < cfg.dur && (cfg.minCPU <= 0 || time.Duration(r.batchCPU.Load()) < cfg.minCPU) {
		time.Sleep(5 * time.Millisecond)
	}
	r.stop.Store(true)
	close(r.stopped)
	wg.Wait()
	return mergeStats(stats, time.Since(r.t0), cfg.windows)
}

// A realRun is what runReal's goroutines share: the scheduler, the configuration, each
// tenant's job length in spin iterations, the length of a window, the start, and the signals
// between them.
type realRun struct {
	s        scheduler
	cfg      realConfig
	iters    []int
	winLen   time.Duration
	t0       time.Time
	stop     atomic.Bool   // the workers stop taking jobs
	stopped  chan struct{} // closed when the run is over
	webDone  chan struct{} // a light tenant's job finished
	batchCPU atomic.Int64  // CPU time the batch tenants' jobs took, ns
}

// worker is one worker, locked to its OS thread: it takes the next job from the scheduler,
// spins for it and charges its thread's CPU time, replacing a batch job by a new one, until
// the run stops. It records what it did in st.
func (r *realRun) worker(st *workerStats) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var sink uint64
	defer func() { spinSink.Add(sink) }()
	for !r.stop.Load() {
		i, j, ok := r.s.next()
		if !ok {
			st.idle++
			time.Sleep(50 * time.Microsecond)
			continue
		}
		start := time.Since(r.t0)
		if i == realWeb {
			st.delays = append(st.delays, start-j.Submitted)
		}
		c0 := threadCPU()
		sink += spin(r.iters[i])
		d := threadCPU() - c0
		end := time.Since(r.t0)
		r.s.done(i, d)
		st.wall += end - start
		st.cpu[min(int(end/r.winLen), r.cfg.windows-1)][i] += d
		st.maxJob[i] = max(st.maxJob[i], d)
		st.jobs[i]++
		if i == realWeb {
			r.webDone <- struct{}{}
		} else {
			r.batchCPU.Add(int64(d))
			r.s.submit(i, Job{Submitted: end})
		}
	}
}

// light is the light tenant: one request at a time, the next webPeriod after an answer, until
// the run stops.
func (r *realRun) light() {
	for {
		r.s.submit(realWeb, Job{Submitted: time.Since(r.t0)})
		select {
		case <-r.webDone:
		case <-r.stopped:
			return
		}
		select {
		case <-time.After(webPeriod):
		case <-r.stopped:
			return
		}
	}
}

// mergeStats adds up the workers' records of a run that lasted elapsed, in windows windows.
func mergeStats(stats []*workerStats, elapsed time.Duration, windows int) realResult {
	n := len(realSpecs)
	r := realResult{elapsed: elapsed, cpu: make([][]time.Duration, windows), maxJob: make([]time.Duration, n), jobs: make([]int, n)}
	for k := range r.cpu {
		r.cpu[k] = make([]time.Duration, n)
	}
	for _, st := range stats {
		for k, row := range st.cpu {
			for i, d := range row {
				r.cpu[k][i] += d
			}
		}
		for i := range n {
			r.maxJob[i] = max(r.maxJob[i], st.maxJob[i])
			r.jobs[i] += st.jobs[i]
		}
		r.wall += st.wall
		r.delays = append(r.delays, st.delays...)
		r.idle += st.idle
	}
	return r
}

// batchShares returns each batch tenant's share of the CPU time the batch tenants received in
// cpu (the light tenant, which asks for less than its weight's share, is left out), and the
// shares their weights give them.
func batchShares(cpu []time.Duration) (got, want []float64) {
	var sum time.Duration
	var wsum uint64
	for i, d := range cpu {
		if i != realWeb {
			sum += d
			wsum += realSpecs[i].weight
		}
	}
	for i, d := range cpu {
		if i != realWeb {
			got = append(got, float64(d)/float64(max(sum, 1)))
			want = append(want, float64(realSpecs[i].weight)/float64(wsum))
		}
	}
	return got, want
}

func sumRow(row []time.Duration) (s time.Duration) {
	for _, d := range row {
		s += d
	}
	return s
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/1e6) }

// runRealMode runs the real load under the fair pool and then under a FIFO pool and prints
// what it measured. The output depends on the machine and on what else runs on it.
func runRealMode(w io.Writer, workers int, dur time.Duration) {
	const windows = 6
	cfg := realConfig{workers: workers, dur: dur, windows: windows, perMs: calibrate()}
	fair := newFair(DefaultCredit, realSpecs)
	fr := runReal(fair, cfg)
	fifo := runReal(&lockedFIFO{}, cfg)

	fmt.Fprintf(w, "real load: %d workers (goroutines locked to threads) on %d CPUs, %v per pool; each job is a\n", workers, runtime.NumCPU(), dur)
	fmt.Fprintf(w, "CPU-bound loop (1 ms of CPU = %d rounds here) charged its thread's CPU time\n", cfg.perMs)
	fmt.Fprintln(w, "batch tenants' share of the CPU time they received, per window (weight in brackets, nominal job after the slash):")
	fmt.Fprintf(w, "%-11s", "window")
	for i, sp := range realSpecs {
		if i != realWeb {
			fmt.Fprintf(w, " %17s", fmt.Sprintf("%s[%d]/%v", sp.name, sp.weight, realJob[i]))
		}
	}
	fmt.Fprintf(w, " %8s %7s %9s\n", "web/all", "on-CPU", "cum. dev")
	winLen := dur / windows
	cum := make([]time.Duration, len(realSpecs))
	for k, row := range fr.cpu {
		for i, d := range row {
			cum[i] += d
		}
		got, _ := batchShares(row)
		cg, cw := batchShares(cum)
		dev := 0.0
		for i := range cg {
			dev = max(dev, abs(cg[i]-cw[i]))
		}
		fmt.Fprintf(w, "%-11s", fmt.Sprintf("%.2f-%.2fs", (time.Duration(k)*winLen).Seconds(), (time.Duration(k+1)*winLen).Seconds()))
		for _, g := range got {
			fmt.Fprintf(w, " %16.1f%%", 100*g)
		}
		fmt.Fprintf(w, " %7.1f%% %6.0f%% %7.2fpt\n", 100*float64(row[realWeb])/float64(max(sumRow(row), 1)),
			100*float64(sumRow(row))/float64(time.Duration(workers)*winLen), 100*dev)
	}
	got, want := batchShares(cum)
	fmt.Fprintf(w, "%-11s", "whole run")
	for _, g := range got {
		fmt.Fprintf(w, " %16.1f%%", 100*g)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-11s", "weights")
	for _, g := range want {
		fmt.Fprintf(w, " %16.1f%%", 100*g)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "on-CPU: the workers' CPU time over workers × wall time; their jobs took %.2f× their CPU time in wall time\n",
		float64(fr.wall)/float64(max(sumRow(cum), 1)))
	fcum := make([]time.Duration, len(realSpecs))
	for _, row := range fifo.cpu {
		for i, d := range row {
			fcum[i] += d
		}
	}
	fg, _ := batchShares(fcum)
	fmt.Fprintf(w, "FIFO pool, same load: batch-a %.1f%%  batch-b %.1f%%  batch-c %.1f%% (by job size, weights ignored)\n", 100*fg[0], 100*fg[1], 100*fg[2])
	fmt.Fprintf(w, "web request queueing delay, submit to start (%v of CPU, the next %v after the answer):\n", webJob, webPeriod)
	for _, r := range []struct {
		name string
		res  realResult
	}{{"fair pool", fr}, {"FIFO pool", fifo}} {
		d := r.res.delays
		if len(d) == 0 {
			fmt.Fprintf(w, "  %-9s no request started\n", r.name)
			continue
		}
		fmt.Fprintf(w, "  %-9s p50 %-8s p99 %-8s max %-8s (%d requests)\n", r.name, ms(percentile(d, 50)), ms(percentile(d, 99)), ms(percentile(d, 100)), len(d))
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
