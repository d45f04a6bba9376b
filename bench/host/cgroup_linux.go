package host

// This file implements the run's control groups: a private parent under the cpu controller
// (cgroup v1 or v2), one child per workload group with its weight and idle flag, threads moved
// in, and everything removed afterwards.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// parentPrefix starts the name of every parent group a run creates: schedkit-PID-N.
const parentPrefix = "schedkit-"

// A controller is where the cpu controller is mounted and where this process sits in it.
type controller struct {
	v2  bool
	dir string // the directory of this process's own cgroup under the controller
}

// findController locates the cpu controller from /proc/self/mountinfo and /proc/self/cgroup.
func findController() (controller, error) {
	mi, err := readFile("/proc/self/mountinfo")
	if err != nil {
		return controller{}, err
	}
	cg, err := readFile("/proc/self/cgroup")
	if err != nil {
		return controller{}, err
	}
	var v2mount, v2root string
	for _, l := range strings.Split(mi, "\n") {
		pre, post, ok := strings.Cut(l, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		root, mount := f[3], f[4]
		switch g[0] {
		case "cgroup":
			for _, o := range strings.Split(g[2], ",") {
				if o == "cpu" {
					if p, ok := ownCgroup(cg, "cpu", false); ok {
						return controller{dir: filepath.Join(mount, relTo(p, root))}, nil
					}
				}
			}
		case "cgroup2":
			if v2mount == "" {
				v2mount, v2root = mount, root
			}
		}
	}
	if v2mount != "" {
		p, ok := ownCgroup(cg, "", true)
		if ok {
			dir := filepath.Join(v2mount, relTo(p, v2root))
			sub, err := readFile(filepath.Join(dir, "cgroup.subtree_control"))
			if err == nil && hasWord(sub, "cpu") {
				return controller{v2: true, dir: dir}, nil
			}
			return controller{}, fmt.Errorf("cgroup v2 at %s does not delegate the cpu controller to %s (cgroup.subtree_control lacks cpu)", v2mount, dir)
		}
	}
	return controller{}, errors.New("no cpu cgroup controller is mounted")
}

// ownCgroup returns this process's path in the hierarchy of controller name (v1) or in the
// unified hierarchy (v2), from /proc/self/cgroup's "id:controllers:path" lines.
func ownCgroup(text, name string, v2 bool) (string, bool) {
	for _, l := range strings.Split(text, "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if v2 && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		if !v2 && hasWord(strings.ReplaceAll(parts[1], ",", " "), name) {
			return parts[2], true
		}
	}
	return "", false
}

func relTo(p, root string) string {
	if root == "/" {
		return p
	}
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// cgroups are a run's groups: the parent and its children.
type cgroups struct {
	ctl    controller
	parent string
	dirs   []string          // created, parents before children
	byName map[string]string // workload group name → directory
	moved  bool              // v2: the process was moved into the parent
}

// sweepStale removes the parents that runs of processes no longer alive left behind (a runner
// killed with SIGKILL cannot clean up), and only those: directories named schedkit-PID-N whose
// PID does not exist. The processes still in them (what a peer forked) are killed first, then
// the groups are removed, deepest first; a group whose tasks do not die within a second is left
// to a later run.
func sweepStale(ctl controller) {
	ents, err := os.ReadDir(ctl.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		pid, ok := parentPID(e.Name())
		if !e.IsDir() || !ok || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
			continue
		}
		dir := filepath.Join(ctl.dir, e.Name())
		if killTasks(dir, time.Second) {
			removeTree(dir, time.Second)
		}
	}
}

// parentPID returns the PID in a parent's name schedkit-PID-N.
func parentPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, parentPrefix)
	if !ok {
		return 0, false
	}
	p, n, ok := strings.Cut(rest, "-")
	pid, err1 := strconv.Atoi(p)
	_, err2 := strconv.Atoi(n)
	return pid, ok && err1 == nil && err2 == nil && pid > 0
}

