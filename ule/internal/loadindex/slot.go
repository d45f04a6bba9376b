// This file implements Slot, one CPU's CPULoad as its owner changes it, each change recorded in
// the Index.

package loadindex

import "github.com/schedkit/schedkit/topology"

// A Slot is one CPU's CPULoad as the CPU's owner (package ule's CPUState) holds it: the CPU's
// entry of the loads an Index was made over, or a CPULoad of its own outside any machine. Its
// methods are the kernel's assignments to tdq_lowpri, TDQ_LOAD and tdq_transferable, each
// followed by the Index's record of it; they are small enough to be inlined, and call the Index
// only when it keeps what changed, so that on a machine below the index's size a change costs a
// test, not a call. The fields of the CPULoad are read directly.
//
// A Slot must not be copied once Init has run.
type Slot struct {
	*CPULoad
	own CPULoad
	cpu topology.CPU
	// ix is the Index that records the CPU (nil for a Slot of its own); levels and planes are
	// ix when it keeps the load levels and the priority planes, and nil otherwise.
	ix, levels, planes *Index
}

// Init makes s CPU c's: its entry l of the loads ix was made over, or with l and ix nil a
// CPULoad of its own.
func (s *Slot) Init(c topology.CPU, l *CPULoad, ix *Index) {
	s.cpu, s.CPULoad, s.ix = c, l, ix
	if l == nil {
		s.CPULoad = &s.own
	}
	if ix != nil && ix.Levels() {
		s.levels = ix
	}
	if ix != nil && ix.Planes() {
		s.planes = ix
	}
}

// Index returns the Index that records s, or nil for a Slot of its own.
func (s *Slot) Index() *Index { return s.ix }

// SetLowPri sets LowPri (tdq_lowpri = pri). An unchanged LowPri (sched_choose sets the priority
// tdq_setlowpri has just set after a switch) costs no call.
func (s *Slot) SetLowPri(pri uint8) {
	if s.LowPri != pri && s.planes != nil {
		s.planes.setSlotLowPri(s, pri)
	}
	s.LowPri = pri
}

// LoadUp adds one to Load (tdq_load++).
func (s *Slot) LoadUp() {
	s.Load++
	if s.levels != nil {
		s.levels.LoadUp(s.cpu)
	}
}

// LoadDown takes one from Load (tdq_load--).
func (s *Slot) LoadDown() {
	if s.levels != nil {
		s.levels.LoadDown(s.cpu)
	}
	s.Load--
}

// TransferableUp adds one to Transferable (tdq_transferable++).
func (s *Slot) TransferableUp() {
	s.Transferable++
	if s.Transferable == 1 && s.ix != nil {
		s.ix.SetXfer(s.cpu, true)
	}
}

// TransferableDown takes one from Transferable (tdq_transferable--).
func (s *Slot) TransferableDown() {
	s.Transferable--
	if s.Transferable == 0 && s.ix != nil {
		s.ix.SetXfer(s.cpu, false)
	}
}
