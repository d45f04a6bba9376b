// Command pinning starts one worker per CPU (or per core, or per last-level cache) of the
// machine it runs on and pins each to its CPUs, the way a Go server with per-core shards or a
// benchmark harness wants its threads placed. It reuses two schedkit pieces: topology.Discover,
// which reads the host's CPUs, cores, caches and NUMA nodes from sysfs within the process's
// affinity mask, and topology.Partition, which divides them by a level; the pinning itself is
// runtime.LockOSThread plus sched_setaffinity(2) through golang.org/x/sys/unix.
//
// Run it with
//
//	go run ./examples/pinning [-per cpu|smt|llc|node] [-reps 10] [-kib 512] [-steps 2000000]
//
// It prints the plan (which worker gets which CPUs), then measures a cache-sensitive workload
// (each worker chases pointers through its own buffer of -kib KiB, sized to live in its core's
// L2 cache) with the workers pinned and with the same workers free to move, -reps times each,
// interleaved, and prints both distributions with bench/stat's ministat report and verdict
// (Student's t at 95%). A worker that the kernel moves to another core
// finds its buffer in the other core's cache no longer, so unpinned rounds are slower exactly
// when the kernel migrates (on an otherwise idle machine it may hardly ever do so, and the two
// distributions then agree: that is a finding too).
//
// Why this beats the obvious version: pinning worker i to CPU i assumes CPU ids are dense, that
// the process may use every CPU, and that CPU i and i+1 are different cores. Discover honours
// the affinity mask (a container or taskset may give you CPUs 4-7 only) and Partition knows
// which CPUs share a core or a cache, so "one worker per L3" or "one per core, not per
// hyperthread" is one call.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/stat"
	"github.com/schedkit/schedkit/topology"
)

func main() {
	per := flag.String("per", "cpu", "one worker per `level`: cpu, smt (core), llc or node")
	reps := flag.Int("reps", 10, "rounds of each mode")
	kib := flag.Int("kib", 512, "each worker's buffer in KiB")
	steps := flag.Int("steps", 2_000_000, "pointer-chasing steps per worker per round")
	flag.Parse()
	if err := run(os.Stdout, *per, *reps, *kib, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "pinning:", err)
		os.Exit(1)
	}
}

// levels maps the -per flag to a level; "cpu" is one worker per CPU.
var levels = map[string]topology.Level{"smt": topology.SMT, "llc": topology.LLC, "node": topology.Node}

// plan returns the CPU sets the workers are pinned to.
func plan(t *topology.Topology, per string) ([]topology.CPUSet, error) {
	if per == "cpu" {
		var sets []topology.CPUSet
		for c := range t.CPUs().All() {
			sets = append(sets, topology.CPUSetOf(c))
		}
		return sets, nil
	}
	l, ok := levels[per]
	if !ok {
		return nil, fmt.Errorf("-per %q: want cpu, smt, llc or node", per)
	}
	return t.Partition(l), nil
}

// writePlan prints the topology and which worker gets which CPUs.
func writePlan(w io.Writer, t *topology.Topology, per string, sets []topology.CPUSet) {
	fmt.Fprintf(w, "machine: %v\n", t)
	fmt.Fprintf(w, "one worker per %s: %d workers\n", per, len(sets))
	for i, s := range sets {
		fmt.Fprintf(w, "  worker %d -> cpus %v\n", i, s)
	}
}

// toUnix converts a schedkit CPU set to the kernel's mask type.
func toUnix(s topology.CPUSet) unix.CPUSet {
	var m unix.CPUSet
	for c := range s.All() {
		m.Set(int(c))
	}
	return m
}

