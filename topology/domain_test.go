package topology_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/topology"
)

// chainOf returns "NAME{span}[groups…]" for each domain of c, bottom up.
func chainOf(tp *topology.Topology, c topology.CPU) []string {
	var out []string
	for d := range tp.Domains(c) {
		var gs []string
		for g := range d.Groups() {
			gs = append(gs, "{"+g.CPUs().String()+"}")
		}
		out = append(out, d.Name()+"{"+d.Span().String()+"}"+strings.Join(gs, ""))
	}
	return out
}

// TestNUMAGroups checks the overlapping NUMA groups against the examples in
// the comments of kernel/sched/topology.c (CachyOS/linux @
// 004fbaf73cd47629db49dbfc2429ddc435de5696, same text as torvalds/linux
// since find_descended_sibling, v5.16): one CPU per node, so CPU n is node n.
func TestNUMAGroups(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		cpu  topology.CPU
		want []string
	}{
		{
			// "4 node ring": NUMA-1 of node 0 is 0-1,3 with groups {0},{1},{3};
			// NUMA-2 is 0-3 with groups {0-1,3},{1-3}.
			"ring/node0", "node:4 cpu:1 distance=10,20,30,20/20,10,20,30/30,20,10,20/20,30,20,10", 0,
			[]string{"NUMA{0-1,3}{0}{1}{3}", "NUMA{0-3}{0-1,3}{1-3}"},
		},
		{
			// Node 1: NUMA-1 0-2 {0},{1},{2}; NUMA-2 {0-2},{0,2-3}, in
			// for_each_cpu_wrap order from CPU 1.
			"ring/node1", "node:4 cpu:1 distance=10,20,30,20/20,10,20,30/30,20,10,20/20,30,20,10", 1,
			[]string{"NUMA{0-2}{1}{2}{0}", "NUMA{0-3}{0-2}{0,2-3}"},
		},
		{
			// Diameter 3 line 0-1-2-3: NUMA-2 of node 0 is 0-2 with groups
			// {0-1} and {2}: find_descended_sibling keeps node 2's group
			// inside the span (the comment shows the broken {1-3} it fixes).
			"line/node0", "node:4 cpu:1 distance=10,20,30,40/20,10,20,30/30,20,10,20/40,30,20,10", 0,
			[]string{"NUMA{0-1}{0}{1}", "NUMA{0-2}{0-1}{2}", "NUMA{0-3}{0-2}{1-3}"},
		},
		{
			// Node 1: NUMA-2 spans 0-3 with groups {0-2},{2-3}; the build
			// stops there, so node 1 has no NUMA-3 domain.
			"line/node1", "node:4 cpu:1 distance=10,20,30,40/20,10,20,30/30,20,10,20/40,30,20,10", 1,
			[]string{"NUMA{0-2}{1}{2}{0}", "NUMA{0-3}{0-2}{2-3}"},
		},
		{
			"line/node3", "node:4 cpu:1 distance=10,20,30,40/20,10,20,30/30,20,10,20/40,30,20,10", 3,
			[]string{"NUMA{2-3}{3}{2}", "NUMA{1-3}{2-3}{1}", "NUMA{0-3}{1-3}{0-2}"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tp, err := topology.Parse(tc.text)
			require.NoError(t, err)
			checkTopology(t, tp)
			require.Equal(t, tc.want, chainOf(tp, tc.cpu))
		})
	}
}

