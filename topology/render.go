// This file implements the human renderings of a topology: an lstopo-like
// tree and the kernel's sched-domain debug listing.

package topology

import (
	"fmt"
	"strings"
)

// Tree returns an indented rendering of the group tree for people, one
// group per line with its levels, CPUs, FreeBSD share level and flags, then
// the NUMA distance table when there are several nodes and the capacities
// when they differ, for example
//
//	machine cpus=0-3 (4)
//	  core cpus=0-1 (2) CG_SHARE_L1 CG_FLAG_SMT
//	  core cpus=2-3 (2) CG_SHARE_L1 CG_FLAG_SMT
//
// The SMT level is called "core" here as in the text form.
func (t *Topology) Tree() string {
	var b strings.Builder
	for _, g := range t.all {
		b.WriteString(strings.Repeat("  ", int(g.depth)))
		names := []string{}
		for l := range Level(NumLevels) {
			if g.levels.Has(l) {
				names = append(names, textNames[l])
			}
		}
		fmt.Fprintf(&b, "%s cpus=%s (%d)", strings.Join(names, "+"), g.cpus, g.count)
		if g.share != ShareNone {
			fmt.Fprintf(&b, " %v", g.share)
		}
		if g.flags != 0 {
			fmt.Fprintf(&b, " %v", g.flags)
		}
		if g.levels.Has(Node) {
			fmt.Fprintf(&b, " node%d", t.node[g.first])
		}
		b.WriteByte('\n')
	}
	if t.nnodes > 1 {
		b.WriteString("distance")
		for j := range t.nnodes {
			fmt.Fprintf(&b, " %4s", fmt.Sprintf("n%d", j))
		}
		b.WriteByte('\n')
		for i := range t.nnodes {
			fmt.Fprintf(&b, "%8s", fmt.Sprintf("n%d", i))
			for j := range t.nnodes {
				fmt.Fprintf(&b, " %4d", t.dist[i*t.nnodes+j])
			}
			b.WriteByte('\n')
		}
	}
	if t.asym {
		b.WriteString("capacity")
		var run CPUSet
		runCap := -1
		flush := func() {
			if runCap >= 0 {
				fmt.Fprintf(&b, " %s=%d", run, runCap)
			}
		}
		for c := range t.cpus.All() {
			if int(t.cap[c]) != runCap {
				flush()
				run, runCap = CPUSet{}, int(t.cap[c])
			}
			run.Add(c)
		}
		flush()
		b.WriteByte('\n')
	}
	return b.String()
}

// DomainsText returns c's chain of scheduling domains in the format of the
// kernel's sched_domain_debug (boot parameter sched_verbose), for example
//
//	CPU0 attaching sched-domain(s):
//	 domain-0: span=0-1 level=SMT
//	  groups: 0:{ span=0 }, 1:{ span=1 }
//
// Groups are named by their first CPU, and a group whose capacity is not
// CapacityScale shows it as cap=. It panics if c is not a CPU of t.
func (t *Topology) DomainsText(c CPU) string {
	var b strings.Builder
	d := t.Domain(c)
	if d == nil {
		fmt.Fprintf(&b, "CPU%d attaching NULL sched-domain.\n", c)
		return b.String()
	}
	fmt.Fprintf(&b, "CPU%d attaching sched-domain(s):\n", c)
	for level := 0; d != nil; d, level = d.parent, level+1 {
		fmt.Fprintf(&b, "%*s domain-%d: span=%s level=%s\n", level, "", level, d.Span(), d.Name())
		fmt.Fprintf(&b, "%*s groups:", level+1, "")
		for i := range d.NumGroups() {
			g := d.Group(i)
			if i > 0 {
				b.WriteByte(',')
			}
			first, _ := g.cpus.First()
			fmt.Fprintf(&b, " %d:{ span=%s", first, g.cpus)
			if g.capacity != CapacityScale {
				fmt.Fprintf(&b, " cap=%d", g.capacity)
			}
			b.WriteString(" }")
		}
		b.WriteByte('\n')
	}
	return b.String()
}