// removeTree removes dir and the directories below it, deepest first (rmdir only: a cgroup's
// files go with it), retrying while a group is busy with threads that are still exiting, up to
// wait.
func removeTree(dir string, wait time.Duration) error {
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name()), wait); err != nil {
				return err
			}
		}
	}
	deadline := time.Now().Add(wait)
	for {
		err := unix.Rmdir(dir)
		if err == nil || err == unix.ENOENT {
			return nil
		}
		if err != unix.EBUSY || time.Now().After(deadline) {
			return fmt.Errorf("host: rmdir %s: %w", dir, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var parentSeq atomic.Int64

// newCgroups creates the parent and one child per group of w (nested as declared), with
// cpu.shares (v1: weight × 1024 / 100, the kernel's sched_weight_from_cgroup the other way) or
// cpu.weight (v2), and cpu.idle. On error it removes what it created.
func newCgroups(ctl controller, groups []workload.Group, parentWeight uint64) (*cgroups, error) {
	c := &cgroups{ctl: ctl, byName: map[string]string{}}
	c.parent = filepath.Join(ctl.dir, fmt.Sprintf("%s%d-%d", parentPrefix, os.Getpid(), parentSeq.Add(1)))
	if err := c.mkdir(c.parent); err != nil {
		return nil, err
	}
	fail := func(err error) (*cgroups, error) {
		c.remove()
		return nil, err
	}
	if ctl.v2 {
		if err := write(filepath.Join(c.parent, "cgroup.subtree_control"), "+cpu"); err != nil {
			return fail(err)
		}
	}
	if parentWeight != 0 {
		if err := c.setWeight(c.parent, parentWeight); err != nil {
			return fail(err)
		}
	}
	for _, g := range groups {
		base := c.parent
		if g.Parent != "" {
			base = c.byName[g.Parent]
		}
		dir := filepath.Join(base, g.Name)
		if err := c.mkdir(dir); err != nil {
			return fail(err)
		}
		c.byName[g.Name] = dir
		if ctl.v2 {
			if err := write(filepath.Join(dir, "cgroup.type"), "threaded"); err != nil {
				return fail(err)
			}
			if err := write(filepath.Join(dir, "cgroup.subtree_control"), "+cpu"); err != nil && hasChildren(groups, g.Name) {
				return fail(err)
			}
		}
		weight := g.Weight
		if weight == 0 {
			weight = 100
		}
		if err := c.setWeight(dir, weight); err != nil {
			return fail(err)
		}
		if g.Idle {
			if err := write(filepath.Join(dir, "cpu.idle"), "1"); err != nil {
				return fail(err)
			}
		}
	}
	if ctl.v2 && len(groups) > 0 {
		// Threads of a process can sit in threaded children only of the group the process is in.
		if err := write(filepath.Join(c.parent, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
			return fail(err)
		}
		c.moved = true
	}
	return c, nil
}

// setWeight sets a group's cpu.weight (v2) or cpu.shares (v1).
func (c *cgroups) setWeight(dir string, weight uint64) error {
	if c.ctl.v2 {
		return write(filepath.Join(dir, "cpu.weight"), strconv.FormatUint(weight, 10))
	}
	return write(filepath.Join(dir, "cpu.shares"), strconv.FormatUint(max(2, (weight*1024+50)/100), 10))
}

func hasChildren(groups []workload.Group, name string) bool {
	for _, g := range groups {
		if g.Parent == name {
			return true
		}
	}
	return false
}

func (c *cgroups) mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("host: create cgroup: %w", err)
	}
	c.dirs = append(c.dirs, dir)
	return nil
}

// move puts thread tid into the named group; "" is the parent, the workload's root group, so
// that threads outside the workload's groups compete with those groups as the simulator's root
// group's threads do.
func (c *cgroups) move(tid int, group string) error {
	dir, ok := c.byName[group]
	if group == "" {
		dir, ok = c.parent, true
	}
	if !ok {
		panic("host: move to unknown group " + group)
	}
	file := "tasks"
	if c.ctl.v2 {
		file = "cgroup.threads"
	}
	return write(filepath.Join(dir, file), strconv.Itoa(tid))
}

// moveBack puts thread tid back where the run found it: the process's own cgroup (v1), or
// the parent, which holds the process during the run (v2).
func (c *cgroups) moveBack(tid int) error {
	if c.ctl.v2 {
		return write(filepath.Join(c.parent, "cgroup.threads"), strconv.Itoa(tid))
	}
	return write(filepath.Join(c.ctl.dir, "tasks"), strconv.Itoa(tid))
}

// procsFile returns the file a child process's PID is written to to put it into the named group.
func (c *cgroups) procsFile(group string) string {
	if group == "" {
		return filepath.Join(c.parent, "cgroup.procs")
	}
	return filepath.Join(c.byName[group], "cgroup.procs")
}

// remove removes every group it created, deepest first, after moving the process back (v2).
func (c *cgroups) remove() error {
	if c == nil {
		return nil
	}
	var first error
	if c.moved {
		if err := write(filepath.Join(c.ctl.dir, "cgroup.procs"), strconv.Itoa(os.Getpid())); err != nil {
			first = err
		}
		c.moved = false
	}
	for i := len(c.dirs) - 1; i >= 0; i-- {
		if err := removeTree(c.dirs[i], 2*time.Second); err != nil && first == nil {
			first = err
		}
	}
	c.dirs = nil
	return first
}

// write writes s to a cgroup file.
func write(path, s string) error {
	if err := os.WriteFile(path, []byte(s), 0); err != nil {
		return fmt.Errorf("host: write %q to %s: %w", s, path, err)
	}
	return nil
}
