package trace

// This file implements ReadRTApp: an rt-app JSON description (the format of rt-app, workgen
// and LISA's RTA) into a workload.

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// maxRTAppSize bounds an rt-app file.
const maxRTAppSize = 64 << 20

// RTApp is an rt-app description read as a workload.
type RTApp struct {
	// Workload is the tasks as threads.
	Workload *workload.Workload
	// Duration is global.duration in nanoseconds (the run's length), or 0 for -1 or none.
	Duration int64
	// Warnings list what the workload cannot express and was approximated or left out.
	Warnings []Warning
}

// ReadRTApp reads an rt-app JSON description from r; file names it in errors and warnings.
// It follows rt-app's doc/tutorial.txt:
//
//	rt-app                                    workload
//	tasks.NAME                                thread NAME
//	instance N (0: created by fork only)      count=N (0: a template)
//	delay (us)                                start=
//	loop (thread: -1 = forever, default)      loop … end / repeat N … end around the phases
//	phases.NAME (in file order), loop N       repeat N … end (-1: loop … end)
//	policy SCHED_OTHER|BATCH|IDLE|FIFO|RR     class=normal|batch|idle|fifo|rr
//	priority                                  nice= (OTHER, BATCH, IDLE), rtprio= (FIFO, RR)
//	cpus [0, 2]                               cpus=0,2
//	run, runtime (us)                         run (work at full speed; runtime taken as run)
//	sleep (us)                                sleep
//	timer {period} last in a phase            the phase becomes every PERIOD N … end
//	signal C / wait {ref C}                   send / recv on pipe C (see the warning)
//	sync {ref C}                              send C then recv C
//	suspend / resume T                        recv on T's pipe / send to it
//	barrier B (k users)                       each user sends to every other's pipe, then
//	                                          receives k-1 messages
//	yield, fork T                             yield, fork T (T becomes a template)
//
// Event keys match by prefix, as rt-app matches them ("run0", "sleep1"), and keys repeated in
// one object are kept in order. What the workload cannot express is a Warning naming the
// line: SCHED_DEADLINE and its dl-* parameters (imported as SCHED_OTHER), lock and unlock
// (no mutexes: left out), broad, mem, iorun, a timer that is not a phase's last event
// (a sleep of its period), util_min/util_max, taskgroup, membind_nodes, and the lost-wake-up
// semantics of condition variables (a pipe keeps a signal that has no waiter yet). Malformed
// JSON, a value of the wrong type or out of range, an unknown task in fork or resume, and a
// workload that does not validate (a loop whose body takes no time) are an *Error naming
// file, line and field. ReadRTApp never panics.
func ReadRTApp(r io.Reader, file string) (*RTApp, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxRTAppSize+1))
	if err != nil {
		return nil, &Error{File: file, Msg: err.Error()}
	}
	if len(data) > maxRTAppSize {
		return nil, &Error{File: file, Msg: "larger than 64 MiB"}
	}
	root, err := parseJSONTree(data)
	if err != nil {
		je := err.(*jsonError)
		line, _ := lineCol(data, je.off)
		return nil, &Error{File: file, Line: line, Msg: je.msg}
	}
	rd := &rtappReader{file: file, data: data, pipes: map[string]bool{}, barriers: map[string]int{}, templates: map[string]bool{}}
	out, perr := rd.read(root)
	if perr != nil {
		return nil, perr
	}
	return out, nil
}

type rtappReader struct {
	file      string
	data      []byte
	warns     []Warning
	w         workload.Workload
	pipes     map[string]bool
	pipeOrder []string
	barriers  map[string]int // users per barrier
	barrierOf map[string][]string
	templates map[string]bool
	tasks     map[string]*jnode
	instances map[string]int
	defPolicy string
}

