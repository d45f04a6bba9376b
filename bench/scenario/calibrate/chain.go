package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/scenario"
)

// Chain is the JSON of -what chain: the processes around one kernel object as bmake runs them,
// measured one by one on this machine. FreeBSD's buildkernel runs, per object, a job shell
// (bmake job.c JobExec: sh -e reading the target's commands from a file on its standard input)
// that forks the compiler (sys/conf/kern.pre.mk NORMAL_C) and then ctfconvert
// (NORMAL_CTFCONVERT, the second command usr.sbin/config's mkmakefile.c writes per object).
// FreeBSD's clang runs cc1 and the assembler in its own process (CLANG_SPAWN_CC1 0); gcc's cc1,
// run alone, is the nearest process here. ctfconvert is not installed here: a program that
// starts and exits (true) stands for it, a lower bound of its CPU.
type Chain struct {
	// The summary scenario.Chain reads: the CPU times as fractions of a compile (the
	// medians below over GCCCPUNs), cc1's switches and time off CPU, the programs measured.
	scenario.ChainCalibration
	CPU string `json:"cpu"`
	// CC1 are the compiler proper's runs: gcc's cc1 alone, as `gcc -###` prints it.
	CC1 []counters `json:"cc1"`
	// Shell are the job shells' own counters (their children's not included): sh -e reading
	// "gcc -O2 -w -c FILE -o /dev/null" and "true" from a file on its standard input.
	Shells []counters `json:"shells"`
	// Trues are the runs of true alone: the CPU of starting and ending a small program.
	Trues []counters `json:"trues"`
	// GCCs are the whole compiles (gcc -O2 -w -c: the driver and its reaped cc1 and as, from
	// the rusage wait4 returns, and each one's wall time), the scale the other CPU times are
	// given against.
	GCCs []counters `json:"gccs"`
	// The medians of the CPU times: a whole compile, cc1 alone, a job shell's own, true.
	GCCCPUNs   int64 `json:"gcc_cpu_ns"`
	CC1CPUNs   int64 `json:"cc1_cpu_ns"`
	ShellCPUNs int64 `json:"shell_cpu_ns"`
	TrueCPUNs  int64 `json:"true_cpu_ns"`
	// MakeCPUNs is make's own CPU per target (GNU make here: bmake is not installed), the
	// median of the passes of make -j 8 over MakeTargets targets of two commands each (true,
	// true).
	MakeTargets int   `json:"make_targets"`
	MakeCPUNs   int64 `json:"make_cpu_ns"`
}

func calibrateChain(w io.Writer, dir string, runs int) error {
	files, err := compilingFiles(dir)
	if err != nil {
		return err
	}
	c := Chain{ChainCalibration: scenario.ChainCalibration{
		Method: "for every *.c of DIR that gcc -O2 -w -c compiles, the given passes of: cc1 alone (the command " +
			"gcc -### prints, its output to /dev/null); sh -e with \"gcc -O2 -w -c FILE -o /dev/null\" and " +
			"\"true\" on its standard input, as bmake's job shell reads a target's commands; true alone; make -j 8 over 200 targets of two commands (make's own CPU per target); gcc -O2 -w -c FILE, its CPU from rusage with its children's, the scale. Each " +
			"process's own counters from /proc/PID/task/*/schedstat and /proc/PID/status, read after it exits " +
			"and before it is reaped (waitid WNOWAIT), so a shell's children are not counted in it",
		Dir: sourceDir(dir), GCC: firstLine("gcc", "--version"),
		Shell: shellName(), Kernel: firstLine("uname", "-sr"),
	}, CPU: cpuModel()}
	var cc1s [][]string
	for _, f := range files {
		if a, err := cc1Command(f); err == nil {
			cc1s = append(cc1s, a)
		}
	}
	if len(cc1s) == 0 {
		return fmt.Errorf("gcc -### names no cc1 for the C files of %s", dir)
	}
	for pass := 0; pass < runs; pass++ {
		for _, a := range cc1s {
			j, err := measure(exec.Command(a[0], a[1:]...), "")
			if err != nil {
				return err
			}
			c.CC1 = append(c.CC1, j)
			if j, err = compileRusage(a[len(a)-1]); err != nil {
				return err
			}
			c.GCCs = append(c.GCCs, j)
			script := fmt.Sprintf("gcc -O2 -w -c %s -o /dev/null\ntrue\n", a[len(a)-1])
			if j, err = measure(exec.Command("sh", "-e"), script); err != nil {
				return err
			}
			c.Shells = append(c.Shells, j)
			if j, err = measure(exec.Command("true"), ""); err != nil {
				return err
			}
			c.Trues = append(c.Trues, j)
		}
	}
	_, c.CC1BlocksPerCPUSecond, c.CC1OffCPUNsPerBlock = switchRates(c.CC1)
	c.GCCCPUNs, c.CC1CPUNs = median(c.GCCs), median(c.CC1)
	c.ShellCPUNs, c.TrueCPUNs = median(c.Shells), median(c.Trues)
	if err := makePerTarget(&c, runs); err != nil {
		return err
	}
	c.MakePerCompile = float64(c.MakeCPUNs) / float64(c.GCCCPUNs)
	c.ShellPerCompile = float64(c.ShellCPUNs) / float64(c.GCCCPUNs)
	c.TruePerCompile = float64(c.TrueCPUNs) / float64(c.GCCCPUNs)
	return writeJSON(w, c)
}

