package host_test

// The leftovers test: a runner killed with SIGKILL in the middle of a run whose peers are shell
// pipelines leaves their programs and its cgroups behind; the next run removes them all.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/bench/sim/workload"
)

// pipelineMarks are the arguments of the sleeps of the pipelines the child's peers run: two in
// the workload's group, two outside any group.
var pipelineMarks = []string{"271.81", "271.82", "271.83", "271.84"}

// pipelinesChild is the runner the leftovers test kills: a hog in a group, and two peers that
// are shell pipelines, as host -experiments runs tar | gzip.
func pipelinesChild() {
	w, err := workload.Parse("group box\nthread hog group=box\n\trun forever\nend\n")
	if err != nil {
		panic(err)
	}
	_, err = host.Run(context.Background(), w, host.Options{Limit: 60 * time.Second, Peers: []host.Peer{
		{Name: "boxed", Args: []string{"sh", "-c", fmt.Sprintf("sleep %s | sleep %s", pipelineMarks[0], pipelineMarks[1])}, Group: "box"},
		{Name: "free", Args: []string{"sh", "-c", fmt.Sprintf("sleep %s | sleep %s", pipelineMarks[2], pipelineMarks[3])}},
	}})
	fmt.Println("child:", err)
	os.Exit(3)
}

// pipelineSleeps returns the PIDs of the pipelines' sleeps that run.
func pipelineSleeps() []string {
	var out []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/cmdline")
		if err != nil {
			continue
		}
		for _, m := range pipelineMarks {
			if bytes.Equal(b, []byte("sleep\x00"+m+"\x00")) {
				out = append(out, filepath.Base(d))
			}
		}
	}
	return out
}

// TestSIGKILLLeftoversSwept kills a runner whose peers are pipelines with SIGKILL: the sleeps
// the shells forked survive it, and so do its cgroups, until the next run, which removes them.
// With SIGTERM instead, nothing survives the runner.
func TestSIGKILLLeftoversSwept(t *testing.T) {
	needHost(t, true)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			require.Empty(t, pipelineSleeps(), "sleeps of an earlier run are still there")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=pipelines")
			var out lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, startCatching(cmd))
			pid := cmd.Process.Pid
			// exited is closed when the child has ended, but it is not reaped: a zombie keeps
			// its PID, so a concurrent run's sweep (another test binary's host.Run, as in
			// go test ./...) leaves the groups and the peer record named after it alone while
			// this test looks at them. cmd.Wait reaps it just before the next run.
			exited := make(chan struct{})
			go func() {
				var info unix.Siginfo
				for unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil) == unix.EINTR {
				}
				close(exited)
			}()
			deadline := time.Now().Add(60 * time.Second) // the machine-wide host lock may be held
			for len(pipelineSleeps()) < len(pipelineMarks) || len(groupsOf(pid)) == 0 {
				select {
				case <-exited:
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
			require.NoError(t, cmd.Process.Signal(sig))
			<-exited
			// Killed outright, the runner took its shells along (their parent-death signal) but
			// not what they forked: the premise of the sweep. Looked at while the runner is a
			// zombie that no other run sweeps after.
			var left, leftGroups []string
			if sig == syscall.SIGKILL {
				left, leftGroups = pipelineSleeps(), groupsOf(pid)
			}
			cmd.Wait()
			ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
			require.Truef(t, ws.Signaled() && ws.Signal() == sig, "child ended with %v, want death by %v: %s", cmd.ProcessState, sig, out.String())
			if sig != syscall.SIGKILL {
				require.Eventually(t, func() bool { return len(pipelineSleeps()) == 0 }, 2*time.Second, 10*time.Millisecond,
					"the pipelines survived the runner's %v", sig)
				require.Empty(t, groupsOf(pid), "the run's cgroups remain")
				return
			}
			require.Len(t, left, len(pipelineMarks), "the sleeps the shells forked did not survive SIGKILL; nothing to sweep")
			require.NotEmpty(t, leftGroups, "the SIGKILLed run's cgroups are gone already")
			w, _ := workload.Parse("thread x\n\trun 1us\nend\n") // no groups, no peers: the sweep alone
			_, err := host.Run(context.Background(), w, host.Options{Limit: time.Second})
			require.NoError(t, err)
			require.Eventually(t, func() bool { return len(pipelineSleeps()) == 0 }, 2*time.Second, 10*time.Millisecond,
				"the next run did not kill the sleeps left behind: %v", pipelineSleeps())
			require.Empty(t, groupsOf(pid), "the next run did not remove the cgroups left behind")
			recs, _ := filepath.Glob(filepath.Join(os.TempDir(), fmt.Sprintf("schedkit-host-%d", os.Geteuid()), fmt.Sprintf("%d-*", pid)))
			require.Empty(t, recs, "the dead runner's peer record is still there")
		})
	}
}
