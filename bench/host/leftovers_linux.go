package host

// This file implements the sweep of what runners killed outright left behind. A runner that
// ends in any other way (its limit, its context, SIGINT, SIGTERM or SIGHUP caught) removes its
// cgroups and kills its peers' process groups itself; one killed by SIGKILL cannot. Its threads
// die with it, and so does each peer's first process (its parent-death signal), but not what that
// process forked: the tar and gzip of a peer `sh -c "tar … | gzip"` live on, and so do the run's
// cgroups. The next Run sweeps both before it starts anything:
//
//   - The cgroups named schedkit-PID-N whose PID no longer runs: the processes still in them
//     are killed (SIGKILL, every task listed in cgroup.procs, until none is left), then the
//     groups are removed, deepest first.
//   - The process groups of the dead runner's peers, recorded in a file of its own (see
//     peerRecord) while it ran: each is killed unless its number now belongs to another
//     process group, which the recorded start time of its first process tells.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// sweepLeftovers removes what runners that no longer run left behind: their peers' process
// groups and their cgroups with the processes in them.
func sweepLeftovers() {
	sweepPeerRecords()
	if ctl, err := findController(); err == nil {
		sweepStale(ctl)
	}
}

// recordDir returns the directory of the peer records of this user's runners: a directory of
// the temporary directory, created with mode 0700, owned by this user and not a symbolic link;
// or "" if it is not usable.
func recordDir() string {
	dir := filepath.Join(os.TempDir(), "schedkit-host-"+strconv.Itoa(os.Geteuid()))
	_ = os.Mkdir(dir, 0o700)
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return ""
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return ""
	}
	return dir
}

// A peerRecord is the file in which a running runner records its peers' process groups: named
// PID-START-N after the runner's PID and start time (field 22 of /proc/PID/stat, in clock ticks
// since boot) and the run's number, one line "PGID START" per peer, START being the start time
// of the group's first process. It is removed when the run ends.
type peerRecord struct {
	name string
	f    *os.File
}

var recordSeq int64

// newPeerRecord creates the record of a run, or returns nil if no record can be kept (the
// peers are then swept only by their parent-death signal and their cgroups).
func newPeerRecord() *peerRecord {
	dir := recordDir()
	start, ok := startTime(os.Getpid())
	if dir == "" || !ok {
		return nil
	}
	recordSeq++
	name := filepath.Join(dir, fmt.Sprintf("%d-%d-%d", os.Getpid(), start, recordSeq))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil
	}
	return &peerRecord{name: name, f: f}
}

// add records the process group pgid, whose first process is pgid itself.
func (p *peerRecord) add(pgid int) {
	if p == nil {
		return
	}
	if start, ok := startTime(pgid); ok {
		fmt.Fprintf(p.f, "%d %d\n", pgid, start)
	}
}

// remove deletes the record: the run has killed its peers' groups itself.
func (p *peerRecord) remove() {
	if p == nil {
		return
	}
	p.f.Close()
	os.Remove(p.name)
}

// sweepPeerRecords kills the process groups recorded by runners that no longer run, and
// removes their records.
func sweepPeerRecords() {
	dir := recordDir()
	if dir == "" {
		return
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		parts := strings.Split(e.Name(), "-")
		if len(parts) != 3 {
			continue
		}
		pid, err1 := strconv.Atoi(parts[0])
		start, err2 := strconv.ParseUint(parts[1], 10, 64)
		if err1 != nil || err2 != nil || pid <= 0 {
			continue
		}
		if s, ok := startTime(pid); ok && s == start {
			continue // the runner still runs
		}
		name := filepath.Join(dir, e.Name())
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var pgid int
			var pstart uint64
			if n, _ := fmt.Sscanf(sc.Text(), "%d %d", &pgid, &pstart); n == 2 && pgid > 1 {
				killGroup(pgid, pstart)
			}
		}
		f.Close()
		os.Remove(name)
	}
}

// killGroup kills the process group pgid if it is still the group recorded with the start time
// start of its first process: that process still runs with that start time, or it has exited
// and a process of the group started no earlier than it is left (a group's number is not given
// to a new process while the group has a member).
func killGroup(pgid int, start uint64) {
	if s, ok := startTime(pgid); ok {
		if s != start {
			return // the number is another process's now
		}
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		return
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f := statFields(string(b))
		// statFields' f[0] is field 3 (state): the process group is field 5, the start time 22.
		if len(f) < 20 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		if s, err := strconv.ParseUint(f[19], 10, 64); err == nil && s >= start {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			return
		}
	}
}

// startTime returns the start time of process pid (field 22 of /proc/PID/stat, clock ticks
// since boot).
func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	f := statFields(string(b))
	if len(f) < 20 {
		return 0, false
	}
	s, err := strconv.ParseUint(f[19], 10, 64)
	return s, err == nil
}

// statFields returns the fields of a /proc/PID/stat line after the command name, which may
// hold spaces and parentheses: field 3 (the state) onward.
func statFields(s string) []string {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

// killTasks kills every process in the cgroup dir and the groups below it, until none is left
// or wait has passed, and reports whether none is left.
func killTasks(dir string, wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	for {
		pids := groupProcs(dir)
		if len(pids) == 0 {
			return true
		}
		for _, pid := range pids {
			if pid != os.Getpid() {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// groupProcs returns the processes in the cgroup dir and the groups below it.
func groupProcs(dir string) []int {
	var out []int
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		for _, list := range []string{"cgroup.procs", "cgroup.threads", "tasks"} {
			b, _ := os.ReadFile(filepath.Join(p, list))
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					out = append(out, pid)
				}
			}
		}
		return nil
	})
	return out
}