// makePerTarget measures make's own CPU per target: make -s -j 8 over c.MakeTargets targets
// of two commands each, its counters read before it is reaped; the median of runs passes.
func makePerTarget(c *Chain, runs int) error {
	dir, err := os.MkdirTemp("", "calibrate-make")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c.MakeTargets = 200
	var b strings.Builder
	b.WriteString("all:")
	for i := range c.MakeTargets {
		fmt.Fprintf(&b, " t%d", i)
	}
	b.WriteString("\n")
	for i := range c.MakeTargets {
		fmt.Fprintf(&b, "t%d:\n\t@true\n\t@true\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(b.String()), 0o644); err != nil {
		return err
	}
	c.Make = firstLine("make", "--version")
	var per []counters
	for range max(1, runs) {
		cmd := exec.Command("make", "-s", "-j", "8", "-C", dir)
		j, err := measure(cmd, "")
		if err != nil {
			return err
		}
		j.CPUNs /= int64(c.MakeTargets)
		per = append(per, j)
	}
	c.MakeCPUNs = median(per)
	return nil
}

// cc1Command returns the cc1 command gcc runs to compile file, which gcc compiles
// (compilingFiles), its output sent to /dev/null and the source file last.
func cc1Command(file string) ([]string, error) {
	out, err := exec.Command("gcc", "-###", "-O2", "-w", "-c", file, "-o", os.DevNull).CombinedOutput()
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(out), "\n") {
		a := strings.Fields(l)
		if len(a) == 0 || !strings.HasSuffix(strings.Trim(a[0], `"`), "/cc1") {
			continue
		}
		var args []string
		for i := 0; i < len(a); i++ {
			s := strings.Trim(a[i], `"`)
			if s == "-o" && i+1 < len(a) {
				i++ // the assembly output: to /dev/null
				args = append(args, "-o", os.DevNull)
				continue
			}
			if s != file {
				args = append(args, s)
			}
		}
		return append(args, file), nil
	}
	return nil, fmt.Errorf("gcc -### %s: no cc1 command", file)
}

// measure runs cmd with stdin (if not empty) as its standard input, from a file as bmake gives
// a job shell its commands, and returns the process's own counters and wall time.
func measure(cmd *exec.Cmd, stdin string) (counters, error) {
	if stdin != "" {
		f, err := os.CreateTemp("", "calibrate-job")
		if err != nil {
			return counters{}, err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		if _, err := f.WriteString(stdin); err != nil {
			return counters{}, err
		}
		if _, err := f.Seek(0, 0); err != nil {
			return counters{}, err
		}
		cmd.Stdin = f
	}
	cmd.Stderr = os.Stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return counters{}, err
	}
	c, err := waitAndRead(cmd)
	c.WallNs = time.Since(t0).Nanoseconds()
	return c, err
}

// median returns the median CPU time of cs.
func median(cs []counters) int64 {
	return medianOf(cs, func(c counters) int64 { return c.CPUNs })
}

// shellName is the name of the program /bin/sh is on this machine (dash on Debian, an ash like
// FreeBSD's sh), without its directory.
func shellName() string {
	if p, err := filepath.EvalSymlinks("/bin/sh"); err == nil {
		return filepath.Base(p)
	}
	return "sh"
}
