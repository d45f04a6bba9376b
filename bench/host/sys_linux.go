package host

// This file implements the system calls a host thread makes on itself: its CPU clock, absolute
// sleeps, the spin loop that turns a run op into CPU work, and its scheduling attributes.

import (
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// monoNow returns CLOCK_MONOTONIC in nanoseconds, read by a system call.
func monoNow() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// A clock reads CLOCK_MONOTONIC cheaply: Go's monotonic clock is CLOCK_MONOTONIC read through
// the vDSO, so the monotonic time is a fixed offset plus the time since a time.Time taken at the
// same instant.
type clock struct {
	base time.Time
	mono int64
}

func newClock() clock { return clock{base: time.Now(), mono: monoNow()} }

func (c *clock) now() int64 { return c.mono + int64(time.Since(c.base)) }

// sleepUntil sleeps until CLOCK_MONOTONIC reaches t (an absolute clock_nanosleep) or a signal
// interrupts it. It is a raw system call: the thread keeps its P while it sleeps (Run gives the
// process a P per thread), so that waking costs the Go scheduler nothing.
func sleepUntil(t int64) {
	ts := unix.NsecToTimespec(t)
	syscall.RawSyscall6(unix.SYS_CLOCK_NANOSLEEP, unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME,
		uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// sleepUntilStop sleeps until CLOCK_MONOTONIC reaches t or *stop is no longer 0, and returns
// the clock read after its last wake-up. It sleeps in a FUTEX_WAIT_BITSET on stop, whose timeout
// is absolute on CLOCK_MONOTONIC and runs on an hrtimer with the thread's timer slack as
// clock_nanosleep's does (kernel/futex/waitwake.c futex_wait, futex_setup_timer), so that the
// kernel sees the same timer wake-up; halt ends it early by FUTEX_WAKE, without a signal.
//
// It is nosplit, as everything it calls, for the reason rawClock gives: the Go runtime asks a
// workload thread's goroutine to yield every 10-20 ms, often while it sleeps (see
// blockPreemptSignal), and the goroutine parks at the first stack check after that; the clock is
// read before any (a raw system call, 0.3 us on the CI guest against the vDSO's 0.03), so that
// the park, which follows at the caller's next call, is not counted in the wake-up's latency.
//
//go:nosplit
//go:norace
func sleepUntilStop(stop *uint32, t int64) int64 {
	for {
		now := rawClock(unix.CLOCK_MONOTONIC)
		if now >= t || atomic.LoadUint32(stop) != 0 {
			return now
		}
		ts := unix.NsecToTimespec(t) // inlined: no call, no stack check
		syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(stop)), futexWaitBitsetPrivate, 0,
			uintptr(unsafe.Pointer(&ts)), 0, futexBitsetMatchAny)
	}
}

// takeOrWait takes one from the eventfd semaphore fd, or, while it is zero, waits in poll(2)
// for it and for stopfd, until CLOCK_MONOTONIC passes end or *stop is not 0. It returns 0 once
// it took, 1 if stopped, 2 at the end, 3 on an error other than EAGAIN or EINTR (errno: the
// error); blocked: whether a poll switched the thread out; first: g's count before the last read
// that found zero; now: the clock read after the take. It is nosplit, as sleepUntilStop, so that
// a pending preemption parks the goroutine after now is read, not in the wake-up it measures.
//
//go:nosplit
//go:norace
func takeOrWait(fd, stopfd int, end int64, stop *uint32, g *gives) (status int, errno syscall.Errno, blocked bool, first, now int64) {
	var buf [8]byte
	for {
		k := g.n.Load()
		_, _, e := syscall.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), 8)
		if e == 0 {
			return 0, 0, blocked, first, rawClock(unix.CLOCK_MONOTONIC)
		}
		if e != unix.EAGAIN && e != unix.EINTR {
			return 3, e, blocked, first, 0
		}
		first = k
		if atomic.LoadUint32(stop) != 0 {
			return 1, 0, blocked, first, 0
		}
		left := end - rawClock(unix.CLOCK_MONOTONIC)
		if left <= 0 {
			return 2, 0, blocked, first, 0
		}
		fds := [2]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: int32(stopfd), Events: unix.POLLIN}}
		// A poll that found the count already raised did not block: only one during which the
		// thread switched out voluntarily is a wake-up.
		before := voluntarySwitches()
		syscall.RawSyscall(unix.SYS_POLL, uintptr(unsafe.Pointer(&fds[0])), 2, uintptr(left/1e6+1))
		blocked = blocked || voluntarySwitches() != before
	}
}

