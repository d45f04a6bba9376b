package host

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stretchr/testify/require"
)

// tlbShootdowns returns how many TLB shootdown IPIs cpu has received (the TLB row of
// /proc/interrupts, x86), and false where the row or the CPU's column is not there.
func tlbShootdowns(t *testing.T, cpu int) (int64, bool) {
	b, err := os.ReadFile("/proc/interrupts")
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	col := -1
	for i, f := range strings.Fields(lines[0]) {
		if f == "CPU"+strconv.Itoa(cpu) {
			col = i
		}
	}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) > col+1 && col >= 0 && f[0] == "TLB:" {
			n, err := strconv.ParseInt(f[col+1], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TestBesideSpinsInAnotherAddressSpace: the busy neighbour of beside is another process, so a
// copy-on-write fault on the probed CPU flushes no TLB on the busy one, as a single-threaded
// child of fork's would not. With a thread of the probing process spinning there instead,
// each fault sent the busy CPU a TLB shootdown (flush_tlb_multi) and waited for it: the
// busy CPU's count of shootdowns rose by about one a fault. Here it must rise by far fewer.
func TestBesideSpinsInAnotherAddressSpace(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the probe starts a spinning process")
	}
	cpus, err := processAffinity()
	require.NoError(t, err)
	if cpus.Count() < 2 {
		t.Skip("one CPU: no neighbour to keep busy")
	}
	probed, _ := cpus.Last()
	busy, _ := cpus.First()
	before, ok := tlbShootdowns(t, int(busy))
	if !ok {
		t.Skip("no TLB row in /proc/interrupts (not x86): shootdowns cannot be counted")
	}
	const n = 2000
	var s []int64
	s, err = (&prober{}).beside(busy, func() ([]int64, error) { return (&prober{}).probeCOWFault(probed, n) })
	require.NoError(t, err)
	require.Len(t, s, n)
	after, _ := tlbShootdowns(t, int(busy))
	require.Less(t, after-before, int64(n/4), "TLB shootdowns on the busy CPU during %d faults on CPU %d", n, probed)
}

// TestBesideSpinnerDiesWithProber: a prober killed outright (SIGKILL, as a test binary's timeout
// or a user's kill -9 ends it) leaves no spinner behind. The test runs itself as the prober:
// the child starts beside's spinner, says so, and blocks; the parent finds the spinner among
// the child's children, kills the child and waits for the spinner to go (its parent-death
// signal), dead or a zombie of whoever adopted it.
func TestBesideSpinnerDiesWithProber(t *testing.T) {
	if os.Getenv("SCHEDKIT_BESIDE_CHILD") == "1" {
		cpus, err := processAffinity()
		require.NoError(t, err)
		busy, _ := cpus.First()
		_, _ = (&prober{}).beside(busy, func() ([]int64, error) {
			fmt.Println("spinning")
			select {}
		})
		return
	}
	if testing.Short() {
		t.Skip("-short: the test starts itself and a spinning process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBesideSpinnerDiesWithProber$")
	cmd.Env = append(os.Environ(), "SCHEDKIT_BESIDE_CHILD=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "spinning\n", line)
	spinner := childOf(t, cmd.Process.Pid, "sh")
	require.NotZero(t, spinner, "no spinner among the prober's children")
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", spinner))
		if err != nil || strings.Contains(string(b), ") Z ") {
			return // gone, or dead and not yet reaped
		}
		if time.Now().After(deadline) {
			_ = unix.Kill(spinner, unix.SIGKILL)
			t.Fatalf("the spinner %d outlived its prober by 5 s: %s", spinner, b)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// childOf returns the pid of a child of parent running comm, or 0.
func childOf(t *testing.T, parent int, comm string) int {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	require.NoError(t, err)
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 || !strings.HasPrefix(s[strings.IndexByte(s, ' ')+1:], "("+comm+")") {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			pid, _ := strconv.Atoi(strings.Fields(s)[0])
			return pid
		}
	}
	return 0
}
