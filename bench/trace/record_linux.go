//go:build linux

package trace

// This file implements Recording on Linux: a private tracefs instance with the scheduler's
// tracepoints, read per CPU while the recorded program runs.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A Recording records the kernel's scheduler events into a private tracefs instance (its own
// ring buffers, events and switch, so that it neither disturbs nor is disturbed by other
// tracers, trace-cmd's included) and reads each CPU's buffer (per_cpu/cpuN/trace_pipe) into a
// temporary file while the events come, so that a long recording needs no large buffer.
// Stop ends the recording; WriteTo merges the CPUs' text by time into a trace that ReadFtrace
// reads; Close removes the instance, the temporary files and (if the recording mounted it)
// tracefs, whatever happened before, and may be called more than once.
//
// A Recording is the tracefs side only: running the recorded program, and stopping on signals,
// is the caller's (schedbench record).
type Recording struct {
	root, dir string // tracefs and the instance
	mounted   bool   // the recording mounted tracefs at root
	tmp       string // the directory of the per-CPU files
	files     []*os.File
	readers   sync.WaitGroup
	stop      chan struct{}
	mu        sync.Mutex
	readErr   error
	stats     RecordStats
	stopped   bool
	closed    bool
}

// pollEvery is how often the readers look at an empty buffer again.
const pollEvery = 20 * time.Millisecond

// StartRecording makes the instance, enables RecordEvents in it, starts its readers and turns
// tracing on. It returns ErrNoTracefs (wrapped, with the reason) when tracefs cannot be
// written; any other error leaves nothing behind.
func StartRecording(o *RecordOptions) (_ *Recording, err error) {
	if o == nil {
		o = &RecordOptions{}
	}
	r := &Recording{stop: make(chan struct{})}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()
	if r.root, r.mounted, err = findTracefs(o.Tracefs); err != nil {
		return nil, err
	}
	sweepInstances(filepath.Join(r.root, "instances"))
	name := o.Name
	if name == "" {
		name = recordPrefix + strconv.Itoa(os.Getpid())
	}
	r.dir = filepath.Join(r.root, "instances", name)
	if err := os.Mkdir(r.dir, 0o755); err != nil {
		r.dir = ""
		if errors.Is(err, os.ErrPermission) || errors.Is(err, unix.EROFS) {
			return nil, fmt.Errorf("%w: %v", ErrNoTracefs, err)
		}
		return nil, fmt.Errorf("creating the tracefs instance: %v", err)
	}
	// A new instance traces at once (with no event enabled): keep it off until started.
	if err := r.write("tracing_on", "0"); err != nil {
		return nil, err
	}
	cpus, err := onlineCPUs(r.dir)
	if err != nil {
		return nil, err
	}
	kb := o.BufferKB
	if kb <= 0 {
		kb = defaultBufferKB(len(cpus))
	}
	if err := r.write("buffer_size_kb", strconv.Itoa(kb)); err != nil {
		return nil, err
	}
	for _, ev := range RecordEvents {
		err := r.write(filepath.Join("events", ev, "enable"), "1")
		if err != nil && !(optionalEvents[ev] && errors.Is(err, os.ErrNotExist)) {
			return nil, err
		}
	}
	if r.tmp, err = os.MkdirTemp("", "schedkit-record-"); err != nil {
		return nil, err
	}
	for _, cpu := range cpus {
		if err := r.startReader(cpu); err != nil {
			return nil, err
		}
	}
	r.stats.CPUs = len(cpus)
	if err := r.write("tracing_on", "1"); err != nil {
		return nil, err
	}
	return r, nil
}

// defaultBufferKB is each CPU's ring buffer when RecordOptions.BufferKB is 0, in KiB: a
// sixteenth of the machine's memory, at most 1 GiB, shared by the CPUs, each at least 4 MiB and
// at most 256 MiB. The buffers hold the events the readers have not read yet; on a loaded
// machine the readers fall behind (a tar | gzip of 85 s beside other programs wrote 7.8 million
// events, of which a 32 MiB buffer per CPU lost a quarter), and only the buffer keeps them.
func defaultBufferKB(ncpu int) int {
	total := int64(256 << 10) // KiB, without /proc/meminfo
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, "MemTotal:"); ok {
				if n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64); err == nil && n > 0 {
					total = min(n/16, 1<<20)
				}
			}
		}
	}
	return int(min(max(total/int64(max(ncpu, 1)), 4<<10), 256<<10))
}

// recordPrefix starts the names of the instances recordings make.
const recordPrefix = "schedkit-record-"

// Instance returns the tracefs instance's directory.
func (r *Recording) Instance() string { return r.dir }

