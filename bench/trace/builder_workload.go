package trace

// This file implements the end of an import: the builder's tasks written out as the workload's
// thread declarations and scripts, named after the tasks' last names, and the memory estimate
// the import is bounded by.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/topology"
)

// An importResult is what the builder hands the readers at the end: the workload, the kept
// tasks' stats in the order of its threads, the dropped ones'.
type importResult struct {
	w       *workload.Workload
	tasks   []TaskStats
	dropped []TaskStats
	charged int
}

// workload names the threads and pipes after the tasks' last names, writes each script out
// (leaving out the kernel threads KernelDrop drops and every op that names them, and pinning
// KernelCharge's to their CPU when the trace's ncpu CPUs have it) and returns the workload,
// validated; a problem is an internal error of the importer.
func (b *builder) workload(ncpu int) (*importResult, error) {
	n := len(b.tasks)
	drop := make([]bool, n)
	res := &importResult{}
	for i, tk := range b.tasks {
		s := &b.stats[i]
		s.KThread, s.KThreadCPU = tk.kthread, tk.kthreadCPU
		if !tk.kthread {
			s.KThreadCPU = -1
			continue
		}
		switch b.o.kernel {
		case KernelDrop:
			drop[i] = !tk.sent
		case KernelCharge:
			s.Charged = true
			if tk.kthreadCPU >= 0 && tk.kthreadCPU < ncpu {
				b.threads[i].CPUs = topology.CPUSetOf(topology.CPU(tk.kthreadCPU))
			}
			res.charged++
		}
	}
	// Names: the last comm, cleaned to a workload name, and the pid; unique.
	names := make([]string, n)
	used := make(map[string]int, n)
	for i := range b.tasks {
		if drop[i] {
			continue
		}
		names[i] = uniqueName(used, cleanName(b.stats[i].Comm)+"-"+strconv.FormatInt(b.stats[i].PID, 10))
	}
	w := &workload.Workload{}
	pipeName := make([]string, len(b.ends))
	for p, e := range b.ends {
		if drop[e[0]] || drop[e[1]] {
			continue
		}
		pipeName[p] = uniqueName(used, "p-"+names[e[0]]+"-"+names[e[1]])
		w.Pipes = append(w.Pipes, workload.Pipe{Name: pipeName[p]})
	}
	for i, tk := range b.tasks {
		s := b.stats[i]
		s.Name, s.SimName = names[i], names[i]
		if b.threads[i].Template {
			s.SimName += ".0"
		}
		if drop[i] {
			res.dropped = append(res.dropped, s)
			continue
		}
		th := b.threads[i]
		th.Name = names[i]
		th.Ops = b.script(tk, drop, names, pipeName)
		w.Threads = append(w.Threads, th)
		res.tasks = append(res.tasks, s)
		tk.ops = nil
	}
	b.tasks, b.threads = nil, nil
	if len(w.Threads) == 0 {
		if len(res.dropped) > 0 {
			return nil, fmt.Errorf("the trace shows only kernel threads, which the import drops (%d); keep them with KernelKeep or KernelCharge", len(res.dropped))
		}
		return nil, fmt.Errorf("the trace shows no task")
	}
	if err := w.Validate(); err != nil {
		return nil, fmt.Errorf("trace: internal error: the imported workload does not validate: %v", err)
	}
	res.w = w
	return res, nil
}

// script writes tk's ops as the workload's, leaving out the forks of dropped templates and
// the sends to dropped tasks.
func (b *builder) script(tk *task, drop []bool, names, pipeName []string) []workload.Op {
	if b.o.summary {
		if len(tk.ops) == 0 {
			return []workload.Op{workload.RunOp(workload.Fixed(0))}
		}
		body := make([]workload.Op, len(tk.ops))
		for i, c := range tk.ops {
			body[i] = workload.Op{Kind: c.kind, Time: workload.Exponential(clampDur(c.v))}
		}
		return []workload.Op{workload.RepeatOp(int(min(tk.runs, workload.MaxRepeat)), body...)}
	}
	k := 0
	for _, c := range tk.ops {
		if keepOp(c, drop, b.ends) {
			k++
		}
	}
	if k == 0 {
		return []workload.Op{workload.RunOp(workload.Fixed(0))}
	}
	ops := make([]workload.Op, 0, k)
	for _, c := range tk.ops {
		if !keepOp(c, drop, b.ends) {
			continue
		}
		switch c.kind {
		case workload.Run, workload.Sleep:
			ops = append(ops, workload.Op{Kind: c.kind, Time: workload.Fixed(workload.Duration(c.v))})
		case workload.Send, workload.Recv:
			ops = append(ops, workload.Op{Kind: c.kind, Name: pipeName[c.ref], N: 1})
		case workload.Fork:
			ops = append(ops, workload.ForkOp(names[c.ref], 1))
		case workload.Nice:
			ops = append(ops, workload.Op{Kind: workload.Nice, N: int(c.v)})
		case workload.SetClass:
			ops = append(ops, workload.Op{Kind: workload.SetClass, Class: c.class, N: int(c.v), RTScale: c.scale})
		}
	}
	return ops
}

// keepOp reports whether op c names no dropped task.
func keepOp(c cop, drop []bool, ends [][2]int32) bool {
	switch c.kind {
	case workload.Fork:
		return !drop[c.ref]
	case workload.Send, workload.Recv:
		e := ends[c.ref]
		return !drop[e[0]] && !drop[e[1]]
	}
	return true
}

// cleanName turns a comm or a function name into the start of a workload name: letters,
// digits, '_' and '-', each run of other characters one '_', starting with a letter or '_',
// at most 40 bytes.
func cleanName(comm string) string {
	var sb strings.Builder
	under := false
	for _, r := range comm {
		ok := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || sb.Len() > 0 && (r == '-' || '0' <= r && r <= '9')
		if !ok {
			if sb.Len() == 0 && ('0' <= r && r <= '9' || r == '-') {
				sb.WriteString("t_")
				sb.WriteRune(r)
				under = false
				continue
			}
			if !under && sb.Len() > 0 {
				sb.WriteByte('_')
				under = true
			}
			continue
		}
		under = false
		sb.WriteRune(r)
		if sb.Len() >= 40 {
			break
		}
	}
	s := strings.TrimRight(sb.String(), "_")
	if s == "" {
		return "task"
	}
	return s
}

// uniqueName returns name, or name-2, name-3, … if taken, and marks it taken.
func uniqueName(used map[string]int, name string) string {
	n := used[name]
	used[name] = n + 1
	if n == 0 {
		return name
	}
	for {
		n++
		alt := name + "-" + strconv.Itoa(n)
		if used[alt] == 0 {
			used[alt] = 1
			return alt
		}
	}
}

// liveBytesPerOp is the live heap a replay holds per op of the workload, measured (schedbench
// replay of a 1.47-million-event hackbench trace: 298 MB live at the peak for 1.01 million
// ops): the op itself (opSize), the simulator's compiled instruction and its share of the
// latency samples and per-thread state.
const liveBytesPerOp = 300

// memBytes estimates the peak memory an import and its replay need: twice the live heap (the
// garbage collector's headroom at GOGC=100), the live heap being liveBytesPerOp an op, the ops
// the builder still holds (copSize) and the per-task state.
func (b *builder) memBytes() int64 {
	return 2 * (b.nops*(copSize+liveBytesPerOp) + int64(len(b.tasks))*1024)
}