func TestDomainChains(t *testing.T) {
	for _, tc := range []struct {
		name string
		tp   *topology.Topology
		cpu  topology.CPU
		want []string
	}{
		// PKG and NODE span the same CPUs as the level below with nothing
		// new, so they degenerate; the top of a two-socket machine is NUMA.
		{"TwoSocketSMT/cpu9", topology.TwoSocketSMT(), 9, []string{
			"SMT{1,9}{9}{1}",
			"MC{0-3,8-11}{1,9}{2,10}{3,11}{0,8}",
			"NUMA{0-15}{0-3,8-11}{4-7,12-15}",
		}},
		{"FourLLC/cpu13", topology.FourLLC(), 13, []string{
			"SMT{1,13}{13}{1}",
			"MC{0-2,12-14}{1,13}{2,14}{0,12}",
			"PKG{0-23}{0-2,12-14}{3-5,15-17}{6-8,18-20}{9-11,21-23}",
		}},
		// Two nodes per package: no PKG level (x86_has_numa_in_package).
		{"FourNode/cpu2", topology.FourNode(), 2, []string{
			// Node 1 is 12 from node 0, 20 from node 3, 22 from node 2;
			// NODE spans what MC spans with no new flag, so MC stays.
			"MC{2-3}{2}{3}",
			"NUMA{0-3}{2-3}{0-1}",
			"NUMA{0-3,6-7}{0-3}{6-7}",
			"NUMA{0-7}{0-3,6-7}{0-1,4-7}",
		}},
		{"BigLittle/cpu6", topology.BigLittle(), 6, []string{
			"CLS{4-7}{6}{7}{4}{5}",
			"MC{0-7}{4-7}{0-1}{2-3}",
		}},
		{"TwoCPU/cpu1", topology.TwoCPU(), 1, []string{"PKG{0-1}{1}{0}"}},
		{"OneCPU", topology.Uniform(1, 1, 1, 1, 1), 0, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkTopology(t, tc.tp)
			require.Equal(t, tc.want, chainOf(tc.tp, tc.cpu))
		})
	}
}

// TestDomainFlags checks sd_init's flags and tunables (kernel/sched/
// topology.c at the commit above) level by level.
func TestDomainFlags(t *testing.T) {
	const base = topology.SDBalanceNewIdle | topology.SDBalanceExec | topology.SDBalanceFork | topology.SDWakeAffine
	tp := topology.TwoSocketSMT()
	d := tp.Domain(0)
	require.Equal(t, "SMT", d.Name())
	require.Equal(t, base|topology.SDPreferSibling|topology.SDShareCPUCapacity|topology.SDShareLLC, d.Flags())
	require.Equal(t, []int{110, 0, 2, 4}, []int{d.ImbalancePct(), d.CacheNiceTries(), d.MinInterval(), d.MaxInterval()})
	require.Equal(t, 0, d.Level())
	d = d.Parent()
	require.Equal(t, "MC", d.Name())
	require.Equal(t, base|topology.SDPreferSibling|topology.SDShareLLC, d.Flags())
	require.Equal(t, []int{117, 1, 8, 16, 16}, []int{d.ImbalancePct(), d.CacheNiceTries(), d.MinInterval(), d.MaxInterval(), d.BusyFactor()})
	require.Equal(t, 2, d.Level(), "sd->level counts the removed CLS level")
	d = d.Parent()
	require.Equal(t, "NUMA", d.Name())
	require.Equal(t, base|topology.SDSerialize|topology.SDOverlap|topology.SDNUMA, d.Flags())
	require.Equal(t, []int{117, 2}, []int{d.ImbalancePct(), d.CacheNiceTries()})
	require.Nil(t, d.Parent())
	require.Same(t, tp.HighestFlagDomain(0, topology.SDShareLLC), tp.Domain(0).Parent(), "sd_llc")
	require.Same(t, tp.LowestFlagDomain(0, topology.SDNUMA), d, "sd_numa")
	require.Nil(t, tp.LowestFlagDomain(0, topology.SDAsymCPUCapacity))

	// Beyond node_reclaim_distance (30) NUMA levels stop balancing on exec
	// and fork and are not wake-affine.
	far, err := topology.Parse("node:2 cpu:2 distance=10,31/31,10")
	require.NoError(t, err)
	checkTopology(t, far)
	top := far.Domain(0).Parent()
	require.Equal(t, topology.SDBalanceNewIdle|topology.SDSerialize|topology.SDOverlap|topology.SDNUMA, top.Flags())
	near, err := topology.Parse("node:2 cpu:2 distance=10,30/30,10")
	require.NoError(t, err)
	require.NotZero(t, near.Domain(0).Parent().Flags()&topology.SDWakeAffine)

	// Asymmetric capacity: the domain holding every capacity gets
	// SD_ASYM_CPUCAPACITY|_FULL and its child loses SD_PREFER_SIBLING.
	bl := topology.BigLittle()
	mc := bl.Domain(0).Parent()
	require.Equal(t, "MC", mc.Name())
	require.Equal(t, topology.SDAsymCPUCapacity|topology.SDAsymCPUCapacityFull, mc.Flags()&(topology.SDAsymCPUCapacity|topology.SDAsymCPUCapacityFull))
	cls := bl.Domain(4)
	require.Equal(t, "CLS", cls.Name())
	require.Zero(t, cls.Flags()&topology.SDPreferSibling)
	require.Zero(t, cls.Flags()&topology.SDAsymCPUCapacity, "one capacity value inside the cluster")
	require.Equal(t, 2400, mc.Group(2).Capacity(), "the four little CPUs of 600")
	require.Equal(t, 2048, mc.Group(0).Capacity(), "the local big core")
}