// blockPreemptSignal blocks SIGURG, Go's preemption signal, in the calling thread and returns
// the thread's signal mask before. sysmon (runtime/proc.go, retake) asks a goroutine that has
// run on the same schedtick for 10 ms to yield (preemptone) and, with asynchronous preemption
// on, sends its thread SIGURG (preemptM). A workload thread's goroutine never passes through the
// Go scheduler, so it is asked every 10-20 ms, and the signal interrupts whatever system call
// the thread is blocked in, a wake-up that the workload does not have. A blocked SIGURG stays
// pending and is taken when the mask is restored (preemptM sends no other while one is
// pending, mp.signalPending).
func blockPreemptSignal() (unix.Sigset_t, error) {
	var set, old unix.Sigset_t
	set.Val[0] = 1 << (uint(unix.SIGURG) - 1)
	if err := unix.PthreadSigmask(unix.SIG_BLOCK, &set, &old); err != nil {
		return old, fmt.Errorf("host: rt_sigprocmask: %w", err)
	}
	return old, nil
}

// restoreSignals sets the calling thread's signal mask back to old.
func restoreSignals(old unix.Sigset_t) { _ = unix.PthreadSigmask(unix.SIG_SETMASK, &old, nil) }

// The futex operations a startGate and a workload thread's sleep use (linux/futex.h):
// FUTEX_WAIT, FUTEX_WAKE and FUTEX_WAIT_BITSET (an absolute CLOCK_MONOTONIC timeout) on a word
// private to the process, the last with the bitset that matches any wake.
const (
	futexWaitPrivate       = 0 | 128
	futexWakePrivate       = 1 | 128
	futexWaitBitsetPrivate = 9 | 128
	futexBitsetMatchAny    = 0xffffffff
)

// A startGate holds the threads of a run until it opens. The threads wait on a futex word in raw
// system calls, so that opening the gate wakes every one of them from the kernel in one call. A
// channel would not do: each goroutine blocked on it is parked, and another thread must hand it
// back to its locked thread, one after the other, on whatever CPU the Go scheduler finds; on a
// busy machine one thread of a run then started tens of milliseconds after the others, and the
// SCHED_IDLE thread beside it had its CPU alone meanwhile.
type startGate struct{ word uint32 }

// wait returns once the gate is open.
func (g *startGate) wait() {
	for atomic.LoadUint32(&g.word) == 0 {
		syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&g.word)), futexWaitPrivate, 0, 0, 0, 0)
	}
}

// open opens the gate and wakes every thread waiting at it.
func (g *startGate) open() {
	atomic.StoreUint32(&g.word, 1)
	syscall.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(&g.word)), futexWakePrivate, 1<<31-1, 0, 0, 0)
}

// rawClock reads clock id. It is nosplit, as everything the spin loop calls, so that the Go
// scheduler never preempts a spinning thread: a preempted goroutine locked to its thread puts the
// thread to sleep until another thread hands the goroutine back, a sleep the kernel would count
// and schedule around. (The compiler treats nosplit functions as unsafe points for asynchronous
// preemption too.) Run turns the garbage collector off meanwhile, since a stop-the-world would
// wait for every spinning thread.
//
//go:nosplit
//go:norace
func rawClock(id uintptr) int64 {
	var ts unix.Timespec
	syscall.RawSyscall(unix.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&ts)), 0)
	return int64(ts.Sec)*1e9 + int64(ts.Nsec) // int32 fields on 32-bit platforms
}

// threadCPU returns the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID) in nanoseconds. It
// is a raw system call: the vDSO does not serve per-thread clocks, and the Go scheduler need not
// hear of a call that never blocks.
func threadCPU() int64 { return rawClock(unix.CLOCK_THREAD_CPUTIME_ID) }

