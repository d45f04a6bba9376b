package host

// This file reads the CPU times othersShare compares, on Linux.

import (
	"syscall"
	"time"
)

// markCPU returns where the machine's CPU time (/proc/stat, every CPU) and this process's
// (with its reaped children) stand now.
func markCPU() cpuMark {
	cpus, err := readProcStat()
	if err != nil || len(cpus) == 0 {
		return cpuMark{}
	}
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return cpuMark{}
	}
	m := cpuMark{ok: true, at: time.Now(), cpus: len(cpus)}
	const tick = time.Second / 100 // USER_HZ
	for _, c := range cpus {
		m.busy += time.Duration(c.BusyTicks()) * tick
	}
	for _, u := range []syscall.Rusage{self, children} {
		m.own += time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	return m
}