// pin binds the calling goroutine to its OS thread and that thread to the CPUs of s, and reads
// the mask back to check the kernel took it. The caller must run it on the goroutine that
// does the work, and never unlock the thread (a pinned thread must not go back to the pool).
func pin(s topology.CPUSet) error {
	runtime.LockOSThread()
	want := toUnix(s)
	if err := unix.SchedSetaffinity(0, &want); err != nil {
		return fmt.Errorf("sched_setaffinity(%v): %w", s, err)
	}
	var got unix.CPUSet
	if err := unix.SchedGetaffinity(0, &got); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	if got != want {
		return fmt.Errorf("affinity read back differs from %v", s)
	}
	return nil
}

// chain is a buffer of indices forming one random cycle, so that following it touches every
// cache line in an order the prefetcher cannot guess.
func chain(kib int, seed uint64) []uint32 {
	n := kib * 1024 / 64 // one element per 64-byte line
	perm := rand.New(rand.NewPCG(seed, 9)).Perm(n)
	buf := make([]uint32, n*16)
	for i := range n {
		buf[perm[i]*16] = uint32(perm[(i+1)%n] * 16)
	}
	return buf
}

func chase(buf []uint32, steps int) uint32 {
	var i uint32
	for range steps {
		i = buf[i]
	}
	return i
}

// round runs one worker per set, pinned or not, and returns the wall time of the slowest.
func round(sets []topology.CPUSet, all topology.CPUSet, pinned bool, bufs [][]uint32, steps int) (time.Duration, error) {
	var wg sync.WaitGroup
	errs := make([]error, len(sets))
	var sink uint32
	var mu sync.Mutex
	start := time.Now()
	for i, s := range sets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The OS thread is not handed back (no UnlockOSThread): the goroutine exits
			// locked, so the runtime destroys the thread and its mask with it.
			target := all
			if pinned {
				target = s
			}
			if err := pin(target); err != nil {
				errs[i] = err
				return
			}
			v := chase(bufs[i], steps)
			mu.Lock()
			sink += v
			mu.Unlock()
		}()
	}
	wg.Wait()
	_ = sink
	return time.Since(start), errorsJoin(errs)
}

func errorsJoin(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// run discovers the host, prints the plan and measures pinned against free workers.
func run(w io.Writer, per string, reps, kib, steps int) error {
	if reps < 2 || kib < 1 || steps < 1 {
		return fmt.Errorf("want -reps >= 2, -kib >= 1, -steps >= 1")
	}
	t, err := topology.Discover()
	if err != nil {
		return err
	}
	sets, err := plan(t, per)
	if err != nil {
		return err
	}
	writePlan(w, t, per, sets)
	bufs := make([][]uint32, len(sets))
	for i := range bufs {
		bufs[i] = chain(kib, uint64(i))
	}
	var pinnedMs, freeMs []float64
	for range reps {
		for _, pinned := range []bool{true, false} {
			d, err := round(sets, t.CPUs(), pinned, bufs, steps)
			if err != nil {
				return err
			}
			ms := float64(d) / 1e6
			if pinned {
				pinnedMs = append(pinnedMs, ms)
			} else {
				freeMs = append(freeMs, ms)
			}
		}
	}
	fmt.Fprintf(w, "%d rounds each, %d KiB per worker, %d steps (ms, slowest worker per round):\n", reps, kib, steps)
	var samples []stat.Sample
	for _, r := range []struct {
		name string
		xs   []float64
	}{{"pinned", pinnedMs}, {"free", freeMs}} {
		d := &stat.Dataset{}
		for _, x := range r.xs {
			d.Add(x)
		}
		samples = append(samples, stat.Sample{Name: r.name, Data: d})
	}
	o := stat.DefaultOptions()
	o.NoPlot = reps < 3 // ministat wants three values to draw
	if reps < 3 {
		for _, sm := range samples {
			s := sm.Data.Summary()
			fmt.Fprintf(w, "  %-7s min %8.2f  median %8.2f  mean %8.2f  stddev %6.2f\n", sm.Name, s.Min, s.Median, s.Mean, s.Stddev)
		}
		return nil
	}
	return stat.Ministat(w, samples, o)
}
