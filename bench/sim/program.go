package sim

// This file implements programs: behaviour scripts compiled into flat instruction lists that the
// machine interprets without allocating.

import (
	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

type opcode uint8

const (
	opRun        opcode = iota // dist
	opSleep                    // dist
	opSend                     // a: pipe, n: count
	opRecv                     // a: pipe, n: count
	opFork                     // a: program, n: count
	opJoin                     //
	opYield                    //
	opExit                     //
	opJump                     // a: target
	opRepeatInit               // a: var, n: count
	opRepeatNext               // a: var, b: body start
	opEveryInit                // a: var (3 words: base time, period index, iterations), n: phase, b: mode, dist: period
	opEveryNext                // a: var, b: body start, n: count (0: forever), dist: period
	opSetAttr                  // a: index in program.attrs
	opPollReady                // a: pipe, n: count, b: target when n messages are there
	opSpin                     // a: var (the spin's end in wall-clock time), dist
)

type instr struct {
	op   opcode
	a, b int32
	n    int64
	dist workload.Dist
}

// An attrOp is a change of attributes: one of nice, class or affinity, or a move to a group.
type attrOp struct {
	kind    workload.Kind
	nice    int
	class   sched.Class
	rtprio  int
	rtscale sched.RTScale
	cpus    topology.CPUSet
	group   sched.GroupID
}

// A program is a thread declaration compiled for the machine.
type program struct {
	decl *workload.Thread
	name string
	// proc is the program's process (workload.Thread.Process, or its own), numbered from 0.
	proc int32
	attr sched.Attr
	// runAttr is attr as the machine runs it (the group flattened with Config.FlattenGroups):
	// the attributes its threads share until a script op changes them.
	runAttr sched.Attr
	// attrIx is where runAttr is in Machine.attrs, and base where code is in Machine.code.
	attrIx, base int32
	// slack is the declaration's timer slack (workload.Thread.Slack) in nanoseconds.
	slack  int64
	code   []instr
	attrs  []attrOp
	nvars  int
	made   int // threads created from it so far
	exited int // threads of it that exited
}

// compiler turns declarations into programs; it relies on the workload having been validated.
type compiler struct {
	pipes  map[string]int32
	groups map[string]sched.GroupID
	progs  map[string]int32
}

func (c *compiler) compile(d *workload.Thread) *program {
	p := &program{decl: d, name: d.Name, attr: d.Attr(c.groups[d.Group]), slack: int64(d.Slack)}
	c.ops(p, d.Ops)
	p.code = append(p.code, instr{op: opExit})
	return p
}

func (c *compiler) ops(p *program, ops []workload.Op) {
	for i := range ops {
		op := &ops[i]
		switch op.Kind {
		case workload.Run:
			p.code = append(p.code, instr{op: opRun, dist: op.Time})
		case workload.Sleep:
			p.code = append(p.code, instr{op: opSleep, dist: op.Time})
		case workload.Spin:
			v := int32(p.nvars)
			p.nvars++
			p.code = append(p.code, instr{op: opSpin, a: v, dist: op.Time})
		case workload.Send, workload.Recv:
			code := opSend
			if op.Kind == workload.Recv {
				code = opRecv
			}
			p.code = append(p.code, instr{op: code, a: c.pipes[op.Name], n: int64(max(op.N, 1))})
		case workload.Poll:
			// A busy-wait: while fewer than n messages are there, run a try and yield;
			// then take them as a Recv does (which then never blocks).
			//	L: pollready pipe n → R; run try; yield; jump L; R: recv pipe n
			pipe, n := c.pipes[op.Name], int64(max(op.N, 1))
			start := int32(len(p.code))
			p.code = append(p.code, instr{op: opPollReady, a: pipe, n: n, b: start + 4},
				instr{op: opRun, dist: op.Time}, instr{op: opYield}, instr{op: opJump, a: start},
				instr{op: opRecv, a: pipe, n: n})
		case workload.Until:
			// A wait on two descriptors: while fewer than n messages are in the pipe, run
			// the body (which blocks on the others); then take them as a Recv does.
			//	L: pollready pipe n → R; body; jump L; R: recv pipe n
			pipe, n := c.pipes[op.Name], int64(max(op.N, 1))
			start := int32(len(p.code))
			p.code = append(p.code, instr{op: opPollReady, a: pipe, n: n})
			c.ops(p, op.Body)
			p.code = append(p.code, instr{op: opJump, a: start})
			p.code[start].b = int32(len(p.code))
			p.code = append(p.code, instr{op: opRecv, a: pipe, n: n})
		case workload.Fork:
			p.code = append(p.code, instr{op: opFork, a: c.progs[op.Name], n: int64(max(op.N, 1))})
		case workload.Join:
			p.code = append(p.code, instr{op: opJoin})
		case workload.Yield:
			p.code = append(p.code, instr{op: opYield})
		case workload.Exit:
			p.code = append(p.code, instr{op: opExit})
		case workload.Loop:
			start := int32(len(p.code))
			c.ops(p, op.Body)
			p.code = append(p.code, instr{op: opJump, a: start})
		case workload.Repeat:
			v := int32(p.nvars)
			p.nvars++
			p.code = append(p.code, instr{op: opRepeatInit, a: v, n: int64(op.N)})
			start := int32(len(p.code))
			c.ops(p, op.Body)
			p.code = append(p.code, instr{op: opRepeatNext, a: v, b: start})
		case workload.Every:
			v := int32(p.nvars)
			p.nvars += 3
			p.code = append(p.code, instr{op: opEveryInit, a: v, b: int32(op.PhaseMode), n: int64(op.Phase), dist: op.Time})
			start := int32(len(p.code))
			c.ops(p, op.Body)
			p.code = append(p.code, instr{op: opEveryNext, a: v, b: start, n: int64(op.N), dist: op.Time})
		case workload.Nice, workload.SetClass, workload.SetCPUs, workload.SetGroup:
			a := attrOp{kind: op.Kind, nice: op.N, class: op.Class, rtprio: op.N, rtscale: op.RTScale, cpus: op.CPUs,
				group: c.groups[op.Name]}
			p.attrs = append(p.attrs, a)
			p.code = append(p.code, instr{op: opSetAttr, a: int32(len(p.attrs) - 1)})
		}
	}
}

// apply changes attr as a says.
func (a *attrOp) apply(attr *sched.Attr) {
	switch a.kind {
	case workload.Nice:
		attr.Nice = a.nice
	case workload.SetClass:
		attr.Class, attr.RTPrio, attr.RTScale = a.class, a.rtprio, a.rtscale
	case workload.SetCPUs:
		attr.Affinity = a.cpus
	case workload.SetGroup:
		attr.Group = a.group
	}
}
