package host

// This file implements MeasurePipeline: real programs connected by real pipes, each measured
// as it exits.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// MeasurePipeline runs the programs of stages connected by pipes, as a shell runs
// "tar cf - dir | gzip", with /dev/null as the first's input and the last's output, and
// measures each program when it exits: CPU time, run-queue wait, context switches, and the
// bytes and calls of its reads and writes (so the block sizes and the CPU cost per block of
// each stage). Stages run in a process group of their own, which is killed if limit passes
// (at most MaxLimit) or ctx is done; then MeasurePipeline returns an error. Prefix a stage
// with "taskset -c N" to pin it.
//
// This is the calibration source of the scenarios: seed 000's tar | gzip costs are measured
// with it (see the package documentation).
func MeasurePipeline(ctx context.Context, stages [][]string, limit time.Duration) (*Pipeline, error) {
	if err := checkPipeline(stages, limit); err != nil {
		return nil, err
	}
	unlock, err := lockHost(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	cmds := make([]*exec.Cmd, len(stages))
	var closers []*os.File
	defer func() {
		for _, f := range closers {
			f.Close()
		}
	}()
	p := &Pipeline{Stages: make([]Stage, len(stages))}
	var in *os.File = null
	for i, s := range stages {
		c := exec.Command(s[0], s[1:]...)
		c.Stdin, c.Stderr = in, os.Stderr
		c.Stdout = null
		if i < len(stages)-1 {
			r, w, err := os.Pipe()
			if err != nil {
				return nil, err
			}
			closers = append(closers, r, w)
			if sz, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0); err == nil {
				p.PipeSize = int64(sz)
			}
			c.Stdout, in = w, r
		}
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cmds[i] = c
		p.Stages[i].Args = s
	}
	start := time.Now()
	pgid, err := startGroup(cmds)
	if err != nil {
		return nil, err
	}
	for _, f := range closers { // the children hold their ends now
		f.Close()
	}
	closers = nil
	errs := make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = measureExit(c, &p.Stages[i], start)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var cause error
	select {
	case <-done:
	case <-time.After(limit):
		cause = fmt.Errorf("host: pipeline did not finish within %v", limit)
	case <-ctx.Done():
		cause = ctx.Err()
	}
	if cause != nil {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
		return nil, cause
	}
	p.Wall = time.Since(start)
	return p, errors.Join(errs...)
}

// checkPipeline checks MeasurePipeline's arguments: 1 to 16 stages, each a program that is
// installed, and a limit in (0, MaxLimit].
func checkPipeline(stages [][]string, limit time.Duration) error {
	switch {
	case len(stages) == 0 || len(stages) > 16:
		return limitErr("%d stages outside 1..16", len(stages))
	case limit <= 0 || limit > MaxLimit:
		return limitErr("limit %v outside (0, %v]", limit, MaxLimit)
	}
	for _, s := range stages {
		if len(s) == 0 {
			return errors.New("host: empty pipeline stage")
		}
		if _, err := exec.LookPath(s[0]); err != nil {
			return &MissingError{Missing: []string{s[0] + " is not installed"}}
		}
	}
	return nil
}

// startGroup starts cmds in one new process group, the first's, and returns its id. If one
// cannot start, the group is killed and the ones started are reaped.
func startGroup(cmds []*exec.Cmd) (pgid int, err error) {
	for i, c := range cmds {
		c.SysProcAttr.Pgid = pgid
		if err := c.Start(); err != nil {
			if pgid != 0 {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
			for _, d := range cmds[:i] {
				_ = d.Wait()
			}
			return 0, fmt.Errorf("host: start %s: %w", c.Path, err)
		}
		if pgid == 0 {
			pgid = c.Process.Pid
		}
	}
	return pgid, nil
}

// measureExit waits for c to exit, reads its /proc files while it is a zombie, then reaps it.
func measureExit(c *exec.Cmd, s *Stage, start time.Time) error {
	pid := c.Process.Pid
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			break
		}
	}
	s.Wall = time.Since(start)
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	var firstErr error
	if text, err := readFile(dir + "schedstat"); err == nil {
		if ss, err := ParseSchedstat(text); err == nil {
			s.Wait, s.Slices = time.Duration(ss.Wait), ss.Slices
		} else {
			firstErr = err
		}
	}
	if text, err := readFile(dir + "status"); err == nil {
		if sw, err := ParseStatus(text); err == nil {
			s.Voluntary, s.Involuntary = sw.Voluntary, sw.Involuntary
		}
	}
	if text, err := readFile(dir + "io"); err == nil {
		s.ReadBytes, s.WriteBytes, s.Reads, s.Writes, _ = ParseIO(text)
	}
	err := c.Wait()
	if ps := c.ProcessState; ps != nil {
		s.CPU = ps.UserTime() + ps.SystemTime()
	}
	if err != nil {
		return fmt.Errorf("host: %s: %w", c.Path, err)
	}
	return firstErr
}
