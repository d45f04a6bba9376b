package workload

// This file implements Format, the writer of the text form.

import (
	"strings"

	"github.com/schedkit/schedkit/sched"
)

// Format returns the text form of w, which [Parse] reads back into an equal workload: groups,
// then pipes, then threads and templates in declaration order, arguments in a fixed order,
// bodies indented by a tab per level. Format does not validate w; a workload that does not
// validate may not read back.
func Format(w *Workload) string {
	var b strings.Builder
	for i := range w.Groups {
		g := &w.Groups[i]
		b.WriteString("group " + g.Name)
		if g.Parent != "" {
			b.WriteString(" parent=" + g.Parent)
		}
		if g.Weight != 0 {
			b.WriteString(" weight=" + utoa(g.Weight))
		}
		if g.Idle {
			b.WriteString(" idle")
		}
		b.WriteByte('\n')
	}
	for i := range w.Pipes {
		p := &w.Pipes[i]
		b.WriteString("pipe " + p.Name)
		if p.Cap != 0 {
			b.WriteString(" cap=" + itoa(p.Cap))
		}
		if p.Room != 0 {
			b.WriteString(" room=" + itoa(p.Room))
		}
		b.WriteByte('\n')
	}
	for i := range w.Threads {
		t := &w.Threads[i]
		if i > 0 || len(w.Groups)+len(w.Pipes) > 0 {
			b.WriteByte('\n')
		}
		if t.Template {
			b.WriteString("template " + t.Name)
		} else {
			b.WriteString("thread " + t.Name)
		}
		if t.Count != 0 {
			b.WriteString(" count=" + itoa(t.Count))
		}
		if t.Start != 0 {
			b.WriteString(" start=" + t.Start.String())
		}
		if t.Class != 0 {
			b.WriteString(" class=" + t.Class.String())
		}
		if t.Nice != 0 {
			b.WriteString(" nice=" + itoa(t.Nice))
		}
		if t.RTPrio != 0 || t.RTScale != sched.RTLinux {
			b.WriteString(" rtprio=" + rtprioString(t.RTPrio, t.RTScale))
		}
		if !t.CPUs.IsEmpty() {
			b.WriteString(" cpus=" + t.CPUs.String())
		}
		if t.Group != "" {
			b.WriteString(" group=" + t.Group)
		}
		if t.Slice != 0 {
			b.WriteString(" slice=" + t.Slice.String())
		}
		if t.Slack != 0 {
			b.WriteString(" slack=" + t.Slack.String())
		}
		if t.Process != "" {
			b.WriteString(" process=" + t.Process)
		}
		b.WriteByte('\n')
		formatOps(&b, t.Ops, 1)
		b.WriteString("end\n")
	}
	return b.String()
}

func formatOps(b *strings.Builder, ops []Op, depth int) {
	for i := range ops {
		op := &ops[i]
		b.WriteString(strings.Repeat("\t", depth))
		b.WriteString(op.Kind.String())
		switch op.Kind {
		case Run, Sleep, Spin:
			b.WriteString(" " + op.Time.String())
		case Send, Recv, Fork, Until:
			b.WriteString(" " + op.Name)
			if op.N != 0 {
				b.WriteString(" " + itoa(op.N))
			}
		case Poll:
			b.WriteString(" " + op.Name + " " + op.Time.String())
			if op.N != 0 {
				b.WriteString(" " + itoa(op.N))
			}
		case Repeat, Nice:
			b.WriteString(" " + itoa(op.N))
		case Every:
			b.WriteString(" " + op.Time.A.String())
			if op.N != 0 {
				b.WriteString(" " + itoa(op.N))
			}
			if op.Phase != 0 || op.PhaseMode != PhaseAbsolute {
				b.WriteString(" phase=" + phaseString(op.Phase, op.PhaseMode))
			}
		case SetClass:
			b.WriteString(" " + op.Class.String())
			if op.N != 0 || op.RTScale != sched.RTLinux {
				b.WriteString(" " + rtprioString(op.N, op.RTScale))
			}
		case SetCPUs:
			b.WriteString(" " + op.CPUs.String())
		case SetGroup:
			b.WriteString(" " + op.Name)
		}
		b.WriteByte('\n')
		if op.Kind.block() {
			formatOps(b, op.Body, depth+1)
			b.WriteString(strings.Repeat("\t", depth) + "end\n")
		}
	}
}

// rtprioString writes a real-time priority as the text form reads it: N on Linux's scale,
// SCALE:N on another.
func rtprioString(n int, s sched.RTScale) string {
	if s == sched.RTLinux {
		return itoa(n)
	}
	return s.String() + ":" + itoa(n)
}

// phaseString writes the phase of an every as the text form reads it.
func phaseString(d Duration, m PhaseMode) string {
	switch {
	case m == PhaseAbsolute:
		return d.String()
	case d == 0:
		return m.String()
	}
	return m.String() + "+" + d.String()
}

func utoa(u uint64) string {
	var buf [20]byte
	i := len(buf)
	for {
		i--
		buf[i] = byte('0' + u%10)
		u /= 10
		if u == 0 {
			return string(buf[i:])
		}
	}
}
