package host

// This file implements the calibration's probes: each measures one sum of the steps between a
// scheduling decision and its effect on the host, with threads locked to their OS threads and
// pinned, raw system calls that keep their P, and the garbage collector off (Calibrate sets the
// stage).

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A prober runs the probes' threads, each in the shield group when there is one: a cgroup of
// the largest weight, so that the other programs of the machine take less from them.
type prober struct {
	shield *cgroups
}

// onThread runs f on a new OS thread pinned to cpu (and in the shield group), and returns f's
// error. The goroutine never unlocks its thread, so the thread ends with it; but the runtime
// keeps the main thread when a goroutine locked to it ends, so the thread gives back its class,
// affinity, timer slack and cgroup first.
func (pr *prober) onThread(cpu topology.CPU, f func() error) <-chan error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		done <- pr.run(cpu, f)
	}()
	return done
}

// startTogether lets go the probe threads blocked on start (a futex word they wait on, set to
// 1), after 10 ms for each to reach its wait, and waits for every one of them to end: it
// returns the first error among them, in the order given.
func startTogether(start *uint32, done ...<-chan error) error {
	time.Sleep(10 * time.Millisecond)
	atomic.StoreUint32(start, 1)
	futexWakeAll(start)
	var first error
	for _, d := range done {
		if err := <-d; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// run is onThread's work on the locked thread: set it up, call f, give everything back.
func (pr *prober) run(cpu topology.CPU, f func() error) (err error) {
	tid := unix.Gettid()
	saved, err := saveAttrs(tid)
	if err != nil {
		return err
	}
	slack, _ := unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
	_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
	defer func() {
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(max(slack, 1)), 0, 0, 0)
		if rerr := saved.restore(tid); err == nil {
			err = rerr
		}
	}()
	if pr.shield != nil {
		if err := pr.shield.move(tid, "box"); err != nil {
			return err
		}
		defer func() {
			if merr := pr.shield.moveBack(tid); err == nil {
				err = merr
			}
		}()
	}
	if err := pinSelf(cpu); err != nil {
		return err
	}
	return f()
}

// pinSelf pins the calling thread to cpu; the move is done when it returns.
func pinSelf(cpu topology.CPU) error {
	var set unix.CPUSet
	set.Set(int(cpu))
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("host: sched_setaffinity(%v): %w", cpu, err)
	}
	return nil
}

// futexWait blocks while *w is 0, and reports whether it slept at least once (a FUTEX_WAIT
// that returned 0), rather than finding the word already set.
func futexWait(w *uint32) bool {
	slept := false
	for atomic.LoadUint32(w) == 0 {
		_, _, e := syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWaitPrivate, 0, 0, 0, 0)
		if e == 0 {
			slept = true
		}
	}
	return slept
}

// futexWake wakes one thread waiting on w and returns how many it woke.
func futexWake(w *uint32) int {
	n, _, _ := syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWakePrivate, 1, 0, 0, 0)
	return int(n)
}

// probeFutexWake measures n FUTEX_WAKE calls that find no waiter, each between two clock reads.
func (pr *prober) probeFutexWake(cpu topology.CPU, n int) ([]int64, error) {
	var s []int64
	err := <-pr.onThread(cpu, func() error {
		clk := newClock()
		var w uint32
		for range n {
			t0 := clk.now()
			futexWake(&w)
			s = append(s, clk.now()-t0)
		}
		return nil
	})
	return s, err
}

// settle is how long the ping-pong's first thread spins before it wakes the other.
const settle = 100 * time.Microsecond

