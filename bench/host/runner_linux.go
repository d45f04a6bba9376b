package host

// This file implements Run: a workload played by real OS threads, one locked goroutine per
// workload thread, measured from /proc.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
)

// Run plays w on the host kernel with real threads, until every thread has exited or
// opts.Limit has passed (or ctx is done, or the process gets SIGINT, SIGTERM or SIGHUP), and returns
// what it measured. See the package documentation for how each behaviour maps onto system calls.
//
// Run checks first what the host cannot do for w (a class or nice value it has no permission
// for, a cpu controller that is missing, CPUs outside the process's affinity mask, a custom slice
// on a kernel without them, real-time threads that could take every CPU) and returns a
// *MissingError before it starts anything, unless opts.SkipUnsupported. Every thread, child
// process and control group it creates is gone when it returns, whatever happened. Runs are
// serialized machine-wide: a Run waits while another process's Run or MeasurePipeline is
// measuring, since two at once would measure each other.
func Run(ctx context.Context, w *workload.Workload, opts Options) (res *Result, err error) {
	return run(ctx, w, opts, nil)
}

// run is Run with a hook that each thread calls before each op (tests inject panics with it).
func run(ctx context.Context, w *workload.Workload, opts Options, hook func(thread string, op *workload.Op)) (res *Result, err error) {
	if w == nil {
		return nil, errors.New("host: Run of a nil workload")
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	p, err := plan(w, &opts)
	if err != nil {
		return nil, err
	}
	unlock, err := lockHost(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	sweepLeftovers()
	r := &runner{w: w, opts: opts, plan: p, stopCh: make(chan struct{}), pipes: map[string]*hpipe{},
		tmpl: map[string]*workload.Thread{}, made: map[string]int{}, hook: hook}
	r.spin = newSpinner()
	defer func() {
		if e := r.cleanup(); e != nil && err == nil {
			res, err = nil, e
		}
	}()
	if err := r.prepare(); err != nil {
		return nil, err
	}
	// Every workload thread needs a P to run Go code, and a garbage collection would wait for
	// every spinning thread (see rawClock): give the run enough Ps and no collector.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(runtime.GOMAXPROCS(0) + MaxThreads + 2))
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	return r.run(ctx)
}

// A runner is one run in progress.
type runner struct {
	w    *workload.Workload
	opts Options
	plan *runPlan
	clk  clock
	t0   int64 // CLOCK_MONOTONIC at the start
	end  int64 // CLOCK_MONOTONIC at the limit
	spin spinner

	stop     uint32 // atomic: 1 once halted
	stopOnce sync.Once
	stopCh   chan struct{}
	stopfd   int

	pipes    map[string]*hpipe
	cg       *cgroups
	tmpl     map[string]*workload.Thread
	peers    []*peerProc
	record   *peerRecord // the peers' process groups, for the sweep after a SIGKILL
	messages atomic.Int64

	hook func(thread string, op *workload.Op)

	mu      sync.Mutex
	threads []*hthread
	made    map[string]int
	live    sync.WaitGroup
	err     error
}

// An hpipe is a workload pipe as two eventfd semaphores: items counts the messages in it, slots
// the room left (only with a capacity). A send takes a slot and gives an item; a recv takes an
// item and gives a slot; taking from a zero count blocks in poll(2) until a give.
type hpipe struct {
	items, slots int
	cap          int
	sends, recvs gives // the gives of items and of slots
}

// An hthread is one workload thread.
type hthread struct {
	id     int
	decl   *workload.Thread
	skip   skips
	parent *hthread
	attr   sched.Attr
	group  string
	tid    atomic.Int32
	rt     atomic.Bool
	rng    *rand.PCG
	kids   atomic.Int32
	kidEnd chan struct{}
	fin    atomic.Bool // the goroutine is done

	st      sim.ThreadStats
	slices  int64
	base    Schedstat
	baseSw  Switches
	baseMig int64
}

type result uint8

const (
	cont result = iota
	exited
	stopped
)

func (r *runner) prepare() error {
	fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("host: eventfd: %w", err)
	}
	r.stopfd = fd
	for i := range r.w.Pipes {
		pp := &r.w.Pipes[i]
		p := &hpipe{cap: pp.Cap, items: -1, slots: -1}
		r.pipes[pp.Name] = p
		if p.items, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK|unix.EFD_SEMAPHORE); err != nil {
			return fmt.Errorf("host: eventfd: %w", err)
		}
		if p.cap > 0 {
			if p.slots, err = unix.Eventfd(uint(p.cap), unix.EFD_CLOEXEC|unix.EFD_NONBLOCK|unix.EFD_SEMAPHORE); err != nil {
				return fmt.Errorf("host: eventfd: %w", err)
			}
		}
	}
	for i := range r.w.Threads {
		if d := &r.w.Threads[i]; d.Template {
			r.tmpl[d.Name] = d
		}
	}
	if len(r.w.Groups) > 0 && !r.plan.flatten {
		cg, err := newCgroups(r.plan.ctl, r.w.Groups, r.opts.Weight)
		if err != nil {
			return err
		}
		r.cg = cg
	}
	return nil
}

