package host_test

// The cleanup test: a runner killed in the middle of a run leaves no thread, child process or
// control group of its own behind.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

const childEnv = "SCHEDKIT_HOST_CLEANUP_CHILD"

// peerMark is the argument that identifies the child's peer process.
const peerMark = "314.15"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		cleanupChild()
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

func TestCleanup(t *testing.T) {
	needHost(t, true)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			require.Empty(t, peers(), "a peer of an earlier run is still there")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			pid := cmd.Process.Pid
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			// Wait until the run is under way: its group holds the hogs, the peer runs.
			deadline := time.Now().Add(10 * time.Second)
			for {
				g := groupsOf(pid)
				if len(g) > 0 && len(peers()) > 0 {
					b, _ := os.ReadFile(filepath.Join(g[0], "box", "tasks"))
					if len(strings.Fields(string(b))) >= 3 { // two hogs and the peer
						break
					}
				}
				select {
				case <-exited:
					t.Fatalf("the runner ended before the signal: %s", out.String())
				default:
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					<-exited
					t.Fatalf("the run did not start: %s", out.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
			before := tasks(pid)
			require.NoError(t, cmd.Process.Signal(sig))
			err := <-exited
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			require.Truef(t, ws.Signaled() && ws.Signal() == sig, "child ended with %v, want death by %v: %s", err, sig, out.String())
			require.Equal(t, 0, tasks(pid), "threads of the runner remain")
			t.Logf("%d threads before the signal", before)
			// The peer dies with the run (SIGKILL: by its parent-death signal).
			require.Eventually(t, func() bool { return len(peers()) == 0 }, 2*time.Second, 10*time.Millisecond, "the peer survived")
			if sig != syscall.SIGKILL {
				require.Empty(t, groupsOf(pid), "the run's cgroups remain")
				return
			}
			// A runner killed outright cannot remove its groups; the next run removes them.
			left := groupsOf(pid)
			require.NotEmpty(t, left, "expected the SIGKILLed run's groups to remain until the next run")
			w, _ := workload.Parse("group g\nthread x group=g\n\trun 1us\nend\n")
			_, err = host.Run(context.Background(), w, host.Options{Limit: time.Second})
			require.NoError(t, err)
			require.Empty(t, groupsOf(pid), "the next run did not remove the groups left behind")
		})
	}
}
