package cfs

import (
	"testing"
	"unsafe"

	"github.com/schedkit/schedkit/topology"
)

// TestEntitySize keeps an Entity and a Task within the allocation classes their field order was
// chosen for (a machine of 100,000 threads holds one of each per thread): 320 bytes for an
// Entity, 128 for a Task on a machine of up to 1024 CPUs.
func TestEntitySize(t *testing.T) {
	if n := unsafe.Sizeof(Entity{}); n > 320 {
		t.Errorf("an Entity is %d bytes, more than the 320-byte allocation class", n)
	}
}

// TestTaskSize: see TestEntitySize.
func TestTaskSize(t *testing.T) {
	if n := unsafe.Sizeof(Task{}); n > 128 {
		t.Errorf("a Task is %d bytes, more than the 128-byte allocation class", n)
	}
}

// TestSystemSharesAllowed checks that the tasks a System forks share its set of all CPUs when
// they may run anywhere, keep their own set otherwise, and that a change of affinity replaces
// the set rather than writing through it.
func TestSystemSharesAllowed(t *testing.T) {
	s, err := NewSystem(vparams(V65), topology.TwoSocketSMT(), 1000, &reschedEnv{})
	if err != nil {
		t.Fatal(err)
	}
	all := s.topo.CPUs()
	a := s.Fork(0, NewTask("a", Normal, 0), all, 0)
	b := s.Fork(0, NewTask("b", Normal, 0), all, 1)
	if a.allowed != b.allowed || a.allowed != &s.all {
		t.Fatalf("tasks allowed anywhere do not share the System's set")
	}
	one := topology.CPUSetOf(3)
	c := s.Fork(0, NewTask("c", Normal, 0), one, 3)
	if c.allowed == &s.all || *c.allowed != one {
		t.Fatalf("a task allowed on cpu3 has %v", *c.allowed)
	}
	s.SetAttr(0, a, Normal, 0, nil, -1, one)
	if a.Allowed() != one || b.Allowed() != all || s.all != all {
		t.Fatalf("a change of a's affinity reached b (%v) or the System (%v)", b.Allowed(), s.all)
	}
}
