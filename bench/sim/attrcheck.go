package sim

// This file implements the machine's side of AttrChecker: asking the policy, before a run,
// about every attribute set the workload's threads can have.

import (
	"fmt"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
)

// checkAttrs asks an AttrChecker policy about the attributes of every declaration and every
// attribute change of its script, applied in the order the script makes them (each loop body
// once), and returns the first refusal, naming the thread and the op.
func (m *Machine) checkAttrs(w *workload.Workload) error {
	ac, ok := m.pol.(AttrChecker)
	if !ok {
		return nil
	}
	for _, p := range m.progs {
		a := p.attr
		if m.cfg.FlattenGroups {
			a.Group = sched.RootGroup
		}
		if err := ac.CheckAttr(a); err != nil {
			return fmt.Errorf("sim: %s: thread %q: %w", m.pol.Name(), p.name, err)
		}
		for i := range p.attrs {
			op := &p.attrs[i]
			op.apply(&a)
			if m.cfg.FlattenGroups {
				a.Group = sched.RootGroup
			}
			if err := ac.CheckAttr(a); err != nil {
				return fmt.Errorf("sim: %s: thread %q, %s: %w", m.pol.Name(), p.name, op, err)
			}
		}
	}
	return nil
}

// String describes the change as the text form writes it, such as "class fifo 50".
func (a *attrOp) String() string {
	switch a.kind {
	case workload.Nice:
		return fmt.Sprintf("nice %d", a.nice)
	case workload.SetClass:
		if a.class.RealTime() {
			if a.rtscale != sched.RTLinux {
				return fmt.Sprintf("class %s %s:%d", a.class, a.rtscale, a.rtprio)
			}
			return fmt.Sprintf("class %s %d", a.class, a.rtprio)
		}
		return "class " + a.class.String()
	case workload.SetCPUs:
		return "cpus " + a.cpus.String()
	}
	return "group change"
}