func (r *Recording) write(file, value string) error {
	if err := os.WriteFile(filepath.Join(r.dir, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("tracefs: %v", err)
	}
	return nil
}

// startReader reads CPU cpu's trace_pipe into a temporary file until Stop, without blocking:
// an empty buffer is looked at again every pollEvery.
func (r *Recording) startReader(cpu int) error {
	pipe := filepath.Join(r.dir, "per_cpu", "cpu"+strconv.Itoa(cpu), "trace_pipe")
	fd, err := unix.Open(pipe, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("tracefs: opening %s: %v", pipe, err)
	}
	f, err := os.Create(filepath.Join(r.tmp, "cpu"+strconv.Itoa(cpu)))
	if err != nil {
		unix.Close(fd)
		return err
	}
	r.files = append(r.files, f)
	r.readers.Add(1)
	go func() {
		defer r.readers.Done()
		defer unix.Close(fd)
		buf := make([]byte, 256<<10)
		draining := false
		for {
			n, err := unix.Read(fd, buf)
			switch {
			case n > 0:
				if _, werr := f.Write(buf[:n]); werr != nil {
					r.fail(werr)
					return
				}
				continue
			case err == unix.EINTR:
				continue
			case err != nil && err != unix.EAGAIN:
				r.fail(fmt.Errorf("tracefs: reading %s: %v", pipe, err))
				return
			}
			// Empty: after Stop, the buffer is drained once it reads empty.
			if draining {
				return
			}
			select {
			case <-r.stop:
				draining = true
			case <-time.After(pollEvery):
			}
		}
	}()
	return nil
}

func (r *Recording) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.readErr == nil {
		r.readErr = err
	}
}

// Stop turns tracing off, reads what the buffers still hold, and returns the first read error.
func (r *Recording) Stop() error {
	if r.stopped {
		return r.readErr
	}
	r.stopped = true
	err := r.write("tracing_on", "0")
	close(r.stop)
	r.readers.Wait()
	r.stats.Lost = r.overruns()
	if r.readErr != nil {
		return r.readErr
	}
	return err
}

// overruns returns the events the instance's CPUs lost (the overrun and dropped counts of
// per_cpu/cpuN/stats).
func (r *Recording) overruns() int64 {
	var lost int64
	cpus, _ := onlineCPUs(r.dir)
	for _, cpu := range cpus {
		data, err := os.ReadFile(filepath.Join(r.dir, "per_cpu", "cpu"+strconv.Itoa(cpu), "stats"))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			k, v, ok := strings.Cut(l, ":")
			if ok && (k == "overrun" || k == "dropped events") {
				n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				lost += n
			}
		}
	}
	return lost
}

// WriteTo writes the recorded trace to w, after Stop: a header naming what (the recorded
// command), then the CPUs' lines merged by time.
func (r *Recording) WriteTo(w io.Writer, what string) (RecordStats, error) {
	if !r.stopped {
		return r.stats, errors.New("trace: Recording.WriteTo before Stop")
	}
	if _, err := io.WriteString(w, recordHeader(what, r.stats.CPUs)); err != nil {
		return r.stats, err
	}
	streams := make([]io.Reader, len(r.files))
	for i, f := range r.files {
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return r.stats, err
		}
		streams[i] = f
	}
	n, err := mergeCPUs(w, streams)
	r.stats.Events = n
	return r.stats, err
}

// Close stops the recording if it runs, removes the instance (after turning its events off),
// the temporary files and, if the recording mounted tracefs, unmounts it. It returns the
// first error of the removal.
func (r *Recording) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	var first error
	if r.dir != "" {
		if !r.stopped {
			r.Stop()
		}
		// rmdir of an instance fails while a file of it is open (the readers have closed theirs).
		if err := os.Remove(r.dir); err != nil {
			first = fmt.Errorf("removing the tracefs instance %s: %v", r.dir, err)
		}
	}
	for _, f := range r.files {
		f.Close()
	}
	if r.tmp != "" {
		os.RemoveAll(r.tmp)
	}
	if r.mounted {
		if err := unix.Unmount(r.root, 0); err != nil && first == nil {
			first = fmt.Errorf("unmounting tracefs: %v", err)
		}
	}
	return first
}

// findTracefs returns tracefs's mount point: dir if given, else the first of the usual places
// that has instances, else a fresh mount at /sys/kernel/tracing (root only; mounted reports it).
func findTracefs(dir string) (root string, mounted bool, err error) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "instances")); err != nil {
			return "", false, fmt.Errorf("%w: %s has no instances directory: %v", ErrNoTracefs, dir, err)
		}
		return dir, false, nil
	}
	for _, d := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(filepath.Join(d, "instances")); err == nil {
			return d, false, nil
		}
	}
	const d = "/sys/kernel/tracing"
	if err := unix.Mount("nodev", d, "tracefs", 0, ""); err != nil {
		return "", false, fmt.Errorf("%w: tracefs is not mounted and mounting it at %s failed: %v", ErrNoTracefs, d, err)
	}
	return d, true, nil
}

// onlineCPUs lists the CPUs of the instance's per_cpu directory.
func onlineCPUs(dir string) ([]int, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "per_cpu"))
	if err != nil {
		return nil, fmt.Errorf("tracefs: %v", err)
	}
	var cpus []int
	for _, e := range ents {
		if n, err := strconv.Atoi(strings.TrimPrefix(e.Name(), "cpu")); err == nil && strings.HasPrefix(e.Name(), "cpu") {
			cpus = append(cpus, n)
		}
	}
	sort.Ints(cpus)
	if len(cpus) == 0 {
		return nil, errors.New("tracefs: the instance has no per-CPU buffers")
	}
	return cpus, nil
}

// sweepInstances removes the instances a recording left when it was killed before Close: those
// named recordPrefix+PID whose process no longer runs.
func sweepInstances(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), recordPrefix))
		if !strings.HasPrefix(e.Name(), recordPrefix) || err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := unix.Kill(pid, 0); err == nil || err == unix.EPERM {
			continue // its process still runs
		}
		inst := filepath.Join(dir, e.Name())
		os.WriteFile(filepath.Join(inst, "tracing_on"), []byte("0"), 0o644)
		os.Remove(inst)
	}
}
