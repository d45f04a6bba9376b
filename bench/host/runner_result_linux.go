package host

// This file assembles Run's Result after the run: the threads' measurements, the CPUs'
// times from /proc/stat and the load average.

import (
	"os"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/sim"
)

// result assembles the Result after the run.
func (r *runner) result(stopAt int64, load0 float64, stat0, stat1 []CPUTimes) *Result {
	rel, _, _ := kernelRelease()
	res := &Result{Load: [2]float64{load0, loadavg()}, Skipped: r.plan.skipped}
	res.Policy = "linux " + rel
	res.Seed = r.opts.Seed
	res.End = stopAt - r.t0
	res.Messages = r.messages.Load()
	last, all := int64(0), true
	for _, t := range r.threads {
		st := t.st
		if st.End >= 0 {
			res.Exited++
			last = max(last, st.End)
		} else {
			all = false
		}
		res.Threads = append(res.Threads, st)
		res.Timeslices = append(res.Timeslices, t.slices)
	}
	res.Makespan = res.End
	if all {
		res.Makespan = last
	}
	for _, pp := range r.peers {
		res.Peers = append(res.Peers, pp.res)
	}
	res.CPUs = cpuStats(stat0, stat1)
	res.Finish()
	return res
}

// cpuStats returns each CPU's busy and idle time between two readings of /proc/stat.
func cpuStats(a, b []CPUTimes) []sim.CPUStats {
	n := 0
	for _, c := range b {
		n = max(n, c.CPU+1)
	}
	out := make([]sim.CPUStats, n)
	const tick = int64(time.Second / 100) // USER_HZ
	for _, y := range b {
		for _, x := range a {
			if x.CPU == y.CPU {
				out[y.CPU].Busy = (y.BusyTicks() - x.BusyTicks()) * tick
				out[y.CPU].Idle = (y.IdleTicks() - x.IdleTicks()) * tick
			}
		}
	}
	return out
}

func readProcStat() ([]CPUTimes, error) {
	text, err := readFile("/proc/stat")
	if err != nil {
		return nil, err
	}
	return ParseProcStat(text)
}

func loadavg() float64 {
	text, err := readFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	v, _ := ParseLoadavg(text)
	return v
}

// raise sends sig to the calling thread and so ends the process before it returns, unless the
// program itself still catches sig. A kill(2) of the whole process is not enough: the kernel may
// hand the signal to another thread, which takes it later, after the caller has gone on to print
// its error and exit with a status of its own. A signal a thread sends itself with tgkill(2) is
// taken on the return from that system call, and the runtime's handler, with no channel
// notified, ends the process by the signal's default action.
func raise(sig syscall.Signal) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	_ = unix.Tgkill(os.Getpid(), unix.Gettid(), sig)
}