func (r *runner) run(ctx context.Context) (*Result, error) {
	sigc := r.catchSignals()
	if sigc != nil {
		defer signal.Stop(sigc)
	}
	gate := new(startGate)
	var ready sync.WaitGroup
	for i := range r.w.Threads {
		d := &r.w.Threads[i]
		for k := range d.Instances() {
			name := d.Name
			if d.Instances() > 1 {
				name += "." + strconv.Itoa(k)
			}
			t := r.newThread(d, name, nil)
			r.threads = append(r.threads, t)
		}
	}
	if len(r.threads) > MaxThreads {
		return nil, limitErr("%d threads, more than %d", len(r.threads), MaxThreads)
	}
	ready.Add(len(r.threads))
	for _, t := range r.threads {
		r.live.Add(1)
		go r.thread(t, gate, &ready)
	}
	ready.Wait()
	if err := r.firstErr(); err != nil {
		r.halt()
		gate.open()
		r.live.Wait()
		return nil, err
	}
	load0 := loadavg()
	stat0, _ := readProcStat()
	r.clk = newClock()
	r.t0 = r.clk.mono
	r.end = r.t0 + int64(r.opts.limit())
	if err := r.startPeers(); err != nil {
		r.halt()
		gate.open()
		r.live.Wait()
		return nil, err
	}
	gate.open()

	done := r.finished()
	timer := time.NewTimer(r.opts.limit())
	defer timer.Stop()
	var caught os.Signal
	var cause error
	select {
	case <-done:
	case <-timer.C:
	case caught = <-sigc:
		cause = fmt.Errorf("host: run interrupted by %v", caught)
	case <-ctx.Done():
		cause = ctx.Err()
	case <-r.stopCh:
	}
	stopAt := r.clk.now()
	r.halt()
	r.stopPeers()
	if err := r.awaitThreads(); err != nil {
		return nil, err
	}
	if caught != nil {
		r.cleanup()
		signal.Stop(sigc)
		raise(caught.(syscall.Signal))
	}
	if cause != nil {
		return nil, cause
	}
	if err := r.firstErr(); err != nil {
		return nil, err
	}
	stat1, _ := readProcStat()
	return r.result(stopAt, load0, stat0, stat1), nil
}

// catchSignals returns a channel that receives SIGINT, SIGTERM and SIGHUP for the run, which
// cleans up and re-raises them, or nil where Options.KeepSignals leaves them alone or the
// process ignores all three. A signal the process started with ignored (a background job's
// SIGINT, nohup's SIGHUP-style set-ups) stays ignored: catching it would un-ignore it, and the
// re-raise after the cleanup would then do nothing. The caller stops the notification.
func (r *runner) catchSignals() chan os.Signal {
	if r.opts.KeepSignals {
		return nil
	}
	var caught []os.Signal
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			caught = append(caught, sig)
		}
	}
	if len(caught) == 0 {
		return nil
	}
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, caught...)
	return sigc
}

// finished returns a channel closed when the run is done by itself: every awaited peer has
// exited, or, without awaited peers, every thread has ended (or the run was stopped).
func (r *runner) finished() <-chan struct{} {
	done := make(chan struct{})
	var awaited []*peerProc
	for _, pp := range r.peers {
		if pp.peer.Await {
			awaited = append(awaited, pp)
		}
	}
	go func() {
		if len(awaited) == 0 {
			r.live.Wait()
		}
		for _, pp := range awaited {
			select {
			case <-pp.done:
			case <-r.stopCh:
			}
		}
		close(done)
	}()
	return done
}