// busyLoop does n iterations of integer work that stays in registers, and returns its result so
// that the compiler keeps it.
//
//go:nosplit
//go:norace
func busyLoop(n int64, x uint64) uint64 {
	for ; n > 0; n-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// spinCPU computes until the thread has used d more nanoseconds of CPU time, *stop is not 0,
// or (checked every 16 chunks) CLOCK_MONOTONIC passes deadline, and returns the CPU time used
// and how many times it read the thread's CPU clock. A chunk is chunk iterations of busyLoop,
// chunkNs nanoseconds of CPU. It stops once less than slack remains: half the cost of the clock
// read that another round would take, so that the time used is the nearest to d it can reach.
//
// It reads the thread's CPU clock as seldom as it can, because the read is not free for the
// scheduler: the kernel serves CLOCK_THREAD_CPUTIME_ID by charging the running task first
// (task_sched_runtime calls update_curr, kernel/sched/core.c), which on an EEVDF kernel
// reschedules a task whose slice protection has run out there and then, where a program that
// only computes is looked at by the tick alone. Each round computes half of what is left by the
// calibrated chunk (all of it below two chunks) and then reads the clock, so a run of d takes
// about log2(d/slack) reads, not one every chunk (a read costs 1.4-1.6 us on the CI guest, where
// the chunk is 2 us), and the run overshoots only if the chunk's speed halves. Each round of 16 us
// or more corrects the chunk by what the round actually took, so that a calibration made on a
// busier or quieter moment does not multiply the rounds: a round that took between an eighth
// and eight times its plan (a band wide enough for a chunk four times off whose own calibration
// was a little off too, narrow enough to pass over a round an interrupt storm inflated). The
// stop flag and
// the deadline, read with no call into the scheduler, are checked between chunks.
//
//go:nosplit
//go:norace
func spinCPU(d, deadline int64, stop *uint32, chunk, chunkNs, slack int64) (used, reads int64) {
	start := rawClock(unix.CLOCK_THREAD_CPUTIME_ID)
	target := start + min(d, 1<<62-start)
	x := uint64(target) | 1
	var plan, before int64 // the last round's plan, and what was left before it
	for i := 0; ; {
		left := target - rawClock(unix.CLOCK_THREAD_CPUTIME_ID)
		reads++
		if left <= slack || atomic.LoadUint32(stop) != 0 {
			if x == 0 { // never: keeps x alive
				return 0, reads
			}
			return target - left - start, reads
		}
		// A round long enough for the clock read to be a small part of it corrects the chunk:
		// the calibration may have run slower or faster than the loop runs now (a busy
		// machine's interrupts charged to the thread, cold caches).
		if done := before - left; plan >= 8*chunkNs && done > plan/8 && done < 8*plan {
			chunk = max(1, int64(float64(chunk)*float64(plan)/float64(done)))
		}
		before, plan = left, left
		if left >= 2*chunkNs {
			plan = left / 2
		}
		for rest := plan; rest > 0; {
			ns := min(rest, chunkNs)
			x = busyLoop(chunk*ns/chunkNs, x)
			rest -= ns
			if i++; atomic.LoadUint32(stop) != 0 || i&15 == 15 && rawClock(unix.CLOCK_MONOTONIC) >= deadline {
				return rawClock(unix.CLOCK_THREAD_CPUTIME_ID) - start, reads + 1
			}
		}
	}
}

// spinCalibration returns how many iterations of busyLoop take chunkNs nanoseconds of thread
// CPU time.
func spinCalibration(chunkNs int64) int64 {
	n := int64(1024)
	for {
		c := threadCPU()
		x := busyLoop(n, 1)
		if d := threadCPU() - c; d >= 200_000 || x == 0 {
			return max(1, n*chunkNs/max(d, 1))
		}
		n *= 2
	}
}

// A spinner turns a duration into CPU work, timed against the thread's CPU clock.
type spinner struct {
	chunk   int64 // iterations of busyLoop in chunkNs
	chunkNs int64 // nanoseconds of CPU time per chunk
	readNs  int64 // the CPU cost of one read of the thread's CPU clock
}

// newSpinner calibrates a spinner on the calling thread.
func newSpinner() spinner {
	s := spinner{chunkNs: 2000}
	s.chunk = spinCalibration(s.chunkNs)
	const reads = 256
	c := threadCPU()
	for range reads {
		threadCPU()
	}
	s.readNs = (threadCPU() - c) / (reads + 1)
	return s
}

// spin computes until the thread has used d more nanoseconds of CPU time, until *stop is not 0
// or until CLOCK_MONOTONIC passes deadline, and returns the CPU time used and whether it stopped
// before d.
func (s *spinner) spin(d int64, stop *uint32, deadline int64) (int64, bool) {
	used, _ := spinCPU(d, deadline, stop, s.chunk, s.chunkNs, s.readNs/2)
	return used, used < d-s.readNs/2
}

// Linux scheduling policies (include/uapi/linux/sched.h).
const (
	schedNormal = 0
	schedFIFO   = 1
	schedRR     = 2
	schedBatch  = 3
	schedIdle   = 5
)

// linuxPolicy returns the SCHED_* policy of a class.
func linuxPolicy(c sched.Class) uint32 {
	switch c {
	case sched.Batch:
		return schedBatch
	case sched.Idle:
		return schedIdle
	case sched.FIFO:
		return schedFIFO
	case sched.RR:
		return schedRR
	}
	return schedNormal
}

// setClass sets the class, nice value, real-time priority and custom slice of thread tid with
// sched_setattr(2). A slice is sched_attr.sched_runtime, which EEVDF kernels (6.12 and later)
// take as the fair task's request, clamped to 0.1-100 ms.
func setClass(tid int, a sched.Attr) error {
	attr := unix.SchedAttr{Size: unix.SizeofSchedAttr, Policy: linuxPolicy(a.Class), Nice: int32(a.Nice)}
	if a.Class.RealTime() {
		attr.Priority = uint32(a.RTPrio)
		attr.Nice = 0
	} else if a.Slice > 0 {
		attr.Runtime = uint64(a.Slice)
	}
	if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
		return fmt.Errorf("sched_setattr(%d, %s nice=%d rtprio=%d slice=%d): %w", tid, a.Class, a.Nice, a.RTPrio, a.Slice, err)
	}
	return nil
}

