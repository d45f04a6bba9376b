// Command calibrate measures the real programs behind the seed 000 pipeline scenario on this
// machine and prints what the scenario needs as JSON: the CPU time tar and gzip spend per
// tar record, the sizes they read and write in, and how often each blocks.
//
// Usage:
//
//	go run ./bench/scenario/calibrate [-dir DIR] [-runs N] > bench/scenario/data/pipeline-calibration.json
//	go run ./bench/scenario/calibrate -what tar-layout > bench/scenario/data/tar-layout.json
//	go run ./bench/scenario/calibrate -what compile > bench/scenario/data/compile-calibration.json
//	go run ./bench/scenario/calibrate -what pipe > bench/scenario/data/pipe-calibration.json
//	go run ./bench/scenario/calibrate -what chain > bench/scenario/data/chain-calibration.json
//
// It runs `tar cf - DIR | gzip -c > /dev/null` N times (DIR defaults to the Go tree's src,
// about 150 MiB of source, standing in for the seed's /usr/src), the two processes joined by a
// plain pipe, and reads each process's counters just after it exits and before it is reaped
// (waitid with WNOWAIT), so that nothing is missed:
//
//   - /proc/PID/task/*/schedstat: on-CPU time (sum_exec_runtime), run-queue wait (run_delay)
//     and the number of times on a CPU (pcount);
//   - /proc/PID/status: voluntary_ctxt_switches (blocking: an empty or full pipe, disk) and
//     nonvoluntary_ctxt_switches;
//   - /proc/PID/io: rchar/wchar and syscr/syscw, the bytes moved and the read(2)/write(2)
//     calls, whose ratio is the block size.
//
// The first run warms the page cache and is not reported, so the runs measure CPU, not the
// disk, as the seed's repeated runs over a cached /usr/src did. The output reports the median
// of the runs. The command is Linux-only; it is not part of the library.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/scenario"
)

// counters are what one process did, read from /proc just after it exited.
type counters struct {
	CPUNs       int64 `json:"cpu_ns"`       // sum of schedstat sum_exec_runtime over its tasks
	RunDelayNs  int64 `json:"run_delay_ns"` // sum of schedstat run_delay
	Slices      int64 `json:"slices"`       // sum of schedstat pcount
	Voluntary   int64 `json:"voluntary"`    // voluntary_ctxt_switches
	Involuntary int64 `json:"involuntary"`  // nonvoluntary_ctxt_switches
	ReadBytes   int64 `json:"rchar"`
	WriteBytes  int64 `json:"wchar"`
	Reads       int64 `json:"syscr"`
	Writes      int64 `json:"syscw"`
	WallNs      int64 `json:"wall_ns,omitempty"` // compile jobs: from start to exit
}

// run is one measured pipeline.
type run struct {
	WallNs int64    `json:"wall_ns"`
	Tar    counters `json:"tar"`
	Gzip   counters `json:"gzip"`
}

// Calibration is the JSON the command prints: the summary scenario.Pipeline reads, and the
// runs it was taken from.
type Calibration struct {
	scenario.PipelineCalibration
	Runs []run `json:"runs"`
}

func main() {
	what := flag.String("what", "pipeline", "what to measure: pipeline (tar | gzip), tar-layout (bsdtar's records and costs), compile (gcc -O2 -c), chain (the processes around a kernel object: cc1 alone, the job shell, a program's start) or pipe (a ping-pong's wake-up cost)")
	dir := flag.String("dir", goSrc(), "directory tar archives (pipeline)")
	runs := flag.Int("runs", 5, "measured runs (after one warm-up run)")
	flag.Parse()
	var err error
	switch *what {
	case "pipeline":
		err = calibrate(os.Stdout, *dir, *runs)
	case "tar-layout":
		err = calibrateTarLayout(os.Stdout, *dir, *runs)
	case "compile":
		err = calibrateCompile(os.Stdout, filepath.Join(filepath.Dir(goSrc()), "src", "runtime", "cgo"), *runs)
	case "pipe":
		err = calibratePipe(os.Stdout, *runs)
	case "chain":
		err = calibrateChain(os.Stdout, filepath.Join(filepath.Dir(goSrc()), "src", "runtime", "cgo"), *runs)
	default:
		err = fmt.Errorf("-what %q: want pipeline, tar-layout, compile, chain or pipe", *what)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibrate:", err)
		os.Exit(1)
	}
}

