// This file implements the ready-made machines, the same ones as the sysfs
// trees under testdata/sysfs.

package topology

// mustParse parses a text form known to be valid.
func mustParse(text string) *Topology {
	t, err := Parse(text)
	if err != nil {
		panic("topology: internal error: " + err.Error())
	}
	return t
}

// TwoCPU returns the 2-CPU virtual machine the project is developed on: one
// package and NUMA node, two cores of one thread each, no cache information
// (testdata/sysfs/vm2):
//
//	package:1 node:1 cpu:2
func TwoCPU() *Topology {
	return mustParse("package:1 node:1 cpu:2")
}

// TwoSocketSMT returns a two-socket Intel-like server: per socket one NUMA
// node and one L3 of 4 cores with 2 threads, numbered as Linux numbers them
// on x86 (the second thread of core k of 8 is k+8), with the distance 21
// typical of two-socket SLIT tables (testdata/sysfs/intel2s).
func TwoSocketSMT() *Topology {
	return mustParse("package:2 node:1 llc:1 core:4 cpu:2 cpus=0,8,1,9,2,10,3,11,4,12,5,13,6,14,7,15 distance=10,21/21,10")
}

// FourLLC returns a 24-CPU AMD-like part: one package and node, 4 L3 caches
// (core complexes) of 3 cores with 2 threads, the second thread of core k
// of 12 numbered k+12 (testdata/sysfs/amd24).
func FourLLC() *Topology {
	return mustParse("package:1 node:1 llc:4 core:3 cpu:2 cpus=0,12,1,13,2,14,3,15,4,16,5,17,6,18,7,19,8,20,9,21,10,22,11,23")
}

// FourNode returns an 8-CPU machine of 4 NUMA nodes, two per package, each
// node its own L3 of 2 single-thread cores, with non-uniform distances: 12
// to the other node of the package, 20 or 22 across (testdata/sysfs/numa4,
// which also has a memory-only node that discovery leaves out).
func FourNode() *Topology {
	return mustParse("package:2 node:2 llc:1 cpu:2 distance=10,12,20,22/12,10,22,20/20,22,10,12/22,20,12,10")
}

// BigLittle returns an 8-CPU hybrid part: two big cores with 2 threads each
// and its own L2 (capacity 1024), four little single-thread cores sharing
// one L2 cluster (capacity 600), all under one L3 (testdata/sysfs/hybrid).
func BigLittle() *Topology {
	return mustParse("package:1 node:1 llc:1 (cluster:2 core:1 cpu:2 + cluster:1 cpu:4@600)")
}
