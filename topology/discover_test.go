package topology_test

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/topology"
)

// fixtures pairs each sysfs tree under testdata/sysfs with the ready-made
// machine it must discover as.
var fixtures = []struct {
	dir   string
	build func() *topology.Topology
}{
	{"vm2", topology.TwoCPU},
	{"intel2s", topology.TwoSocketSMT},
	{"amd24", topology.FourLLC},
	{"numa4", topology.FourNode},
	{"hybrid", topology.BigLittle},
}

func TestDiscoverFixtures(t *testing.T) {
	all := topology.CPURange(0, topology.MaxCPUs-1)
	for _, fx := range fixtures {
		t.Run(fx.dir, func(t *testing.T) {
			tp, err := topology.DiscoverFS(os.DirFS("testdata/sysfs/"+fx.dir), all)
			require.NoError(t, err)
			checkTopology(t, tp)
			want := fx.build()
			checkTopology(t, want)
			require.Equal(t, want.String(), tp.String())
			require.Equal(t, want.Tree(), tp.Tree())
			for c := range tp.CPUs().All() {
				require.Equal(t, want.DomainsText(c), tp.DomainsText(c))
			}
		})
	}
}

func TestDiscoverAffinity(t *testing.T) {
	// A process pinned to the first thread of each core of socket 0 and
	// one CPU of socket 1 sees only those CPUs.
	fsys := os.DirFS("testdata/sysfs/intel2s")
	tp, err := topology.DiscoverFS(fsys, topology.CPUSetOf(0, 1, 2, 3, 12))
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, "package:1 node:1 llc:1 cpu:4 + package:1 node:1 llc:1 core:1 cpu:1 cpus=0-3,12 distance=10,21/21,10", tp.String())
	require.Equal(t, 21, tp.Distance(0, 12))
	_, ok := tp.GroupOf(0, topology.SMT)
	require.False(t, ok, "a core with one allowed thread has no SMT group")

	_, err = topology.DiscoverFS(fsys, topology.CPUSetOf(100))
	require.ErrorContains(t, err, "no online CPU {0-15} is in the allowed set {100}")

	// Excluding a whole node drops it and its distances.
	tp, err = topology.DiscoverFS(os.DirFS("testdata/sysfs/numa4"), topology.CPUSetOf(0, 1, 6, 7))
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, 2, tp.NumNodes())
	require.Equal(t, 22, tp.Distance(0, 7))
}

func TestDiscoverDegrades(t *testing.T) {
	all := topology.CPURange(0, topology.MaxCPUs-1)
	// No cache directories, no node directory, older file names.
	fsys := sysfsWith(map[string]*string{
		"devices/system/node/node0/cpulist":                       nil,
		"devices/system/node/node0/distance":                      nil,
		"devices/system/cpu/cpu0/cache/index3/level":              nil,
		"devices/system/cpu/cpu0/cache/index3/shared_cpu_list":    nil,
		"devices/system/cpu/cpu1/cache/index3/level":              nil,
		"devices/system/cpu/cpu1/cache/index3/shared_cpu_list":    nil,
		"devices/system/cpu/cpu2/cache/index3/level":              nil,
		"devices/system/cpu/cpu2/cache/index3/shared_cpu_list":    nil,
		"devices/system/cpu/cpu3/cache/index3/level":              nil,
		"devices/system/cpu/cpu3/cache/index3/shared_cpu_list":    nil,
		"devices/system/cpu/cpu3/topology/core_cpus_list":         nil,
		"devices/system/cpu/cpu3/topology/thread_siblings_list":   str("2-3\n"),
		"devices/system/cpu/cpu3/topology/package_cpus_list":      nil,
		"devices/system/cpu/cpu3/topology/core_siblings_list":     str("0-3\n"),
		"devices/system/cpu/cpu0/cache/index1/level":              str("1\n"),
		"devices/system/cpu/cpu0/cache/index1/shared_cpu_list":    str("0-1\n"),
		"devices/system/cpu/cpu1/cache/index2/level":              str("2\n"),
		"devices/system/cpu/cpu1/cache/index2/shared_cpu_list":    str("0-1\n"),
		"devices/system/cpu/cpu1/cache/index1/level":              str("1\n"),
		"devices/system/cpu/cpu1/cache/index1/shared_cpu_list":    str("1\n"),
		"devices/system/cpu/cpu2/topology/cluster_cpus_list":      str("2-3\n"),
		"devices/system/cpu/cpu2/cache/index2/shared_cpu_list":    str("2-3\n"),
		"devices/system/cpu/cpu2/cache/index2/level":              str("2\n"),
		"devices/system/cpu/cpu3/cache/index2/shared_cpu_list":    str("2-3\n"),
		"devices/system/cpu/cpu3/cache/index2/level":              str("2\n"),
		"devices/system/cpu/cpu1/topology/nonsense_ignored_files": str("x\n"),
	})
	tp, err := topology.DiscoverFS(fsys, all)
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, "package:1 (llc:1 core:1 cpu:2 + llc:1 cluster:1 core:1 cpu:2)", tp.String(), "the highest cache of each CPU is its core's")
	require.Equal(t, 1, tp.NumNodes())

	// A node spanning two packages (a VM with two sockets and one node)
	// leaves the package level out.
	fsys = sysfsWith(map[string]*string{
		"devices/system/cpu/cpu0/topology/package_cpus_list":   str("0-1\n"),
		"devices/system/cpu/cpu1/topology/package_cpus_list":   str("0-1\n"),
		"devices/system/cpu/cpu2/topology/package_cpus_list":   str("2-3\n"),
		"devices/system/cpu/cpu3/topology/package_cpus_list":   str("2-3\n"),
		"devices/system/cpu/cpu0/cache/index3/shared_cpu_list": str("0-1\n"),
		"devices/system/cpu/cpu1/cache/index3/shared_cpu_list": str("0-1\n"),
		"devices/system/cpu/cpu2/cache/index3/shared_cpu_list": str("2-3\n"),
		"devices/system/cpu/cpu3/cache/index3/shared_cpu_list": str("2-3\n"),
	})
	tp, err = topology.DiscoverFS(fsys, all)
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, "node:1 llc:2 core:1 cpu:2", tp.String())
	require.Empty(t, tp.Groups(topology.Package))

	// A last-level cache reported across two NUMA nodes is split at the
	// node boundary, as Linux does.
	fsys = sysfsWith(map[string]*string{
		"devices/system/node/node0/cpulist":  str("0-1\n"),
		"devices/system/node/node0/distance": str("10 11\n"),
		"devices/system/node/node1/cpulist":  str("2-3\n"),
		"devices/system/node/node1/distance": str("11 10\n"),
	})
	tp, err = topology.DiscoverFS(fsys, all)
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, "package:1 node:2 llc:1 core:1 cpu:2 distance=10,11/11,10", tp.String())
}

func TestDiscoverHost(t *testing.T) {
	tp, err := topology.Discover()
	if runtime.GOOS != "linux" {
		require.True(t, errors.Is(err, topology.ErrNotSupported), "Discover() error = %v on %s", err, runtime.GOOS)
		return
	}
	require.NoError(t, err)
	checkTopology(t, tp)
	require.Equal(t, runtime.NumCPU(), tp.NumCPUs(), "the affinity mask and runtime.NumCPU agree")
	back, err := topology.Parse(tp.String())
	require.NoError(t, err)
	require.Equal(t, tp.String(), back.String())
}