// awaitThreads waits for the halted run's threads to end: a quarter of Grace, then with the
// real-time ones demoted to SCHED_OTHER (a spinning real-time thread can keep the others off
// their CPUs), Grace more; past that it is an error.
func (r *runner) awaitThreads() error {
	threads := make(chan struct{})
	go func() { r.live.Wait(); close(threads) }()
	select {
	case <-threads:
	case <-time.After(Grace / 4):
		r.demoteRT()
		select {
		case <-threads:
		case <-time.After(Grace):
			return errors.New("host: threads did not stop within the grace period")
		}
	}
	return nil
}

func (r *runner) newThread(d *workload.Thread, name string, parent *hthread) *hthread {
	id := len(r.threads)
	t := &hthread{id: id, decl: d, skip: r.plan.skip[d], parent: parent, attr: d.Attr(0), group: d.Group,
		kidEnd: make(chan struct{}, MaxThreads)}
	t.rng = rand.NewPCG(r.opts.Seed, uint64(id)*0x9E3779B97F4A7C15+1)
	t.st = sim.ThreadStats{ID: sched.ID(id), Name: name, Parent: -1, End: -1, Decl: d.Name, Group: d.Group}
	if parent != nil {
		t.st.Parent = sched.ID(parent.id)
	}
	return t
}

// fail records the first error and stops the run.
func (r *runner) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.halt()
}

func (r *runner) firstErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// halt tells every thread to stop: the flag the spin loop checks, the eventfd every blocked
// poll watches, the channel joins watch, and a futex wake of the flag every sleep waits on.
func (r *runner) halt() {
	r.stopOnce.Do(func() {
		atomic.StoreUint32(&r.stop, 1)
		close(r.stopCh)
		var one [8]byte
		binary.NativeEndian.PutUint64(one[:], 1)
		_, _ = unix.Write(r.stopfd, one[:])
		futexWakeAll(&r.stop)
	})
}

// stopping reports whether the run is over: halted, or past its limit.
func (r *runner) stopping() bool { return (atomic.LoadUint32(&r.stop) != 0) || r.clk.now() >= r.end }

// demoteRT sets every real-time thread still alive back to SCHED_OTHER: the hard deadline.
func (r *runner) demoteRT() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.threads {
		if tid := t.tid.Load(); tid > 0 && t.rt.Load() {
			_ = setClass(int(tid), sched.Attr{})
		}
	}
}