// goSrc returns the src directory of the Go tree `go env GOROOT` names, or "." without one.
func goSrc() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "."
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func calibrate(w io.Writer, dir string, n int) error {
	if n < 1 {
		return fmt.Errorf("-runs %d: need at least 1", n)
	}
	c := Calibration{PipelineCalibration: scenario.PipelineCalibration{
		Method: "tar cf - DIR | gzip -c >/dev/null, one warm-up run then the median of the runs; " +
			"counters from /proc/PID/task/*/schedstat, /proc/PID/status and /proc/PID/io read after " +
			"exit before reaping (waitid WNOWAIT); record size = tar wchar/syscw; per-record CPU = " +
			"schedstat sum_exec_runtime / (tar wchar / record size)",
		Command:     "tar cf - " + filepath.Base(dir) + " | gzip -c >/dev/null",
		Kernel:      firstLine("uname", "-sr"),
		CPU:         cpuModel(),
		TarVersion:  firstLine("tar", "--version"),
		GzipVersion: firstLine("gzip", "--version"),
	}}
	for i := 0; i <= n; i++ {
		r, err := pipeline(dir)
		if err != nil {
			return err
		}
		if i > 0 {
			c.Runs = append(c.Runs, r)
		}
	}
	med := func(f func(run) int64) int64 { return medianOf(c.Runs, f) }
	c.WallNs = med(func(r run) int64 { return r.WallNs })
	c.RecordBytes = med(func(r run) int64 { return r.Tar.WriteBytes / max(1, r.Tar.Writes) })
	c.GzipReadSize = med(func(r run) int64 { return r.Gzip.ReadBytes / max(1, r.Gzip.Reads) })
	c.Records = med(func(r run) int64 { return r.Tar.WriteBytes }) / max(1, c.RecordBytes)
	c.TarNsPerRec = med(func(r run) int64 { return r.Tar.CPUNs }) / max(1, c.Records)
	c.GzipNsPerRec = med(func(r run) int64 { return r.Gzip.CPUNs }) / max(1, c.Records)
	c.TarBlocks = med(func(r run) int64 { return r.Tar.Voluntary })
	c.GzipBlocks = med(func(r run) int64 { return r.Gzip.Voluntary })
	return writeJSON(w, c)
}

// Compile is the JSON of -what compile: gcc -O2 -c of every C file of a directory, one
// process per file as make runs them. It is the summary scenario.Compile reads, and every
// job's CPU time and voluntary switches it was taken from.
type Compile struct {
	scenario.CompileCalibration
	Jobs []counters `json:"jobs"`
}

// writeJSON writes v to w as indented JSON and a newline: the output of every -what.
func writeJSON(w io.Writer, v any) error {
	out, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// sourceDir returns the name a calibration records for the C source directory dir: its parent's
// name and its own (sys/kern), not where it lies on the machine that measured.
func sourceDir(dir string) string {
	return filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir)
}

// compilingFiles returns the C files of dir, in name order, that gcc -O2 -w -c compiles on this
// machine, each compiled once (the warm-up pass, which drops the others), or an error if there
// are none.
func compilingFiles(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.c"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no C files in %s", dir)
	}
	slices.Sort(files)
	var ok []string
	for _, f := range files {
		if exec.Command("gcc", "-O2", "-w", "-c", f, "-o", os.DevNull).Run() == nil {
			ok = append(ok, f)
		}
	}
	if len(ok) == 0 {
		return nil, fmt.Errorf("no C file of %s compiles", dir)
	}
	return ok, nil
}

func calibrateCompile(w io.Writer, dir string, runs int) error {
	files, err := compilingFiles(dir)
	if err != nil {
		return err
	}
	c := Compile{CompileCalibration: scenario.CompileCalibration{
		Method: "gcc -O2 -w -c FILE -o /dev/null for every *.c of DIR that compiles on this machine (the warm-up " +
			"pass drops the others), then the given passes; each job's CPU time (user + system) and voluntary and " +
			"involuntary switches from the rusage wait4 returns for the gcc driver, which includes its reaped " +
			"children cc1 and as (Linux wait_task_zombie: RUSAGE_BOTH)",
		Dir: sourceDir(dir), GCC: firstLine("gcc", "--version"),
		Kernel: firstLine("uname", "-sr"), CPU: cpuModel(),
	}}
	for range runs {
		for _, f := range files {
			j, err := compileRusage(f)
			if err != nil {
				return err
			}
			c.Jobs = append(c.Jobs, j)
		}
	}
	var cpu int64
	cpu, c.BlocksPerCPUSecond, c.OffCPUNsPerBlock = switchRates(c.Jobs)
	c.MeanCPUNs = cpu / int64(len(c.Jobs))
	return writeJSON(w, c)
}