// setNice sets the nice value of thread tid (setpriority(PRIO_PROCESS, tid, nice)).
func setNice(tid, nice int) error {
	if err := unix.Setpriority(unix.PRIO_PROCESS, tid, nice); err != nil {
		return fmt.Errorf("setpriority(%d, %d): %w", tid, nice, err)
	}
	return nil
}

// setAffinity sets the CPUs thread tid may run on; the empty set means all of allowed.
func setAffinity(tid int, cpus, allowed topology.CPUSet) error {
	if cpus.IsEmpty() {
		cpus = allowed
	}
	var set unix.CPUSet
	for c := range cpus.All() {
		set.Set(int(c))
	}
	if err := unix.SchedSetaffinity(tid, &set); err != nil {
		return fmt.Errorf("sched_setaffinity(%d, %s): %w", tid, cpus, err)
	}
	return nil
}

// processAffinity returns the CPUs the process may run on.
func processAffinity() (topology.CPUSet, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return topology.CPUSet{}, fmt.Errorf("host: sched_getaffinity: %w", err)
	}
	var s topology.CPUSet
	for c := 0; c < len(set)*64 && c < topology.MaxCPUs; c++ {
		if set.IsSet(c) {
			s.Add(topology.CPU(c))
		}
	}
	return s, nil
}

// kernelRelease returns uname's release, such as "6.18.44-fc-v669", and its major and minor
// numbers.
func kernelRelease() (string, int, int) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "", 0, 0
	}
	rel := unix.ByteSliceToString(u.Release[:])
	a, b := ReleaseVersion(rel)
	return rel, a, b
}

// readFile reads a small /proc or /sys file.
func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// unixAccess reports whether this process may create entries in dir.
func unixAccess(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}

// Release returns the running kernel's release, such as "6.18.44-fc-v669".
func Release() string {
	rel, _, _ := kernelRelease()
	return rel
}

// savedAttrs are a thread's scheduling attributes before the run changed them.
type savedAttrs struct {
	attr *unix.SchedAttr
	cpus unix.CPUSet
}

func saveAttrs(tid int) (savedAttrs, error) {
	var o savedAttrs
	var err error
	if o.attr, err = unix.SchedGetAttr(tid, 0); err != nil {
		return o, fmt.Errorf("host: sched_getattr(%d): %w", tid, err)
	}
	if err = unix.SchedGetaffinity(tid, &o.cpus); err != nil {
		return o, fmt.Errorf("host: sched_getaffinity(%d): %w", tid, err)
	}
	return o, nil
}

func (o *savedAttrs) restore(tid int) error {
	a := *o.attr
	a.Size = unix.SizeofSchedAttr
	a.Flags = 0
	if err := unix.SchedSetAttr(tid, &a, 0); err != nil {
		return fmt.Errorf("host: restore sched_setattr(%d): %w", tid, err)
	}
	if err := unix.SchedSetaffinity(tid, &o.cpus); err != nil {
		return fmt.Errorf("host: restore sched_setaffinity(%d): %w", tid, err)
	}
	return nil
}

// voluntarySwitches returns the calling thread's voluntary context switches
// (getrusage(RUSAGE_THREAD) ru_nvcsw). It is nosplit for takeOrWait.
//
//go:nosplit
//go:norace
func voluntarySwitches() int64 {
	var ru unix.Rusage
	syscall.RawSyscall(unix.SYS_GETRUSAGE, unix.RUSAGE_THREAD, uintptr(unsafe.Pointer(&ru)), 0)
	return int64(ru.Nvcsw) // int32 on 32-bit platforms
}