// probePingPong runs n round trips of a futex ping-pong between a thread on a and one on b, each
// blocked in FUTEX_WAIT while the other runs, and returns the one-way latencies (from before the
// waker's FUTEX_WAKE to the wakee's return from FUTEX_WAIT, counted only where the wakee slept)
// and the waker's FUTEX_WAKE durations (where it woke a sleeper). The thread on a spins for
// settle before each wake-up, so that the other has blocked by then. With a == b both run on
// one CPU. The first tenth of the round trips warms up and is not counted.
func (pr *prober) probePingPong(a, b topology.CPU, n int) (lat, wake []int64, err error) {
	var wa, wb, start uint32
	var t0 atomic.Int64
	clk := newClock()
	warm := n / 10
	total := n + warm
	var latB []int64
	bDone := pr.onThread(b, func() error {
		futexWait(&start)
		for i := range total {
			slept := futexWait(&wb)
			now := clk.now()
			atomic.StoreUint32(&wb, 0)
			if slept && i >= warm {
				latB = append(latB, now-t0.Load())
			}
			atomic.StoreUint32(&wa, 1)
			futexWake(&wa)
		}
		return nil
	})
	aDone := pr.onThread(a, func() error {
		futexWait(&start)
		for i := range total {
			// Give the other thread time to block and its CPU to go idle: on a virtual machine
			// a wake-up can take longer than the other thread's way back to FUTEX_WAIT.
			for t := clk.now(); clk.now()-t < int64(settle); {
			}
			t0.Store(clk.now())
			atomic.StoreUint32(&wb, 1)
			w0 := clk.now()
			woke := futexWake(&wb)
			w1 := clk.now()
			if woke == 1 && i >= warm {
				wake = append(wake, w1-w0)
			}
			futexWait(&wa)
			atomic.StoreUint32(&wa, 0)
		}
		return nil
	})
	// Both threads start together, each blocked in its own FUTEX_WAIT or about to find the
	// word set.
	if err := startTogether(&start, aDone, bDone); err != nil {
		return nil, nil, err
	}
	return latB, wake, nil
}

// probeLocalWake measures n wake-ups of a thread blocked on the waker's own CPU: the waker (a
// normal thread) sleeps 200 µs, so that the wakee (SCHED_IDLE, which never preempts it) runs
// and blocks in FUTEX_WAIT, then wakes it; it returns the waker's FUTEX_WAKE durations (where it
// woke a sleeper: try_to_wake_up without an IPI or a preemption) and the wakee's latencies (from
// before the FUTEX_WAKE to its return, the waker's way into its next sleep and the switch
// included).
func (pr *prober) probeLocalWake(cpu topology.CPU, n int) (wake, lat []int64, err error) {
	var w, start uint32
	var t0 atomic.Int64
	var stop atomic.Bool
	clk := newClock()
	bDone := pr.onThread(cpu, func() error {
		if err := setClass(0, sched.Attr{Class: sched.Idle}); err != nil {
			return err
		}
		for !stop.Load() {
			slept := futexWait(&w)
			now := clk.now()
			atomic.StoreUint32(&w, 0)
			if slept && !stop.Load() {
				lat = append(lat, now-t0.Load())
			}
		}
		return nil
	})
	aDone := pr.onThread(cpu, func() error {
		futexWait(&start)
		for range n + n/10 {
			sleepUntil(clk.now() + int64(200*time.Microsecond))
			t0.Store(clk.now())
			atomic.StoreUint32(&w, 1)
			w0 := clk.now()
			woke := futexWake(&w)
			if w1 := clk.now(); woke == 1 {
				wake = append(wake, w1-w0)
			}
		}
		sleepUntil(clk.now() + int64(time.Millisecond))
		stop.Store(true)
		atomic.StoreUint32(&w, 1)
		futexWake(&w)
		return nil
	})
	if err := startTogether(&start, aDone, bDone); err != nil {
		return nil, nil, err
	}
	if len(wake) > n/10 {
		wake = wake[n/10:]
	}
	if len(lat) > n/10 {
		lat = lat[n/10:]
	}
	return wake, lat, nil
}

// futexWakeAll wakes every thread waiting on w.
func futexWakeAll(w *uint32) int {
	n, _, _ := syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(w)), futexWakePrivate, 1<<31-1, 0, 0, 0)
	return int(n)
}