// cleanup removes what the run created. It may be called more than once.
func (r *runner) cleanup() error {
	r.halt()
	r.stopPeers()
	var first error
	if err := r.cg.remove(); err != nil {
		first = err
	}
	r.cg = nil
	for _, p := range r.pipes {
		for _, fd := range []int{p.items, p.slots} {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
		p.items, p.slots = -1, -1
	}
	if r.stopfd > 0 {
		unix.Close(r.stopfd)
		r.stopfd = -1
	}
	return first
}

// thread is the goroutine of one workload thread. It locks itself to its OS thread and never
// unlocks, so that the thread, with the attributes it was given, ends with the goroutine.
func (r *runner) thread(t *hthread, gate *startGate, ready *sync.WaitGroup) {
	runtime.LockOSThread()
	defer r.live.Done()
	defer t.fin.Store(true)
	defer func() {
		if t.parent != nil {
			t.parent.kids.Add(-1)
			t.parent.kidEnd <- struct{}{}
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			r.fail(fmt.Errorf("host: thread %s panicked: %v\n%s", t.st.Name, p, debug.Stack()))
		}
	}()
	tid := unix.Gettid()
	t.tid.Store(int32(tid))
	if mask, err := blockPreemptSignal(); err != nil {
		r.fail(err)
	} else {
		defer restoreSignals(mask)
	}
	orig, origErr := saveAttrs(tid)
	if origErr != nil {
		r.fail(origErr)
	} else {
		// The Go runtime terminates a thread whose locked goroutine ends, except the main
		// thread, which it keeps: put back what the thread had, in case it is that one.
		defer r.restore(tid, orig)
	}
	err := r.setup(t, tid)
	if ready != nil {
		if err != nil {
			r.fail(err)
		}
		ready.Done()
		gate.wait()
	} else if err != nil {
		r.fail(err)
	}
	if err != nil || (atomic.LoadUint32(&r.stop) != 0) {
		t.tid.Store(0)
		return
	}
	if s := int64(t.decl.Start); s > 0 {
		if _, res := r.sleepUntil(r.t0 + s); res != cont {
			t.tid.Store(0)
			return
		}
	}
	start := r.clk.now()
	if err := t.readBase(tid); err != nil {
		r.fail(err)
		t.tid.Store(0)
		return
	}
	t.st.Start = start - r.t0
	res := r.exec(t, t.decl.Ops)
	end := r.clk.now()
	if res != stopped {
		t.st.End = end - r.t0
	}
	if err := t.readEnd(tid, end-start); err != nil {
		r.fail(err)
	}
	t.tid.Store(0)
}

// restore gives thread tid back its original class, nice value, affinity and cgroup.
func (r *runner) restore(tid int, o savedAttrs) {
	if err := o.restore(tid); err != nil {
		r.fail(err)
	}
	if r.cg != nil {
		if err := r.cg.moveBack(tid); err != nil {
			r.fail(err)
		}
	}
}

// setup gives thread tid its group, affinity and class, as the plan allows.
func (r *runner) setup(t *hthread, tid int) error {
	// The workload's timer slack; 1 ns, the least prctl takes (0 restores the default), for none.
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(max(t.decl.Slack, 1)), 0, 0, 0)
	if r.cg != nil && !t.skip.group && !t.attr.Class.RealTime() {
		if err := r.cg.move(tid, t.group); err != nil {
			return err
		}
	}
	if !t.skip.cpus && !t.attr.Affinity.IsEmpty() {
		if err := setAffinity(tid, t.attr.Affinity, r.plan.allowed); err != nil {
			return err
		}
	}
	return r.applyClass(t, tid)
}

// applyClass applies t.attr's class, nice value, real-time priority and slice.
func (r *runner) applyClass(t *hthread, tid int) error {
	a := t.attr
	if t.skip.class {
		a.Class, a.RTPrio = sched.Normal, 0
	}
	if t.skip.nice {
		a.Nice = 0
	}
	if t.skip.slice {
		a.Slice = 0
	}
	if a == (sched.Attr{Affinity: a.Affinity, Group: a.Group}) {
		return nil
	}
	t.rt.Store(a.Class.RealTime())
	return setClass(tid, a)
}

func (t *hthread) readBase(tid int) error {
	var err error
	t.base, t.baseSw, t.baseMig, err = readTask(tid)
	return err
}

func (t *hthread) readEnd(tid int, life int64) error {
	ss, sw, mig, err := readTask(tid)
	if err != nil {
		return err
	}
	t.st.CPUTime = ss.CPU - t.base.CPU
	t.st.WaitTime = ss.Wait - t.base.Wait
	t.slices = ss.Slices - t.base.Slices
	t.st.Voluntary = sw.Voluntary - t.baseSw.Voluntary
	t.st.Involuntary = sw.Involuntary - t.baseSw.Involuntary
	t.st.Migrations = mig - t.baseMig
	t.st.Sleep = max(0, life-t.st.CPUTime-t.st.WaitTime)
	return nil
}

// readTask reads a thread of this process's schedstat, status and sched files.
func readTask(tid int) (Schedstat, Switches, int64, error) {
	dir := "/proc/self/task/" + strconv.Itoa(tid) + "/"
	text, err := readFile(dir + "schedstat")
	if err != nil {
		return Schedstat{}, Switches{}, 0, fmt.Errorf("host: %w (is CONFIG_SCHEDSTATS off?)", err)
	}
	ss, err := ParseSchedstat(text)
	if err != nil {
		return Schedstat{}, Switches{}, 0, err
	}
	if text, err = readFile(dir + "status"); err != nil {
		return Schedstat{}, Switches{}, 0, fmt.Errorf("host: %w", err)
	}
	sw, err := ParseStatus(text)
	if err != nil {
		return Schedstat{}, Switches{}, 0, err
	}
	var mig int64
	if text, err = readFile(dir + "sched"); err == nil { // absent without CONFIG_SCHED_DEBUG
		mig, _ = ParseMigrations(text)
	}
	return ss, sw, mig, nil
}
