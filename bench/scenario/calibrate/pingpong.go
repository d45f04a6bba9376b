// This file implements -what pipe: the cost of a wake-up through a pipe, measured with a
// ping-pong between two processes (what `perf bench sched pipe` measures).

package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// pingpongC is a C program: two processes bounce one byte through two pipes loops times and the
// parent prints the elapsed nanoseconds. perf bench sched pipe does the same (1,000,000 loops by
// default) and prints usecs/op.
const pingpongC = `#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
int main(int argc, char **argv) {
	long loops = atol(argv[1]);
	int a[2], b[2];
	char c = 0;
	if (pipe(a) || pipe(b)) return 1;
	pid_t pid = fork();
	if (pid == 0) {
		for (long i = 0; i < loops; i++) {
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1) return 1;
		}
		return 0;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < loops; i++) {
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1) return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waitpid(pid, 0, 0);
	printf("%lld\n", (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec));
	return 0;
}
`

// PipeCalibration is the JSON of -what pipe.
type PipeCalibration struct {
	Method string `json:"method"`
	Kernel string `json:"kernel"`
	CPU    string `json:"cpu"`
	Loops  int    `json:"loops"`
	// SameCPUNs and CrossCPUNs are the runs' round trips in ns, both processes on CPU 0, and
	// free to run on any CPU.
	SameCPUNs  []int64 `json:"same_cpu_round_trip_ns"`
	CrossCPUNs []int64 `json:"any_cpu_round_trip_ns"`
	// SwitchNs is half the fastest same-CPU round trip: one write, one wake-up, one switch and
	// one read, the cost of handing the CPU to a woken thread.
	SwitchNs int64 `json:"switch_ns"`
	// IPINs is how much longer half the fastest any-CPU round trip is, or 0: the extra of
	// waking a thread on another CPU.
	IPINs int64 `json:"ipi_ns"`
}

func calibratePipe(w io.Writer, runs int) error {
	dir, err := os.MkdirTemp("", "schedkit-pingpong")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src, bin := filepath.Join(dir, "pingpong.c"), filepath.Join(dir, "pingpong")
	if err := os.WriteFile(src, []byte(pingpongC), 0o644); err != nil {
		return err
	}
	if out, err := exec.Command("gcc", "-O2", "-o", bin, src).CombinedOutput(); err != nil {
		return fmt.Errorf("gcc: %v: %s", err, out)
	}
	const loops = 100000
	c := PipeCalibration{
		Method: "a C ping-pong of one byte through two pipes between two processes, 100000 round trips per run, " +
			"pinned to CPU 0 with taskset and then unpinned; the minimum over the runs (other load only adds time); " +
			"switch = half the same-CPU round trip, ipi = half the any-CPU round trip minus switch (0 if negative)",
		Kernel: firstLine("uname", "-sr"), CPU: cpuModel(), Loops: loops,
	}
	one := func(pinned bool) (int64, error) {
		args := []string{bin, strconv.Itoa(loops)}
		if pinned {
			args = append([]string{"taskset", "-c", "0"}, args...)
		}
		out, err := exec.Command(args[0], args[1:]...).Output()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
		return ns / loops, err
	}
	for range runs {
		s, err := one(true)
		if err != nil {
			return err
		}
		x, err := one(false)
		if err != nil {
			return err
		}
		c.SameCPUNs, c.CrossCPUNs = append(c.SameCPUNs, s), append(c.CrossCPUNs, x)
	}
	c.SwitchNs = slices.Min(c.SameCPUNs) / 2
	c.IPINs = max(0, slices.Min(c.CrossCPUNs)/2-c.SwitchNs)
	return writeJSON(w, c)
}
