package topology_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/schedkit/schedkit/topology"
)

func Example() {
	// Two sockets, each one NUMA node with one L3 of 4 cores of 2 threads.
	t := topology.Uniform(2, 1, 1, 4, 2)
	fmt.Println(t)
	fmt.Println(t.SharedLevel(0, 1), t.SharedLevel(0, 2), t.SharedLevel(0, 8))
	fmt.Println(t.Siblings(5), t.Distance(0, 8))
	// Output:
	// package:2 node:1 llc:1 core:4 cpu:2
	// smt llc machine
	// 4-5 20
}

func ExampleUniform() {
	t := topology.Uniform(1, 1, 4, 3, 2) // 4 LLCs of 3 cores of 2 threads
	fmt.Println(t.NumCPUs(), len(t.Groups(topology.LLC)), len(t.Groups(topology.SMT)))
	// Output: 24 4 12
}

func ExampleNew() {
	// A hybrid part: two big cores with SMT and four little cores sharing
	// an L2 cluster, all under one L3.
	t, err := topology.New(topology.Spec{Items: []topology.Item{
		{Level: topology.LLC, Count: 1, Items: []topology.Item{
			{Level: topology.SMT, Count: 2, Items: []topology.Item{{CPU: true, Count: 2}}},
			{Level: topology.Cluster, Count: 1, Items: []topology.Item{{CPU: true, Count: 4, Capacity: 512}}},
		}},
	}})
	fmt.Println(t, err)
	_, err = topology.New(topology.Spec{Items: []topology.Item{{CPU: true, Count: 0}}})
	fmt.Println(err)
	// Output:
	// llc:1 (core:2 cpu:2 + cluster:1 cpu:4@512) <nil>
	// topology: items[0]: count 0, want at least 1
}

func ExampleParse() {
	t, err := topology.Parse("node:2 llc:2 core:2 cpu:2 distance=10,16/16,10")
	fmt.Println(t.NumCPUs(), t.NumNodes(), t.Distance(0, 15), err)
	_, err = topology.Parse("llc:2 package:2 cpu:2")
	fmt.Println(err)
	_, err = topology.Parse("core:4 cpu:1")
	fmt.Println(err)
	// Output:
	// 16 2 16 <nil>
	// topology: parse "llc:2 package:2 cpu:2": column 7: package group inside a llc group, want a lower level
	// topology: parse "core:4 cpu:1": column 2: not in canonical form; this machine is written "cpu:4"
}

func ExampleTopology_Tree() {
	fmt.Print(topology.BigLittle().Tree())
	// Output:
	// llc+node+package+machine cpus=0-7 (8) CG_SHARE_L3 CG_FLAG_NODE node0
	//   core+cluster cpus=0-1 (2) CG_SHARE_L2 CG_FLAG_SMT
	//   core+cluster cpus=2-3 (2) CG_SHARE_L2 CG_FLAG_SMT
	//   cluster cpus=4-7 (4) CG_SHARE_L2
	// capacity 0-3=1024 4-7=600
}

func ExampleTopology_GroupOf() {
	t := topology.TwoSocketSMT()
	g, ok := t.GroupOf(9, topology.LLC)
	fmt.Println(g.CPUs(), g.Share(), ok)
	_, ok = t.GroupOf(9, topology.Cluster)
	fmt.Println(ok)
	// Output:
	// 0-3,8-11 CG_SHARE_L3 true
	// false
}

func ExampleTopology_Ancestors() {
	// ULE's pickcpu climbs from a CPU's leaf group towards the root.
	for g := range topology.FourLLC().Ancestors(13) {
		fmt.Println(g.Levels(), g.CPUs())
	}
	// Output:
	// smt 1,13
	// llc 0-2,12-14
	// node+package+machine 0-23
}

func ExampleGroup_Children() {
	// ULE's searches visit children from the last to the first, and a
	// leaf's CPUs from the highest id down.
	root := topology.Uniform(1, 1, 2, 2, 1).Root()
	kids := root.Children()
	for i := len(kids) - 1; i >= 0; i-- {
		for c := range kids[i].CPUs().Backward() {
			fmt.Print(c, " ")
		}
	}
	fmt.Println()
	// Output: cpu3 cpu2 cpu1 cpu0
}

func ExampleTopology_SharedLevel() {
	t := topology.FourNode()
	fmt.Println(t.SharedLevel(0, 1), t.SharedLevel(0, 2), t.SharedLevel(0, 4))
	fmt.Println(t.Distance(0, 2), t.Distance(0, 4), t.Distance(0, 6))
	// Output:
	// llc package machine
	// 12 20 22
}

func ExampleTopology_Capacity() {
	t := topology.BigLittle()
	fmt.Println(t.Capacity(0), t.Capacity(7), t.Asymmetric())
	// Output: 1024 600 true
}

func ExampleTopology_Domain() {
	// The Linux view: CPU 9's chain of scheduling domains.
	t := topology.TwoSocketSMT()
	for d := range t.Domains(9) {
		fmt.Println(d.Name(), d.Span(), d.NumGroups(), d.ImbalancePct())
	}
	// Output:
	// SMT 1,9 2 110
	// MC 0-3,8-11 4 117
	// NUMA 0-15 2 117
}

func ExampleTopology_BuiltDomains() {
	// CPU 9's chain as build_sched_domains made it, before cpu_attach_domain removed the
	// levels that add nothing (compare ExampleTopology_Domain).
	t := topology.TwoSocketSMT()
	for d := range t.BuiltDomains(9) {
		fmt.Println(d.Name(), d.Span())
	}
	// Output:
	// SMT 1,9
	// CLS 1,9
	// MC 0-3,8-11
	// PKG 0-3,8-11
	// NODE 0-3,8-11
	// NUMA 0-15
}