func TestDomainFlagsString(t *testing.T) {
	require.Equal(t, "0", topology.DomainFlags(0).String())
	require.Equal(t, "SD_SHARE_CPUCAPACITY|SD_SHARE_LLC", (topology.SDShareCPUCapacity | topology.SDShareLLC).String())
	require.Equal(t, "SD_NUMA|0x10000", (topology.SDNUMA | 1<<16).String())
}

func TestDomainGroupMisuse(t *testing.T) {
	d := topology.TwoCPU().Domain(0)
	require.PanicsWithValue(t, "topology: Domain.Group: index out of range", func() { d.Group(2) })
	require.PanicsWithValue(t, "topology: Domain.Group: index out of range", func() { d.Group(-1) })
}

func TestDomainsText(t *testing.T) {
	want := `CPU9 attaching sched-domain(s):
 domain-0: span=1,9 level=SMT
  groups: 9:{ span=9 }, 1:{ span=1 }
  domain-1: span=0-3,8-11 level=MC
   groups: 1:{ span=1,9 cap=2048 }, 2:{ span=2,10 cap=2048 }, 3:{ span=3,11 cap=2048 }, 0:{ span=0,8 cap=2048 }
   domain-2: span=0-15 level=NUMA
    groups: 0:{ span=0-3,8-11 cap=8192 }, 4:{ span=4-7,12-15 cap=8192 }
`
	require.Equal(t, want, topology.TwoSocketSMT().DomainsText(9))
	require.Equal(t, "CPU0 attaching NULL sched-domain.\n", topology.Uniform(1, 1, 1, 1, 1).DomainsText(0))
}

// TestBuiltDomains checks the chain as built against the chain after degenerate removal
// (cpu_attach_domain): on TwoSocketSMT every level is built (the cluster level of 2 CPUs, the
// package and node levels of the same 8 CPUs as the LLC), and the cluster, package and node
// levels degenerate, so they are built but not walked.
func TestBuiltDomains(t *testing.T) {
	top := topology.TwoSocketSMT()
	names := func(seq func(func(*topology.Domain) bool)) string {
		var s []string
		for d := range seq {
			s = append(s, fmt.Sprintf("%s%d", d.Name(), d.Weight()))
		}
		return strings.Join(s, " ")
	}
	if got, want := names(top.BuiltDomains(0)), "SMT2 CLS2 MC8 PKG8 NODE8 NUMA16"; got != want {
		t.Errorf("BuiltDomains(0) = %s, want %s", got, want)
	}
	if got, want := names(top.Domains(0)), "SMT2 MC8 NUMA16"; got != want {
		t.Errorf("Domains(0) = %s, want %s", got, want)
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("BuiltDomains(99) did not panic")
		}
	}()
	for range top.BuiltDomains(99) {
	}
}
