package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// A panic in a workload thread stops the run with an error, and the run still removes its
// groups and ends its threads and peers.
func TestPanicCleanup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the cleanup of groups needs root")
	}
	ctl, err := findController()
	if err != nil {
		t.Skipf("no cpu controller: %v", err)
	}
	// x sleeps until both hogs have started (each calls the hook before its first op), then
	// panics: on a loaded CPU a hog may first run only after x's tenth nap. The 10 s limit
	// ends the run without a panic if they never start.
	w, err := workload.Parse("group box\nthread hog count=2 group=box\n\trun forever\nend\nthread x group=box\n\trepeat 100000\n\t\tsleep 1ms\n\tend\nend\n")
	require.NoError(t, err)
	var mu sync.Mutex
	tids := map[int]bool{}
	n := 0
	var panicked time.Time
	hook := func(thread string, op *workload.Op) {
		mu.Lock()
		defer mu.Unlock()
		tids[unix.Gettid()] = true
		if thread == "x" && op.Kind == workload.Sleep {
			if n++; n >= 10 && len(tids) == 3 {
				panicked = time.Now()
				panic("injected")
			}
		}
	}
	_, err = run(context.Background(), w, Options{Limit: 10 * time.Second,
		Peers: []Peer{{Name: "sleep", Args: []string{"sleep", "271.8"}, Group: "box"}}}, hook)
	require.ErrorContains(t, err, "thread x panicked: injected")
	// From the panic, not from the call: Run first waits for the machine-wide lock, which a
	// concurrent test binary (schedbench's) may hold for seconds.
	require.Less(t, time.Since(panicked), 5*time.Second, "the run did not stop at the panic")
	left, _ := filepath.Glob(filepath.Join(ctl.dir, parentPrefix+strconv.Itoa(os.Getpid())+"-*"))
	require.Empty(t, left, "groups remain")
	require.Len(t, tids, 3)
	for tid := range tids {
		// Every workload thread ends with its goroutine, but the main thread, which the Go
		// runtime keeps: that one is back in the process's own cgroup. A thread leaves
		// /proc/self/task only once the kernel has run its exit, after its goroutine's last
		// deferred call (the one that lets Run return): on a loaded CPU, milliseconds later.
		task := "/proc/self/task/" + strconv.Itoa(tid)
		if tid == os.Getpid() {
			b, _ := os.ReadFile(task + "/cgroup")
			require.NotContains(t, string(b), parentPrefix)
			continue
		}
		require.Eventually(t, func() bool {
			_, err := os.Stat(task)
			return os.IsNotExist(err)
		}, 5*time.Second, time.Millisecond, "thread %d remains", tid)
	}
	ents, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, e := range ents {
		b, _ := os.ReadFile(e)
		require.NotEqual(t, "sleep\x00271.8\x00", string(b), "the peer survived: %s", e)
	}
}