func ExampleTopology_DomainsText() {
	fmt.Print(topology.FourLLC().DomainsText(0))
	// Output:
	// CPU0 attaching sched-domain(s):
	//  domain-0: span=0,12 level=SMT
	//   groups: 0:{ span=0 }, 12:{ span=12 }
	//   domain-1: span=0-2,12-14 level=MC
	//    groups: 0:{ span=0,12 cap=2048 }, 1:{ span=1,13 cap=2048 }, 2:{ span=2,14 cap=2048 }
	//    domain-2: span=0-23 level=PKG
	//     groups: 0:{ span=0-2,12-14 cap=6144 }, 3:{ span=3-5,15-17 cap=6144 }, 6:{ span=6-8,18-20 cap=6144 }, 9:{ span=9-11,21-23 cap=6144 }
}

func ExampleDiscoverFS() {
	t, err := topology.DiscoverFS(os.DirFS("testdata/sysfs/amd24"), topology.CPURange(0, topology.MaxCPUs-1))
	fmt.Println(t, err)
	// Only the CPUs of the affinity mask are kept.
	t, err = topology.DiscoverFS(os.DirFS("testdata/sysfs/amd24"), topology.CPURange(0, 5))
	fmt.Println(t, err)
	// Output:
	// package:1 node:1 llc:4 core:3 cpu:2 cpus=0,12,1,13,2,14,3,15,4,16,5,17,6,18,7,19,8,20,9,21,10,22,11,23 <nil>
	// package:1 node:1 llc:2 cpu:3 <nil>
}

func ExampleDiscover() {
	t, err := topology.Discover()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.NumCPUs() > 0)
	// Output: true
}

func ExampleTopology_MarshalJSON() {
	b, _ := json.Marshal(topology.Uniform(1, 1, 1, 2, 2))
	fmt.Println(string(b))
	var t topology.Topology
	err := json.Unmarshal([]byte(`{"items":[{"level":"node","count":2,"items":[{"cpus":2}]}],"distance":[[10,21],[21,10]]}`), &t)
	fmt.Println(&t, err)
	// Output:
	// {"items":[{"level":"package","count":1,"items":[{"level":"node","count":1,"items":[{"level":"llc","count":1,"items":[{"level":"smt","count":2,"items":[{"cpus":2}]}]}]}]}]}
	// node:2 cpu:2 distance=10,21/21,10 <nil>
}

func ExampleTopology_UnmarshalJSON() {
	// JSON is read strictly: a misspelt key is an error naming its line and
	// column, not a field silently left at its default.
	data := []byte(`{
  "items": [{"level": "node", "count": 2, "items": [{"cpus": 2}]}],
  "distances": [[10, 40], [40, 10]]
}`)
	var t topology.Topology
	fmt.Println(t.UnmarshalJSON(data))
	// Output:
	// topology: json: line 3, column 3: unknown key "distances" in the spec, want "items", "ids", "distance" or "offline"
}

func ExampleLevel() {
	for l := range topology.Level(topology.NumLevels) {
		fmt.Print(l, " ")
	}
	fmt.Println()
	// Output: smt cluster llc node package machine
}

func ExampleTwoSocketSMT() {
	// The ready-made machines are the sysfs fixtures under testdata/sysfs.
	for _, t := range []*topology.Topology{topology.TwoCPU(), topology.TwoSocketSMT(), topology.FourLLC(), topology.FourNode(), topology.BigLittle()} {
		fmt.Println(t.NumCPUs(), t.NumNodes(), len(t.Groups(topology.LLC)), t.Depth())
	}
	// Output:
	// 2 1 0 0
	// 16 2 2 2
	// 24 1 4 2
	// 8 4 4 2
	// 8 1 1 1
}

func ExampleDomain_Group() {
	// load_balance compares the groups of a domain, starting at the local one.
	d := topology.BigLittle().Domain(0).Parent()
	for i := range d.NumGroups() {
		g := d.Group(i)
		fmt.Println(g.CPUs(), g.Weight(), g.Capacity())
	}
	fmt.Println(d.Flags()&(topology.SDAsymCPUCapacity|topology.SDShareLLC) != 0)
	// Output:
	// 0-1 2 2048
	// 2-3 2 2048
	// 4-7 4 2400
	// true
}

func ExampleTopology_HighestFlagDomain() {
	t := topology.TwoSocketSMT()
	llc := t.HighestFlagDomain(3, topology.SDShareLLC) // sd_llc
	numa := t.LowestFlagDomain(3, topology.SDNUMA)     // sd_numa
	fmt.Println(llc.Name(), llc.Span(), numa.Name(), numa.Span())
	// Output: MC 0-3,8-11 NUMA 0-15
}

func ExampleTopology_Spec() {
	s := topology.BigLittle().Spec()
	fmt.Println(len(s.Items), s.Items[0].Level, s)
	// Output: 1 package package:1 node:1 llc:1 (cluster:2 core:1 cpu:2 + cluster:1 cpu:4@600)
}

func ExampleParseSpec() {
	s, err := topology.ParseSpec("core:4 cpu:2 offline=3")
	fmt.Println(s.Offline, err)
	t, err := topology.New(s)
	fmt.Println(t, err)
	// Output:
	// 3 <nil>
	// core:1 cpu:2 + core:1 cpu:1 + core:2 cpu:2 cpus=0-2,4-7 <nil>
}

func ExampleLevelSet() {
	g := topology.FourNode().Leaf(0)
	lo, _ := g.Levels().Lowest()
	hi, _ := g.Levels().Highest()
	fmt.Println(g.Levels(), lo, hi, g.Is(topology.Node), g.Share(), g.Flags())
	// Output: llc+node llc node true CG_SHARE_L3 CG_FLAG_NODE
}
