package topology_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/topology"
)

// benchMachines are uniform machines of 2, 64 and 1024 CPUs with SMT, LLCs,
// nodes and (for the larger two) packages.
var benchMachines = []struct {
	n                                int
	packages, nodes, llcs, cores, th int
}{
	{2, 1, 1, 1, 1, 2},
	{64, 2, 1, 2, 8, 2},
	{1024, 4, 2, 4, 16, 2},
}

var (
	sinkGroup *topology.Group
	sinkLevel topology.Level
	sinkInt   int
	sinkCPU   topology.CPU
	sinkBool  bool
	sinkSet   topology.CPUSet
	sinkTopo  *topology.Topology
)

// randomCPUs returns k CPU ids below n from a seeded PCG.
func randomCPUs(n, k int) []topology.CPU {
	r := rand.New(rand.NewPCG(uint64(n), 42))
	out := make([]topology.CPU, k)
	for i := range out {
		out[i] = topology.CPU(r.IntN(n))
	}
	return out
}

func BenchmarkGroupOf(b *testing.B) {
	for _, m := range benchMachines {
		tp := topology.Uniform(m.packages, m.nodes, m.llcs, m.cores, m.th)
		cpus := randomCPUs(m.n, 1024)
		b.Run(fmt.Sprintf("impl=table/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkGroup, sinkBool = tp.GroupOf(cpus[i&1023], topology.LLC)
				i++
			}
		})
		b.Run(fmt.Sprintf("impl=walk/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				var found *topology.Group
				for g := tp.Leaf(cpus[i&1023]); g != nil; g = g.Parent() {
					if g.Is(topology.LLC) {
						found = g
						break
					}
				}
				sinkGroup = found
				i++
			}
		})
	}
}

func BenchmarkSharedLevel(b *testing.B) {
	for _, m := range benchMachines {
		tp := topology.Uniform(m.packages, m.nodes, m.llcs, m.cores, m.th)
		as, bs := randomCPUs(m.n, 1024), randomCPUs(m.n+1, 1024)
		for i := range bs {
			bs[i] %= topology.CPU(m.n)
		}
		b.Run(fmt.Sprintf("impl=lca/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkLevel = tp.SharedLevel(as[i&1023], bs[i&1023])
				i++
			}
		})
		b.Run(fmt.Sprintf("impl=naive/n=%d", m.n), func(b *testing.B) {
			// Climb from a until a group holds b.
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				g := tp.Leaf(as[i&1023])
				for !g.Has(bs[i&1023]) {
					g = g.Parent()
				}
				sinkLevel = g.Level()
				i++
			}
		})
	}
}

func BenchmarkAncestors(b *testing.B) {
	for _, m := range benchMachines {
		tp := topology.Uniform(m.packages, m.nodes, m.llcs, m.cores, m.th)
		cpus := randomCPUs(m.n, 1024)
		b.Run(fmt.Sprintf("impl=parent/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				n := 0
				for g := tp.Leaf(cpus[i&1023]); g != nil; g = g.Parent() {
					n += g.Count()
				}
				sinkInt = n
				i++
			}
		})
		b.Run(fmt.Sprintf("impl=iter/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				n := 0
				for g := range tp.Ancestors(cpus[i&1023]) {
					n += g.Count()
				}
				sinkInt = n
				i++
			}
		})
	}
}

func BenchmarkDomainWalk(b *testing.B) {
	for _, m := range benchMachines {
		tp := topology.Uniform(m.packages, m.nodes, m.llcs, m.cores, m.th)
		cpus := randomCPUs(m.n, 1024)
		tp.Domain(0) // build the Linux view before timing
		b.Run(fmt.Sprintf("op=groups/impl=loop/n=%d", m.n), func(b *testing.B) {
			// for_each_domain, then every group from the local one: the
			// skeleton of load_balance's walk.
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				n := 0
				for d := tp.Domain(cpus[i&1023]); d != nil; d = d.Parent() {
					for j := range d.NumGroups() {
						n += d.Group(j).Capacity()
					}
				}
				sinkInt = n
				i++
			}
		})
		b.Run(fmt.Sprintf("op=groups/impl=iter/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				n := 0
				for d := range tp.Domains(cpus[i&1023]) {
					for g := range d.Groups() {
						n += g.Capacity()
					}
				}
				sinkInt = n
				i++
			}
		})
	}
}

// naiveSet is the baseline for CPUSet: one bool per CPU.
type naiveSet [topology.MaxCPUs]bool

func (s *naiveSet) first() (topology.CPU, bool) {
	for i, v := range s {
		if v {
			return topology.CPU(i), true
		}
	}
	return 0, false
}

func (s *naiveSet) after(c topology.CPU) (topology.CPU, bool) {
	for i := int(c) + 1; i < topology.MaxCPUs; i++ {
		if s[i] {
			return topology.CPU(i), true
		}
	}
	return 0, false
}

func (s *naiveSet) count() int {
	n := 0
	for _, v := range s {
		if v {
			n++
		}
	}
	return n
}

func BenchmarkCPUSet(b *testing.B) {
	for _, n := range []int{2, 64, 1024} {
		// A set of n/2 random CPUs among the first n, so First and After
		// search within the machine's ids.
		var s topology.CPUSet
		var ns naiveSet
		for _, c := range randomCPUs(n, max(n/2, 1)) {
			s.Add(c)
			ns[c] = true
		}
		probes := randomCPUs(n, 1024)
		b.Run(fmt.Sprintf("op=first/impl=bitmap/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkCPU, sinkBool = s.First()
			}
		})
		b.Run(fmt.Sprintf("op=first/impl=naive/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkCPU, sinkBool = ns.first()
			}
		})
		b.Run(fmt.Sprintf("op=after/impl=bitmap/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkCPU, sinkBool = s.After(probes[i&1023])
				i++
			}
		})
		b.Run(fmt.Sprintf("op=after/impl=naive/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				sinkCPU, sinkBool = ns.after(probes[i&1023])
				i++
			}
		})
		b.Run(fmt.Sprintf("op=count/impl=bitmap/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = s.Count()
			}
		})
		b.Run(fmt.Sprintf("op=count/impl=naive/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = ns.count()
			}
		})
		b.Run(fmt.Sprintf("op=iterate/impl=after/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				k := 0
				for c, ok := s.First(); ok; c, ok = s.After(c) {
					k += int(c)
				}
				sinkInt = k
			}
		})
		b.Run(fmt.Sprintf("op=iterate/impl=all/n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				k := 0
				for c := range s.All() {
					k += int(c)
				}
				sinkInt = k
			}
		})
	}
}

func BenchmarkBuild(b *testing.B) {
	for _, m := range benchMachines {
		b.Run(fmt.Sprintf("op=uniform/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTopo = topology.Uniform(m.packages, m.nodes, m.llcs, m.cores, m.th)
			}
		})
		b.Run(fmt.Sprintf("op=uniform+domains/n=%d", m.n), func(b *testing.B) {
			// The tree and the Linux view, which is built on first use.
			b.ReportAllocs()
			for b.Loop() {
				sinkTopo = topology.Uniform(m.packages, m.nodes, m.llcs, m.cores, m.th)
				sinkInt = sinkTopo.Domain(0).Weight()
			}
		})
		text := topology.Uniform(m.packages, m.nodes, m.llcs, m.cores, m.th).String()
		b.Run(fmt.Sprintf("op=parse/n=%d", m.n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkTopo, _ = topology.Parse(text)
			}
		})
	}
}
