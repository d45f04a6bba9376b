package host

// This file implements the ring probe: a token passed around a ring of tasks on one CPU, each
// switch going to a task that last ran a whole lap before, as hackbench's switches go among
// the tens of tasks a CPU runs in turn; with processes and with threads of one process, whose
// difference is what a switch of address space costs in that shape.

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/topology"
)

// switchRingTasks is the number of tasks of the ring probe: a hackbench group's tasks a CPU
// (its 40 over the 2 CPUs of the project's CI machine).
const switchRingTasks = hackbenchFDs

// probeSwitchRing measures n laps of a one-byte token around a ring of k tasks pinned to cpu,
// each blocked in a read of its own pipe until the task before it writes there: it returns each
// lap's time divided by k, a hop. A hop is a pipe write that wakes the next task on the same
// CPU, the writer's read that blocks, and the switch to the task woken, which last ran k−1
// switches before. With procs the k−1 other tasks are processes of their own, cat(1) started
// pinned there (each hop then a switch of address space: switch_mm_irqs_off loading another
// CR3); else threads of the prober's process. The prober's pinned thread is the ring's first
// task and times the laps; ten laps run first, not kept.
func (pr *prober) probeSwitchRing(cpu topology.CPU, k, n int, procs bool) ([]int64, error) {
	if k < 2 || n < 1 {
		panic(fmt.Sprintf("host: probeSwitchRing: k %d, n %d: want a ring of 2 tasks or more and a lap", k, n))
	}
	cat := ""
	if procs {
		var err error
		if cat, err = exec.LookPath("cat"); err != nil {
			return nil, &MissingError{Missing: []string{"cat is not installed (Debian: coreutils)"}}
		}
	}
	// Task i reads r[i] and writes w[(i+1)%k].
	r, w := make([]int, k), make([]int, k)
	for i := range k {
		var fds [2]int
		if err := unix.Pipe(fds[:]); err != nil {
			closeFDs(r[:i], w[:i])
			return nil, fmt.Errorf("host: probe: %w", err)
		}
		r[i], w[i] = fds[0], fds[1]
	}
	// Each task blocks in its read by a raw system call, as a C program's would, holding its
	// thread's P: the ring's threads need one each, and the prober its own. A goroutine in a raw
	// system call cannot be stopped, so a collection, whose start stops the world, would wait
	// for the ring's threads forever: none starts while the ring runs (a goroutine elsewhere in
	// the program allocating meanwhile hung the ring before).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if prev := runtime.GOMAXPROCS(0); prev < k+2 {
		runtime.GOMAXPROCS(k + 2)
		defer runtime.GOMAXPROCS(prev)
	}
	const warm = 10
	laps := warm + n
	var others []<-chan error
	var s []int64
	err := <-pr.onThread(cpu, func() error {
		if procs {
			pids, err := startRing(cat, r, w)
			defer stopRing(pids)
			if err != nil {
				return err
			}
		} else {
			for i := 1; i < k; i++ {
				others = append(others, pr.onThread(cpu, func() error { return relay(r[i], w[(i+1)%k], laps) }))
			}
		}
		clk := newClock()
		s = make([]int64, 0, n)
		var b [1]byte
		for lap := range laps {
			t0 := clk.now()
			c1, _, e1 := syscall.RawSyscall(unix.SYS_WRITE, uintptr(w[1%k]), uintptr(unsafe.Pointer(&b[0])), 1)
			c2, _, e2 := syscall.RawSyscall(unix.SYS_READ, uintptr(r[0]), uintptr(unsafe.Pointer(&b[0])), 1)
			t1 := clk.now()
			if c1 != 1 || c2 != 1 {
				return fmt.Errorf("host: probe: the ring's token lost at lap %d (%v, %v)", lap, errnoErr(e1), errnoErr(e2))
			}
			if lap >= warm {
				s = append(s, (t1-t0)/int64(k))
			}
		}
		return nil
	})
	if err != nil {
		// The ring's threads blocked in their reads see the end of file.
		closeFDs(w)
	}
	for _, o := range others {
		if oerr := <-o; err == nil {
			err = oerr
		}
	}
	if err != nil {
		closeFDs(r)
		return nil, err
	}
	closeFDs(r, w)
	return s, nil
}

// relay is a thread of the ring: laps times, it reads the token from r and writes it to w.
func relay(r, w, laps int) error {
	var b [1]byte
	for lap := range laps {
		c, _, e := syscall.RawSyscall(unix.SYS_READ, uintptr(r), uintptr(unsafe.Pointer(&b[0])), 1)
		if c == 1 {
			c, _, e = syscall.RawSyscall(unix.SYS_WRITE, uintptr(w), uintptr(unsafe.Pointer(&b[0])), 1)
		}
		if c != 1 {
			return fmt.Errorf("host: probe: a ring thread lost the token at lap %d (%v)", lap, errnoErr(e))
		}
	}
	return nil
}

// startRing starts cat for each task of the ring but the first: task i's standard input is
// r[i], its output w[(i+1)%k]. Started from the prober's pinned thread, each inherits its
// affinity and group; startRing returns once each is asleep in its read, with the pids
// started (to stop, also on error).
func startRing(cat string, r, w []int) ([]int, error) {
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("host: probe: %w", err)
	}
	defer null.Close()
	var pids []int
	for i := 1; i < len(r); i++ {
		files := []uintptr{uintptr(r[i]), uintptr(w[(i+1)%len(r)]), null.Fd()}
		pid, err := syscall.ForkExec(cat, []string{"cat"}, &syscall.ProcAttr{Files: files})
		if err != nil {
			return pids, fmt.Errorf("host: probe: start cat: %w", err)
		}
		pids = append(pids, pid)
	}
	for _, pid := range pids {
		if err := awaitAsleep(pid, "cat"); err != nil {
			return pids, err
		}
	}
	return pids, nil
}

// stopRing kills and reaps the ring's processes.
func stopRing(pids []int) {
	for _, pid := range pids {
		_ = unix.Kill(pid, unix.SIGKILL)
	}
	for _, pid := range pids {
		_, _ = unix.Wait4(pid, nil, 0, nil)
	}
}

// closeFDs closes every descriptor of each list.
func closeFDs(lists ...[]int) {
	for _, l := range lists {
		for _, fd := range l {
			unix.Close(fd)
		}
	}
}

// switchMMRing measures n laps of the ring probe with processes and with threads, on cpu, and
// returns each lap's hop with processes less the median hop with threads: the extra of a
// switch to another process's address space among switchRingTasks of them (switch_mm_irqs_off
// and what follows it: with PTI and without PCID the TLB is flushed at each CR3 load, and the
// process switched in refills it), with the two medians. Where the ring of processes is no
// slower a hop than the ring of threads (a machine whose switch of address space costs less than
// the two rings' spread), most laps' extra is 0 and so is the figure's median: the models then
// charge no switch of address space beyond perf bench sched pipe's, which is what was measured.
func (pr *prober) switchMMRing(cpu topology.CPU, n int) (extra []int64, procs, threads int64, err error) {
	p, err := pr.probeSwitchRing(cpu, switchRingTasks, n, true)
	if err != nil {
		return nil, 0, 0, err
	}
	t, err := pr.probeSwitchRing(cpu, switchRingTasks, n, false)
	if err != nil {
		return nil, 0, 0, err
	}
	procs, threads = int64(costOf(p).P50), int64(costOf(t).P50)
	extra = make([]int64, len(p))
	for i, v := range p {
		extra[i] = max(v-threads, 0)
	}
	return extra, procs, threads, nil
}
