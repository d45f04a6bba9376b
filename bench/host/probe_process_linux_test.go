package host

import (
	"os"
	"strconv"
	"strings"
	"testing"

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
