package host_test

// The cleanup test: a runner killed in the middle of a run leaves no thread, child process or
// control group of its own behind.

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

const childEnv = "SCHEDKIT_HOST_CLEANUP_CHILD"

// peerMark is the argument that identifies the child's peer process.
const peerMark = "314.15"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "1":
		cleanupChild()
		return
	case "ignored":
		ignoringChild()
		return
	case "pipelines":
		pipelinesChild()
		return
	}
	os.Exit(m.Run())
}

// cleanupChild is the runner the cleanup test kills: hogs in a group, a sleeper, a peer.
func cleanupChild() {
	w, err := workload.Parse("group box\nthread hog count=2 group=box\n\trun forever\nend\nthread nap\n\tsleep 60s\nend\n")
	if err != nil {
		panic(err)
	}
	_, err = host.Run(context.Background(), w, host.Options{Limit: 30 * time.Second,
		Peers: []host.Peer{{Name: "sleep", Args: []string{"sleep", peerMark}, Group: "box"}}})
	fmt.Println("child:", err)
	os.Exit(3)
}

// ignoringChild is a program that ignores SIGINT and then runs: the run must leave it ignored.
func ignoringChild() {
	signal.Ignore(syscall.SIGINT)
	fmt.Println(ignoringMark) // the test sends SIGINT only from here on
	w, err := workload.Parse("thread hog\n\trun forever\nend\n")
	if err != nil {
		panic(err)
	}
	_, err = host.Run(context.Background(), w, host.Options{Limit: 1500 * time.Millisecond})
	fmt.Println("child:", err)
	os.Exit(3)
}

// ignoringMark is the line the ignoring child prints once SIGINT is ignored.
const ignoringMark = "child: ignoring SIGINT"

// TestIgnoredSignalStaysIgnored sends SIGINT every 50 ms to a program that ignores it while it
// runs a workload: catching it would un-ignore it, and the run would end "interrupted" (or the
// re-raise would do nothing). The run must reach its limit. The signals start once the child
// says it ignores SIGINT: before that, SIGINT's default action would end it.
func TestIgnoredSignalStaysIgnored(t *testing.T) {
	needHost(t, false)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=ignored")
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-exited:
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			require.Truef(t, ws.Exited() && ws.ExitStatus() == 3, "child ended with %v: %s", cmd.ProcessState, out.String())
			require.Equal(t, ignoringMark+"\nchild: <nil>\n", out.String(), "the run did not reach its limit")
			return
		case <-tick.C:
			if strings.HasPrefix(out.String(), ignoringMark+"\n") {
				_ = cmd.Process.Signal(syscall.SIGINT)
			}
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatalf("the child did not end: %s", out.String())
		}
	}
}

// groupsOf returns the cgroup directories runs of pid created.
func groupsOf(pid int) []string {
	var out []string
	for _, pat := range []string{"/sys/fs/cgroup/schedkit-%d-*", "/sys/fs/cgroup/*/schedkit-%d-*", "/sys/fs/cgroup/*/*/schedkit-%d-*"} {
		m, _ := filepath.Glob(fmt.Sprintf(pat, pid))
		out = append(out, m...)
	}
	return out
}

// peers returns the PIDs of processes running the child's peer.
func peers() []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err == nil && bytes.Equal(b, []byte("sleep\x00"+peerMark+"\x00")) {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

func tasks(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	return len(ents)
}

// groupTasks returns the threads in the groups dirs and the groups below them.
func groupTasks(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				b, _ := os.ReadFile(filepath.Join(p, "tasks"))
				out = append(out, strings.Fields(string(b))...)
			}
			return nil
		})
	}
	return out
}

// startCatching starts cmd while this process catches the signals the test sends the child:
// execve resets a caught signal to its default action but keeps an ignored one ignored, and a
// shell starts a background job with SIGINT ignored, which the child's runner would then only
// catch while it runs and could not die by.
func startCatching(cmd *exec.Cmd) error {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(c)
	return cmd.Start()
}

func TestCleanup(t *testing.T) {
	needHost(t, true)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			require.Empty(t, peers(), "a peer of an earlier run is still there")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, startCatching(cmd))
			pid := cmd.Process.Pid
			// died is closed when the child has ended. Until cmd.Wait reaps it, the child is a
			// zombie that keeps its PID: a concurrent run's sweep (schedbench's host test in
			// go test ./...) leaves the groups named after it alone.
			died := make(chan struct{})
			go func() {
				var info unix.Siginfo
				for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
				}
				close(died)
			}()
			// Wait until the run is under way: its group holds the hogs, the peer runs.
			// Generous: the child first waits for the machine-wide host lock, which another
			// test binary (schedbench's host test in go test ./...) may hold.
			deadline := time.Now().Add(30 * time.Second)
			for {
				g := groupsOf(pid)
				if len(g) > 0 && len(peers()) > 0 {
					b, _ := os.ReadFile(filepath.Join(g[0], "box", "tasks"))
					if len(strings.Fields(string(b))) >= 3 { // two hogs and the peer
						break
					}
				}
				select {
				case <-died:
					cmd.Wait()
					t.Fatalf("the runner ended before the signal: %s", out.String())
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the run did not start: %s", out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			before := tasks(pid)
			require.NoError(t, cmd.Process.Signal(sig))
			<-died
			// A runner killed outright cannot remove its groups; the next run removes them.
			left := groupsOf(pid)
			err := cmd.Wait()
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			require.Truef(t, ws.Signaled() && ws.Signal() == sig, "child ended with %v, want death by %v: %s", err, sig, out.String())
			require.Equal(t, 0, tasks(pid), "threads of the runner remain")
			t.Logf("%d threads before the signal", before)
			// The peer dies with the run (SIGKILL: by its parent-death signal).
			require.Eventually(t, func() bool { return len(peers()) == 0 }, 2*time.Second, 10*time.Millisecond, "the peer survived")
			if sig != syscall.SIGKILL {
				require.Empty(t, left, "the run's cgroups remain")
				return
			}
			require.NotEmpty(t, left, "expected the SIGKILLed run's groups to remain until the next run")
			// A group is removable once its last task has exited, which for the peer killed by
			// its parent-death signal may be a little after its command line is gone; the sweep
			// leaves a group that still holds a task to a later run.
			require.Eventually(t, func() bool { return len(groupTasks(left)) == 0 }, 5*time.Second, 10*time.Millisecond,
				"the SIGKILLed run's groups still hold tasks")
			w, _ := workload.Parse("group g\nthread x group=g\n\trun 1us\nend\n")
			_, err = host.Run(context.Background(), w, host.Options{Limit: time.Second})
			require.NoError(t, err)
			require.Empty(t, groupsOf(pid), "the next run did not remove the groups left behind")
		})
	}
}

// lockedBuffer is a bytes.Buffer that a child's output is copied into while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