func (rd *rtappReader) errAt(n *jnode, field, format string, args ...any) *Error {
	line := 0
	if n != nil {
		line, _ = lineCol(rd.data, n.off)
	}
	return &Error{File: rd.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func (rd *rtappReader) warn(n *jnode, format string, args ...any) {
	line := 0
	if n != nil {
		line, _ = lineCol(rd.data, n.off)
	}
	rd.warns = append(rd.warns, Warning{File: rd.file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (n *jnode) get(key string) *jnode {
	for i, k := range n.keys {
		if k == key {
			return n.vals[i]
		}
	}
	return nil
}

// intOf returns n as an integer in lo..hi.
func (rd *rtappReader) intOf(n *jnode, field string, lo, hi int64) (int64, *Error) {
	if n.kind != jNumber {
		return 0, rd.errAt(n, field, "%s, want a number", n.kind)
	}
	v, err := n.num.Int64()
	if err != nil {
		f, ferr := n.num.Float64()
		if ferr != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return 0, rd.errAt(n, field, "%s is not an integer", n.num)
		}
		v = int64(f)
	}
	if v < lo || v > hi {
		return 0, rd.errAt(n, field, "%d is not in %d..%d", v, lo, hi)
	}
	return v, nil
}

func (rd *rtappReader) strOf(n *jnode, field string) (string, *Error) {
	if n.kind != jString {
		return "", rd.errAt(n, field, "%s, want a string", n.kind)
	}
	return n.str, nil
}

// taskOf returns the task n names (a resume's or a fork's), a string naming a task of the file.
func (rd *rtappReader) taskOf(n *jnode, field string) (string, *Error) {
	s, err := rd.strOf(n, field)
	if err == nil && rd.tasks[s] == nil {
		err = rd.errAt(n, field, "unknown task %q", s)
	}
	return s, err
}

// usec converts an rt-app duration in microseconds.
func (rd *rtappReader) usec(n *jnode, field string) (workload.Duration, *Error) {
	v, err := rd.intOf(n, field, 0, int64(workload.MaxDuration/1000))
	return workload.Duration(v * 1000), err
}

func (rd *rtappReader) read(root *jnode) (*RTApp, *Error) {
	if root.kind != jObject {
		return nil, rd.errAt(root, "", "%s, want an object with tasks", root.kind)
	}
	out := &RTApp{}
	rd.defPolicy = "SCHED_OTHER"
	if g := root.get("global"); g != nil {
		if err := rd.global(g, out); err != nil {
			return nil, err
		}
	}
	tasks := root.get("tasks")
	if tasks == nil || tasks.kind != jObject || len(tasks.keys) == 0 {
		return nil, rd.errAt(root, "tasks", "missing or empty")
	}
	rd.tasks, rd.instances = map[string]*jnode{}, map[string]int{}
	// First pass: names, instances, fork targets and barrier users.
	for i, name := range tasks.keys {
		t := tasks.vals[i]
		if t.kind != jObject {
			return nil, rd.errAt(t, "tasks."+name, "%s, want an object", t.kind)
		}
		if _, dup := rd.tasks[name]; dup {
			return nil, rd.errAt(t, "tasks."+name, "task declared twice")
		}
		rd.tasks[name] = t
		inst := int64(1)
		if v := t.get("instance"); v != nil {
			var err *Error
			if inst, err = rd.intOf(v, "tasks."+name+".instance", 0, workload.MaxCount); err != nil {
				return nil, err
			}
		}
		rd.instances[name] = int(inst)
	}
	rd.barrierOf = map[string][]string{}
	for i, name := range tasks.keys {
		rd.scan(tasks.vals[i], name, 0)
	}
	for b, users := range rd.barrierOf {
		for _, u := range users {
			if rd.instances[u] > 1 {
				return nil, rd.errAt(rd.tasks[u], "tasks."+u, "barrier %q in a task of %d instances: each instance needs its own pipe, which a count= thread cannot have", b, rd.instances[u])
			}
		}
	}
	for i, name := range tasks.keys {
		th, err := rd.task(name, tasks.vals[i])
		if err != nil {
			return nil, err
		}
		rd.w.Threads = append(rd.w.Threads, th)
	}
	for _, p := range rd.pipeOrder {
		rd.w.Pipes = append(rd.w.Pipes, workload.Pipe{Name: p})
	}
	if err := rd.w.Validate(); err != nil {
		return nil, &Error{File: rd.file, Msg: "the imported workload does not validate: " + err.Error()}
	}
	w := rd.w
	out.Workload, out.Warnings = &w, rd.warns
	return out, nil
}

// global reads the "global" object g: the duration into out, the default policy, and a
// warning for pi_enabled; rt-app's other global keys do not concern the schedule.
func (rd *rtappReader) global(g *jnode, out *RTApp) *Error {
	if g.kind != jObject {
		return rd.errAt(g, "global", "%s, want an object", g.kind)
	}
	for i, k := range g.keys {
		v := g.vals[i]
		switch k {
		case "duration":
			d, err := rd.intOf(v, "global.duration", -1, int64(workload.MaxDuration/1e9))
			if err != nil {
				return err
			}
			if d > 0 {
				out.Duration = d * 1e9
			}
		case "default_policy":
			s, err := rd.strOf(v, "global.default_policy")
			if err != nil {
				return err
			}
			rd.defPolicy = s
		case "pi_enabled":
			rd.warn(v, "global.pi_enabled: there are no mutexes to inherit priority through")
		}
	}
	return nil
}

// scan finds fork targets and barrier users in task name's events.
func (rd *rtappReader) scan(n *jnode, task string, depth int) {
	if n.kind != jObject || depth > 3 {
		return
	}
	for i, k := range n.keys {
		v := n.vals[i]
		switch {
		case k == "phases":
			for _, ph := range v.vals {
				rd.scan(ph, task, depth+1)
			}
		case strings.HasPrefix(k, "fork") && v.kind == jString:
			rd.templates[v.str] = true
		case strings.HasPrefix(k, "barrier") && v.kind == jString:
			users := rd.barrierOf[v.str]
			if len(users) == 0 || users[len(users)-1] != task {
				rd.barrierOf[v.str] = append(users, task)
			}
		}
	}
}

func (rd *rtappReader) pipe(name string) string {
	p := "c-" + sanitize(name)
	if !rd.pipes[p] {
		rd.pipes[p] = true
		rd.pipeOrder = append(rd.pipeOrder, p)
	}
	return p
}

// sanitize makes s a valid workload name.
func sanitize(s string) string {
	var b strings.Builder
	for i, r := range s {
		ok := r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && (r == '-' || '0' <= r && r <= '9')
		if i == 0 && !ok {
			b.WriteString("t_")
			ok = r == '-' || '0' <= r && r <= '9'
		}
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "t_"
	}
	return b.String()
}

// attrs applies policy, priority and cpus of object n to th (a thread's first phase) or
// returns them as ops (a later phase).
func (rd *rtappReader) attrs(n *jnode, field string, th *workload.Thread, asOps bool) ([]workload.Op, *Error) {
	top := n == rd.tasks[strings.TrimPrefix(field, "tasks.")]
	var ops []workload.Op
	policy, prio, cpus := n.get("policy"), n.get("priority"), n.get("cpus")
	class := th.Class
	if policy != nil || top {
		name := rd.defPolicy
		if policy != nil {
			var err *Error
			if name, err = rd.strOf(policy, field+".policy"); err != nil {
				return nil, err
			}
		}
		var err *Error
		if class, err = rd.policyClass(policy, field, name); err != nil {
			return nil, err
		}
	}
	rt := class.RealTime()
	nice, rtprio := th.Nice, th.RTPrio
	if rt && rtprio == 0 {
		rtprio = 10 // rt-app's default priority of the real-time classes
	}
	if prio != nil {
		if rt {
			v, err := rd.intOf(prio, field+".priority", sched.MinRTPrio, sched.MaxRTPrio)
			if err != nil {
				return nil, err
			}
			rtprio = int(v)
		} else {
			v, err := rd.intOf(prio, field+".priority", sched.MinNice, 19)
			if err != nil {
				return nil, err
			}
			nice = int(v)
		}
	}
	var set topology.CPUSet
	if cpus != nil {
		var err *Error
		if set, err = rd.cpuList(cpus, field); err != nil {
			return nil, err
		}
	}
	if !asOps {
		th.Class, th.Nice, th.RTPrio = class, nice, rtprio
		if !rt {
			th.RTPrio = 0
		}
		if cpus != nil {
			th.CPUs = set
		}
		return nil, nil
	}
	if policy != nil || (prio != nil && rt) {
		if rt {
			ops = append(ops, workload.Op{Kind: workload.SetClass, Class: class, N: rtprio})
		} else {
			ops = append(ops, workload.Op{Kind: workload.SetClass, Class: class})
		}
	}
	if prio != nil && !rt {
		ops = append(ops, workload.Op{Kind: workload.Nice, N: nice})
	}
	if cpus != nil {
		ops = append(ops, workload.Op{Kind: workload.SetCPUs, CPUs: set})
	}
	for _, k := range []string{"util_min", "util_max", "taskgroup", "membind_nodes", "dl-runtime", "dl-period", "dl-deadline"} {
		if v := n.get(k); v != nil {
			rd.warn(v, "%s.%s cannot be expressed; left out", field, k)
		}
	}
	return ops, nil
}

// policyClass returns the class of rt-app's policy name (read from node policy, nil for the
// default policy) of field: SCHED_DEADLINE, which cannot be expressed, as SCHED_OTHER with a
// warning.
func (rd *rtappReader) policyClass(policy *jnode, field, name string) (sched.Class, *Error) {
	switch name {
	case "SCHED_OTHER":
		return sched.Normal, nil
	case "SCHED_BATCH":
		return sched.Batch, nil
	case "SCHED_IDLE":
		return sched.Idle, nil
	case "SCHED_FIFO":
		return sched.FIFO, nil
	case "SCHED_RR":
		return sched.RR, nil
	case "SCHED_DEADLINE":
		rd.warn(policy, "%s.policy: SCHED_DEADLINE cannot be expressed; imported as SCHED_OTHER", field)
		return sched.Normal, nil
	}
	return 0, rd.errAt(policy, field+".policy", "unknown policy %q", name)
}

// cpuList reads field's "cpus" array of CPU numbers.
func (rd *rtappReader) cpuList(cpus *jnode, field string) (topology.CPUSet, *Error) {
	var set topology.CPUSet
	if cpus.kind != jArray {
		return set, rd.errAt(cpus, field+".cpus", "%s, want an array of CPU numbers", cpus.kind)
	}
	for _, c := range cpus.arr {
		v, err := rd.intOf(c, field+".cpus", 0, topology.MaxCPUs-1)
		if err != nil {
			return set, err
		}
		set.Add(topology.CPU(v))
	}
	return set, nil
}

func (rd *rtappReader) task(name string, t *jnode) (workload.Thread, *Error) {
	field := "tasks." + name
	th := workload.Thread{Name: sanitize(name)}
	inst := rd.instances[name]
	if rd.templates[name] || inst == 0 {
		th.Template = true
	} else if inst > 1 {
		th.Count = inst
	}
	if d := t.get("delay"); d != nil {
		v, err := rd.usec(d, field+".delay")
		if err != nil {
			return th, err
		}
		if !th.Template {
			th.Start = v
		} else if v > 0 {
			rd.warn(d, "%s.delay of a forked task cannot be expressed; left out", field)
		}
	}
	if _, err := rd.attrs(t, field, &th, false); err != nil {
		return th, err
	}
	if v := t.get("util_min"); v != nil {
		rd.warn(v, "%s.util_min cannot be expressed; left out", field)
	}
	if v := t.get("util_max"); v != nil {
		rd.warn(v, "%s.util_max cannot be expressed; left out", field)
	}
	if v := t.get("taskgroup"); v != nil {
		rd.warn(v, "%s.taskgroup cannot be expressed; left out", field)
	}
	loop := int64(-1)
	if l := t.get("loop"); l != nil {
		var err *Error
		if loop, err = rd.intOf(l, field+".loop", -1, workload.MaxRepeat); err != nil {
			return th, err
		}
	}
	var body []workload.Op
	if phases := t.get("phases"); phases != nil {
		if phases.kind != jObject {
			return th, rd.errAt(phases, field+".phases", "%s, want an object", phases.kind)
		}
		for i, pn := range phases.keys {
			ph := phases.vals[i]
			if ph.kind != jObject {
				return th, rd.errAt(ph, field+".phases."+pn, "%s, want an object", ph.kind)
			}
			ops, err := rd.phase(name, field+".phases."+pn, ph, &th, i == 0)
			if err != nil {
				return th, err
			}
			body = append(body, ops...)
		}
	} else {
		ops, err := rd.phase(name, field, t, &th, true)
		if err != nil {
			return th, err
		}
		body = ops
	}
	switch {
	case loop == -1:
		th.Ops = []workload.Op{workload.LoopOp(body...)}
	case loop == 0:
		th.Ops = []workload.Op{workload.RunOp(workload.Fixed(0))}
	case loop == 1:
		th.Ops = body
	default:
		th.Ops = []workload.Op{workload.RepeatOp(int(loop), body...)}
	}
	if len(th.Ops) == 0 {
		th.Ops = []workload.Op{workload.RunOp(workload.Fixed(0))}
	}
	return th, nil
}

// usString formats nanoseconds as rt-app microseconds.
func usString(d workload.Duration) string { return strconv.FormatInt(int64(d)/1000, 10) }