// switchRates returns the jobs' total CPU time, their voluntary switches per second of it, and
// their time off CPU per voluntary switch: each job's wall time less its CPU time and its
// run-queue wait (none for a job measured by its rusage), at least 0.
func switchRates(jobs []counters) (cpu int64, perCPUSecond float64, offPerBlock int64) {
	var blocks, off int64
	for _, j := range jobs {
		cpu += j.CPUNs
		blocks += j.Voluntary
		off += max(0, j.WallNs-j.CPUNs-j.RunDelayNs)
	}
	return cpu, float64(blocks) / (float64(cpu) / 1e9), off / max(1, blocks)
}

// medianOf returns the median of f over xs: the middle of the values sorted, the upper of the
// two middles for an even count.
func medianOf[T any](xs []T, f func(T) int64) int64 {
	v := make([]int64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// compileRusage runs gcc -O2 -w -c file once and returns the CPU time and switches of the
// driver and its reaped children (cc1, as: the rusage of a reaped child covers its reaped
// descendants) and the wall time from its start to its exit: one compile job, as
// calibrateCompile measures it and calibrateChain takes it as the scale.
func compileRusage(file string) (counters, error) {
	cmd := exec.Command("gcc", "-O2", "-w", "-c", file, "-o", os.DevNull)
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return counters{}, fmt.Errorf("gcc %s: %w", file, err)
	}
	wall := time.Since(t0).Nanoseconds()
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return counters{}, fmt.Errorf("no rusage")
	}
	return counters{CPUNs: ru.Utime.Nano() + ru.Stime.Nano(),
		Voluntary: int64(ru.Nvcsw), Involuntary: int64(ru.Nivcsw), WallNs: wall}, nil
}

// pipeline runs tar | gzip once and returns what each did.
func pipeline(dir string) (run, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return run{}, err
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return run{}, err
	}
	defer null.Close()
	tar := exec.Command("tar", "cf", "-", "-C", filepath.Dir(dir), filepath.Base(dir))
	tar.Stdout, tar.Stderr = pw, os.Stderr
	gz := exec.Command("gzip", "-c")
	gz.Stdin, gz.Stdout, gz.Stderr = pr, null, os.Stderr
	start := time.Now()
	if err := gz.Start(); err != nil {
		return run{}, err
	}
	if err := tar.Start(); err != nil {
		return run{}, err
	}
	pw.Close()
	pr.Close()
	var r run
	if r.Tar, err = waitAndRead(tar); err != nil {
		return run{}, err
	}
	if r.Gzip, err = waitAndRead(gz); err != nil {
		return run{}, err
	}
	r.WallNs = time.Since(start).Nanoseconds()
	return r, nil
}

// waitAndRead waits for cmd to exit without reaping it, reads its counters, then reaps it.
func waitAndRead(cmd *exec.Cmd) (counters, error) {
	pid := cmd.Process.Pid
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return counters{}, fmt.Errorf("waitid %d: %w", pid, err)
		}
		break
	}
	c, rerr := read(pid)
	if err := cmd.Wait(); err != nil {
		return counters{}, fmt.Errorf("%s: %w", cmd.Path, err)
	}
	return c, rerr
}

func read(pid int) (counters, error) {
	var c counters
	base := fmt.Sprintf("/proc/%d", pid)
	tasks, _ := filepath.Glob(base + "/task/*/schedstat")
	if len(tasks) == 0 {
		tasks = []string{base + "/schedstat"}
	}
	for _, f := range tasks {
		b, err := os.ReadFile(f)
		if err != nil {
			return c, err
		}
		v := fields(string(b))
		if len(v) < 3 {
			return c, fmt.Errorf("%s: %q: want 3 fields", f, b)
		}
		c.CPUNs += v[0]
		c.RunDelayNs += v[1]
		c.Slices += v[2]
	}
	st, err := os.ReadFile(base + "/status")
	if err != nil {
		return c, err
	}
	c.Voluntary = keyed(string(st), "voluntary_ctxt_switches:")
	c.Involuntary = keyed(string(st), "nonvoluntary_ctxt_switches:")
	io, err := os.ReadFile(base + "/io")
	if err != nil {
		return c, err
	}
	c.ReadBytes = keyed(string(io), "rchar:")
	c.WriteBytes = keyed(string(io), "wchar:")
	c.Reads = keyed(string(io), "syscr:")
	c.Writes = keyed(string(io), "syscw:")
	return c, nil
}

func fields(s string) []int64 {
	var v []int64
	for _, f := range strings.Fields(s) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil
		}
		v = append(v, n)
	}
	return v
}

func keyed(s, key string) int64 {
	for _, l := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(l, key); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(rest), 10, 64)
			return n
		}
	}
	return -1
}

func firstLine(name string, args ...string) string {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "unknown"
	}
	l, _, _ := bytes.Cut(out, []byte("\n"))
	return string(l)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "model name"); ok {
			return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), ":"))
		}
	}
	return "unknown"
}