// ipcPair opens a pipe (socket false) or an AF_UNIX stream socket pair and returns the end to
// write and the end to read, and a function that closes both.
func ipcPair(socket bool) (w, r int, closeBoth func(), err error) {
	var fds [2]int
	if socket {
		fds, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	} else {
		err = unix.Pipe(fds[:])
	}
	if err != nil {
		return 0, 0, nil, fmt.Errorf("host: probe: %w", err)
	}
	closeBoth = func() { unix.Close(fds[0]); unix.Close(fds[1]) }
	// A socket pair's first end writes to the second; a pipe's 1 writes to 0.
	if socket {
		return fds[0], fds[1], closeBoth, nil
	}
	return fds[1], fds[0], closeBoth, nil
}

// writeRead writes buf to w and reads as many bytes from r, by raw system calls.
func writeRead(w, r int, buf []byte) {
	syscall.RawSyscall(unix.SYS_WRITE, uintptr(w), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	syscall.RawSyscall(unix.SYS_READ, uintptr(r), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
}

// probeIPC measures n write+read pairs of size bytes on a pipe (socket false) or an AF_UNIX
// stream socket pair, in one thread, neither blocking: each is timed between two clock reads.
func (pr *prober) probeIPC(cpu topology.CPU, size, n int, socket bool) ([]int64, error) {
	w, r, closeBoth, err := ipcPair(socket)
	if err != nil {
		return nil, err
	}
	defer closeBoth()
	return pr.timeWriteReads(cpu, w, r, size, n)
}

// timeWriteReads times n write+read pairs of size bytes on w and r, on a thread pinned to cpu.
func (pr *prober) timeWriteReads(cpu topology.CPU, w, r, size, n int) ([]int64, error) {
	var s []int64
	err := <-pr.onThread(cpu, func() error {
		buf := make([]byte, size)
		clk := newClock()
		for range n {
			t0 := clk.now()
			writeRead(w, r, buf)
			s = append(s, clk.now()-t0)
		}
		return nil
	})
	return s, err
}

// probeIPCShared is probeIPC on cpu while a thread on other writes and reads the same pipe or
// socket pair in the same loop: the pipe's lock, its buffer and their cache lines move between
// the two CPUs, as they do in hackbench, whose senders on every CPU write to each receiver's
// pipe. Each thread writes before it reads and every write and read is size bytes, so the pipe
// always holds a message when either reads: neither blocks.
func (pr *prober) probeIPCShared(cpu, other topology.CPU, size, n int, socket bool) ([]int64, error) {
	w, r, closeBoth, err := ipcPair(socket)
	if err != nil {
		return nil, err
	}
	defer closeBoth()
	var stop atomic.Bool
	partner := pr.onThread(other, func() error {
		buf := make([]byte, size)
		for !stop.Load() {
			writeRead(w, r, buf)
		}
		return nil
	})
	time.Sleep(10 * time.Millisecond)
	s, err := pr.timeWriteReads(cpu, w, r, size, n)
	stop.Store(true)
	if perr := <-partner; err == nil {
		err = perr
	}
	return s, err
}

// probePerfPipe runs perf bench sched pipe -l loops (with -T: threads) pinned to cpu, reps
// times, and returns each run's round trip (usecs/op) and its wake-ups a round trip: the run's
// voluntary context switches (ru_nvcsw of perf, its threads and the child it reaps) over its
// loops. A task of the benchmark switches out voluntarily only when its read finds its pipe
// empty, and each such read ends in the wake-up its partner's write makes: the count says how
// many of the round trip's two writes wake a sleeper (perf's own few blocks, its start and
// the join or waitpid, are in it, a forty-thousandth of a wake-up a loop at 20000 loops).
func (pr *prober) probePerfPipe(ctx context.Context, cpu topology.CPU, loops, reps int, threads bool) (rt []int64, wakes []float64, err error) {
	if _, err := exec.LookPath("perf"); err != nil {
		return nil, nil, &MissingError{Missing: []string{"perf is not installed (Debian: linux-perf)"}}
	}
	if _, err := exec.LookPath("taskset"); err != nil {
		return nil, nil, &MissingError{Missing: []string{"taskset is not installed (Debian: util-linux)"}}
	}
	args := []string{"-c", fmt.Sprint(int(cpu)), "perf", "bench", "sched", "pipe", "-l", fmt.Sprint(loops)}
	if threads {
		args = append(args, "-T")
	}
	for range reps {
		ctx, cancel := context.WithTimeout(ctx, time.Minute)
		cmd := exec.CommandContext(ctx, "taskset", args...)
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			return nil, nil, fmt.Errorf("host: taskset %v: %w: %s", args, err, out)
		}
		b, err := ParsePerfBench(string(out))
		if err != nil {
			return nil, nil, err
		}
		if b.PerOp <= 0 {
			return nil, nil, fmt.Errorf("host: perf bench sched pipe printed no usecs/op: %s", out)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok || ru.Nvcsw <= 0 {
			return nil, nil, fmt.Errorf("host: perf bench sched pipe: no voluntary context switches in its resource usage (%v)", cmd.ProcessState.SysUsage())
		}
		rt = append(rt, int64(b.PerOp))
		wakes = append(wakes, float64(ru.Nvcsw)/float64(loops))
	}
	return rt, wakes, nil
}

// A workingSet is a 32 KiB buffer a thread passes over in shuffled cache-line order: enough
// lines for a refill to show, in an order the hardware prefetchers cannot follow, with loads
// that do not wait for one another.
type workingSet struct {
	buf   []uint64
	order []int32
}

const (
	workingSetBytes = 32 << 10
	sweepBytes      = 4 << 20
	lineWords       = 8 // 64-byte lines
)

func newWorkingSet(seed uint64) *workingSet {
	ws := &workingSet{buf: make([]uint64, workingSetBytes/8)}
	lines := len(ws.buf) / lineWords
	ws.order = make([]int32, lines)
	for i := range ws.order {
		ws.order[i] = int32(i * lineWords)
	}
	r := rand.New(rand.NewPCG(seed, seed+1))
	r.Shuffle(lines, func(i, j int) { ws.order[i], ws.order[j] = ws.order[j], ws.order[i] })
	return ws
}

// pass increments one word of every line in the set's order, and returns how long it took.
func (ws *workingSet) pass(clk *clock) int64 {
	t0 := clk.now()
	b := ws.buf
	for _, i := range ws.order {
		b[i]++
	}
	return clk.now() - t0
}

// sweep increments one word of every line of buf.
func sweep(buf []uint64) {
	for i := 0; i < len(buf); i += lineWords {
		buf[i]++
	}
}

// probeRefill measures n refills on cpu: a thread passes over its working set twice (the
// second pass warm), lets another thread of the process sweep 4 MiB on the same CPU, and
// passes again; a sample is the last pass less the warm one.
func (pr *prober) probeRefill(cpu topology.CPU, n int) ([]int64, error) {
	var turnP, turnX uint32
	var s []int64
	var stop atomic.Bool
	xDone := pr.onThread(cpu, func() error {
		big := make([]uint64, sweepBytes/8)
		for {
			futexWait(&turnX)
			atomic.StoreUint32(&turnX, 0)
			if stop.Load() {
				return nil
			}
			sweep(big)
			atomic.StoreUint32(&turnP, 1)
			futexWake(&turnP)
		}
	})
	pDone := pr.onThread(cpu, func() error {
		ws := newWorkingSet(1)
		clk := newClock()
		for range n + n/10 {
			ws.pass(&clk)
			warm := ws.pass(&clk)
			atomic.StoreUint32(&turnX, 1)
			futexWake(&turnX)
			futexWait(&turnP)
			atomic.StoreUint32(&turnP, 0)
			s = append(s, ws.pass(&clk)-warm)
		}
		stop.Store(true)
		atomic.StoreUint32(&turnX, 1)
		futexWake(&turnX)
		return nil
	})
	if err := <-pDone; err != nil {
		return nil, err
	}
	if err := <-xDone; err != nil {
		return nil, err
	}
	return s[n/10:], nil
}

// probeMigration measures n migrations between a and b: the thread passes over its working set
// until warm, moves to the other CPU (sched_setaffinity returns there), and passes again; a
// sample is that pass less the next one.
func (pr *prober) probeMigration(a, b topology.CPU, n int) ([]int64, error) {
	var s []int64
	err := <-pr.onThread(a, func() error {
		ws := newWorkingSet(2)
		clk := newClock()
		cpus := [2]topology.CPU{a, b}
		for i := range n + n/10 {
			ws.pass(&clk)
			ws.pass(&clk)
			if err := pinSelf(cpus[(i+1)%2]); err != nil {
				return err
			}
			cold := ws.pass(&clk)
			if i >= n/10 {
				s = append(s, cold-ws.pass(&clk))
			}
		}
		return nil
	})
	return s, err
}

// probeTick spins on cpu for d (at most 900 ms) reading the clock, as SCHED_FIFO priority 1 where
// the process may, and returns the gaps longer than a threshold
// (1 µs) that fall at the clock interrupts' period: it finds the rate among the usual CONFIG_HZ
// values (100, 250, 300, 1000) whose phase gathers the most gaps (or uses hz if not 0), and
// keeps the gaps within 20 µs of that phase and shorter than half the period. A gap away from
// the phase is another interrupt, or the Go runtime's preemption signal to the spinning thread.
func (pr *prober) probeTick(cpu topology.CPU, d time.Duration, hz int) ([]int64, int, error) {
	d = min(d, 900*time.Millisecond)
	type gap struct{ at, len int64 }
	var gaps []gap
	err := <-pr.onThread(cpu, func() error {
		// As a real-time thread, if the process may, so that no other thread of the machine
		// preempts the spin: its gaps are then the interrupts'. d stays below the real-time
		// throttling's 950 ms of every second.
		_ = setClass(0, sched.Attr{Class: sched.FIFO, RTPrio: 1})
		clk := newClock()
		end := clk.now() + int64(d)
		last := clk.now()
		for last < end {
			now := clk.now()
			if now-last > 1000 {
				gaps = append(gaps, gap{last, now - last})
			}
			last = now
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	rates := []int{100, 250, 300, 1000}
	if hz > 0 {
		rates = []int{hz}
	}
	best, bestPhase, bestN := 0, int64(0), -1
	for _, r := range rates {
		period := int64(time.Second) / int64(r)
		bins := map[int64]int{}
		const bin = 20_000
		for _, g := range gaps {
			bins[(g.at%period)/bin]++
		}
		for b, c := range bins {
			// Count the bin and its neighbours, so that a phase on a bin's edge is not split.
			n := c + bins[b-1] + bins[b+1]
			if n > bestN || (n == bestN && r < best) {
				best, bestPhase, bestN = r, b*bin, n
			}
		}
	}
	if best == 0 {
		return nil, 0, fmt.Errorf("host: probe: no gap in %v of spinning", d)
	}
	period := int64(time.Second) / int64(best)
	var s []int64
	for _, g := range gaps {
		// A gap longer than half the period is not a clock interrupt's work: the CPU was taken
		// away (the hypervisor descheduled the virtual CPU, or a real-time throttle).
		if off := g.at%period - bestPhase; off >= -20_000 && off <= 40_000 && g.len < period/2 {
			s = append(s, g.len)
		}
	}
	return s, best, nil
}

// kernelHz returns the kernel's CONFIG_HZ from its configuration (/proc/config.gz or
// /boot/config-RELEASE), or 0.
func kernelHz() int {
	rel, _, _ := kernelRelease()
	for _, cmd := range [][]string{{"zcat", "/proc/config.gz"}, {"cat", "/boot/config-" + rel}} {
		out, err := exec.Command(cmd[0], cmd[1:]...).Output()
		if err != nil {
			continue
		}
		var hz int
		for _, l := range strings.Split(string(out), "\n") {
			if _, err := fmt.Sscanf(l, "CONFIG_HZ=%d", &hz); err == nil && hz > 0 {
				return hz
			}
		}
	}
	return 0
}
