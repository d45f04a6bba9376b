package host

// This file implements the probes of what a process costs beyond its threads' work: a write
// fault on a page shared copy-on-write, and a small process's exit and reap. hackbench's
// children pay both inside its timed region (rt-tests' hackbench forks them; glibc's exit
// handlers write to pages shared with the parent, then the kernel tears the address space down).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/topology"
)

// cowPages is the number of pages of one mapping of probeCOWFault.
const cowPages = 64

// probeCOWFault measures n write faults on pages mapped copy-on-write, on cpu: a file in memory
// (memfd) of cowPages pages mapped MAP_PRIVATE, every page read first (so that it is mapped
// read-only to the file's page, as a page is in a child after fork), then each page's first
// write timed alone — do_wp_page or do_cow_fault copying the page, the trap and the return
// included. On the machine of the project's CI it agrees with the copy-on-write after fork
// that a child of fork takes (about 13 µs each on that virtual machine).
func (pr *prober) probeCOWFault(cpu topology.CPU, n int) ([]int64, error) {
	var s []int64
	err := <-pr.onThread(cpu, func() error {
		fd, err := unix.MemfdCreate("schedkit-cow", unix.MFD_CLOEXEC)
		if err != nil {
			return fmt.Errorf("host: probe: memfd_create: %w", err)
		}
		defer unix.Close(fd)
		size := cowPages * os.Getpagesize()
		if _, err := unix.Pwrite(fd, make([]byte, size), 0); err != nil {
			return fmt.Errorf("host: probe: write the memfd: %w", err)
		}
		clk := newClock()
		for len(s) < n {
			m, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE)
			if err != nil {
				return fmt.Errorf("host: probe: mmap: %w", err)
			}
			var sum byte
			for i := 0; i < size; i += os.Getpagesize() {
				sum += m[i]
			}
			for i := 0; i < size && len(s) < n; i += os.Getpagesize() {
				t0 := clk.now()
				m[i] = sum + 1
				s = append(s, clk.now()-t0)
			}
			if err := unix.Munmap(m); err != nil {
				return fmt.Errorf("host: probe: munmap: %w", err)
			}
		}
		return nil
	})
	return s, err
}

// probeExit measures n exits of a small process on cpu: a sleep(1) started pinned there and
// asleep in its nanosleep, from the kill(SIGKILL) to the return of wait4 that reaps it — the
// signal's wake-up, do_exit (exit_mm tearing down its address space, the files, the
// signal to the parent), the switches back and forth and release_task in the reap. The program
// is dynamically linked, as hackbench is; it runs no exit handler of its own (SIGKILL).
func (pr *prober) probeExit(cpu topology.CPU, n int) ([]int64, error) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		return nil, &MissingError{Missing: []string{"sleep is not installed (Debian: coreutils)"}}
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("host: probe: %w", err)
	}
	defer null.Close()
	files := []uintptr{null.Fd(), null.Fd(), null.Fd()}
	var s []int64
	err = <-pr.onThread(cpu, func() error {
		clk := newClock()
		for range n {
			// The child inherits this thread's affinity and cgroup.
			pid, err := syscall.ForkExec(sleep, []string{"sleep", "1000"}, &syscall.ProcAttr{Files: files})
			if err != nil {
				return fmt.Errorf("host: probe: start sleep: %w", err)
			}
			if err := awaitAsleep(pid, "sleep"); err != nil {
				_ = unix.Kill(pid, unix.SIGKILL)
				_, _ = unix.Wait4(pid, nil, 0, nil)
				return err
			}
			var ws unix.WaitStatus
			t0 := clk.now()
			_ = unix.Kill(pid, unix.SIGKILL)
			_, err = unix.Wait4(pid, &ws, 0, nil)
			s = append(s, clk.now()-t0)
			if err != nil {
				return fmt.Errorf("host: probe: wait4: %w", err)
			}
		}
		return nil
	})
	return s, err
}

// awaitAsleep waits until process pid runs the program comm and sleeps (state S in
// /proc/PID/stat): it has exec'd and reached its system call. It gives up after a second.
func awaitAsleep(pid int, comm string) error {
	path := fmt.Sprintf("/proc/%d/stat", pid)
	want := "(" + comm + ") S"
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("host: probe: %w", err)
		}
		if strings.Contains(string(b), want) {
			return nil
		}
	}
	return errors.New("host: probe: the child did not fall asleep within a second")
}

// beside runs probe while another process, pinned to other, spins in user code: the probed
// CPU's neighbour busy with a program of its own, as a CPU running hackbench's processes is.
// The spinner is a process (sh(1) in an empty loop), not a thread of this one: a thread of
// the probing process keeps the probe's address space loaded on the other CPU, and each
// copy-on-write fault would then flush that CPU's TLB by an IPI and wait for it
// (flush_tlb_mm_range → flush_tlb_multi, arch/x86/mm/tlb.c), which a single-threaded child of
// fork never pays: on the project's CI machine 10-17 µs a fault against 1.5-2 µs, one TLB
// shootdown a fault counted in /proc/interrupts, where hackbench -P's 4,600 faults take under a
// hundred.
func (pr *prober) beside(other topology.CPU, probe func() ([]int64, error)) ([]int64, error) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		return nil, &MissingError{Missing: []string{"sh is not installed (Debian: dash)"}}
	}
	// The pinned thread starts the spinner and stays until the probe is done: the child
	// inherits its affinity and cgroup, and its parent-death signal (PR_SET_PDEATHSIG) is tied to
	// that thread, so a prober killed outright (SIGKILL, a test's timeout) takes the spinner with
	// it rather than leaving it to spin.
	started, stop := make(chan error, 1), make(chan struct{})
	done := pr.onThread(other, func() error {
		pid, err := syscall.ForkExec(sh, []string{"sh", "-c", "while :; do :; done"},
			&syscall.ProcAttr{Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
		started <- err
		if err != nil {
			return nil
		}
		<-stop
		_ = unix.Kill(pid, unix.SIGKILL)
		_, _ = unix.Wait4(pid, nil, 0, nil)
		return nil
	})
	select {
	case err := <-started:
		if err != nil {
			<-done
			return nil, fmt.Errorf("host: probe: start the spinner: %w", err)
		}
	case err := <-done: // the thread could not be set up: nothing started
		return nil, err
	}
	defer func() {
		close(stop)
		<-done
	}()
	time.Sleep(10 * time.Millisecond)
	return probe()
}
