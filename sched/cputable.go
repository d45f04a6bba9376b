package sched

// This file implements CPUTable, the check every policy makes that a CPU it is told about is
// one of its machine's.

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
)

// A CPUTable records which CPU ids are CPUs of a machine, so that a policy can check every
// CPU a machine names in O(1) and panic with the standard message when it is not one:
//
//	bsd4: Pick on cpu7, which is not in the machine
//	bsd4: Pick before Start
//
// The zero value holds no CPU (a policy not yet started). A CPUTable is read-only once made.
type CPUTable struct {
	in []bool // by CPU id
}

// NewCPUTable returns the table of the CPUs of t.
func NewCPUTable(t *topology.Topology) CPUTable {
	in := make([]bool, t.NumIDs())
	all := t.CPUs()
	for c := range all.All() {
		in[c] = true
	}
	return CPUTable{in: in}
}

// Has reports whether cpu is a CPU of the machine. The complexity is O(1).
func (ct *CPUTable) Has(cpu topology.CPU) bool {
	return uint(cpu) < uint(len(ct.in)) && ct.in[cpu]
}

// Check panics unless cpu is a CPU of the machine: with "pkg: op on cpu7, which is not in the
// machine", or "pkg: op before Start" when the table is empty. The test inlines into its
// caller; the panic does not.
func (ct *CPUTable) Check(pkg, op string, cpu topology.CPU) {
	if uint(cpu) >= uint(len(ct.in)) || !ct.in[cpu] {
		ct.bad(pkg, op, cpu)
	}
}

//go:noinline
func (ct *CPUTable) bad(pkg, op string, cpu topology.CPU) {
	if len(ct.in) == 0 {
		panic(fmt.Sprintf("%s: %s before Start", pkg, op))
	}
	panic(fmt.Sprintf("%s: %s on %v, which is not in the machine", pkg, op, cpu))
}
