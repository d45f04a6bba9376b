//go:build linux

// This file implements Discover on Linux: sysfs and the affinity mask.

package topology

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Discover returns the topology of the machine it runs on, read from /sys
// as [DiscoverFS] reads it, keeping only the CPUs in the calling thread's
// affinity mask (sched_getaffinity), so a process started under taskset or
// in a cpuset cgroup sees only its CPUs. On systems other than Linux it
// returns [ErrNotSupported].
func Discover() (*Topology, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, fmt.Errorf("topology: sched_getaffinity: %w", err)
	}
	var allowed CPUSet
	for c := range MaxCPUs {
		if set.IsSet(c) {
			allowed.Add(CPU(c))
		}
	}
	return DiscoverFS(os.DirFS("/sys"), allowed)
}
