package trace

// This file implements the parsing of one line of ftrace text into an event: the common
// header that /sys/kernel/tracing/trace, `trace-cmd report` and `perf sched script` print
// before each event, and the fields of the scheduler events after it.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/bench/sim/workload"
)

// An event is one parsed line: the header and the scheduler fields the importer uses.
type event struct {
	ts   int64  // nanoseconds
	cpu  int    // the CPU the event was recorded on
	pid  int    // the task in whose context it was recorded (-1 if the header has none)
	task string // its comm
	irq  bool   // recorded in hard or soft interrupt context (tracefs's flags column)
	name string // "sched_switch" and so on, without perf's "sched:"

	// Fields, by event: comm and pid (of the wakee, migrant, exiting task, fork parent),
	// prio; prevComm, prevPid, prevPrio, prevState, nextComm, nextPid, nextPrio (switch);
	// childComm, childPid (fork); target (wakeup), orig and dest (migrate); runtime
	// (sched_stat_runtime).
	comm, prevComm, nextComm, childComm string
	pid2, prevPid, nextPid, childPid    int
	prio, prevPrio, nextPrio            int
	prevState                           string
	target, orig, dest                  int
	runtime                             int64 // sched_stat_runtime's runtime, ns
}

// A fieldError is a problem with one field of a line; the reader adds the file and line.
type fieldError struct {
	field string
	msg   string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func badField(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// maxPid is PID_MAX_LIMIT (4M, include/linux/threads.h); a larger pid is absurd.
const maxPid = 4 << 20

// taskCommLen is TASK_COMM_LEN (include/linux/sched.h): a comm holds at most 15 bytes.
const taskCommLen = 16

// maxCPU bounds the CPU numbers the importer accepts.
const maxCPU = 1 << 16

// parseHeader parses the part of line before the event's fields: the task (comm-pid, comm pid,
// with an optional "(tgid)"), [CPU], the optional irq-flags column, the timestamp and the event
// name. It returns the event, the fields' text, and whether the line is an event line at all
// (comments, "cpus=N" and blank lines are not). Lines trace-cmd prefixes with an instance name
// ("inst: ") are accepted.
func parseHeader(line string) (ev event, rest string, ok bool, err *fieldError) {
	t := strings.TrimSpace(line)
	if t == "" || t[0] == '#' || strings.HasPrefix(t, "cpus=") || strings.HasPrefix(t, "version =") {
		return ev, "", false, nil
	}
	// The CPU: the first " [digits]" after which a timestamp follows.
	open := -1
	for i := 0; i+2 < len(line); i++ {
		if line[i] != '[' || (i > 0 && line[i-1] != ' ') {
			continue
		}
		j := i + 1
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if j > i+1 && j < len(line) && line[j] == ']' {
			open = i
			break
		}
	}
	if open < 0 {
		return parseLatencyHeader(line)
	}
	closeAt := strings.IndexByte(line[open:], ']') + open
	cpu, e := strconv.Atoi(line[open+1 : closeAt])
	if e != nil || cpu >= maxCPU {
		return ev, "", false, badField("cpu", "CPU %q out of range", line[open+1:closeAt])
	}
	ev.cpu = cpu
	ev.pid = -1
	if err := parseTask(&ev, line[:open]); err != nil {
		return ev, "", false, err
	}
	after := strings.TrimLeft(line[closeAt+1:], " ")
	// tracefs's irq-flags column: four or five characters of .dDXNnpPhHsSbz0-9 before the time.
	if sp := strings.IndexByte(after, ' '); sp >= 4 && sp <= 6 && isFlags(after[:sp]) {
		f := after[:sp]
		ev.irq = len(f) >= 3 && strings.ContainsAny(f[2:3], "hHsS")
		after = strings.TrimLeft(after[sp:], " ")
	}
	colon := strings.IndexByte(after, ':')
	if colon < 0 {
		return ev, "", false, badField("timestamp", "no timestamp in %q", clip(line))
	}
	ts, terr := parseTimestamp(after[:colon])
	if terr != nil {
		return ev, "", false, terr
	}
	ev.ts = ts
	after = strings.TrimLeft(after[colon+1:], " ")
	name, fields, found := strings.Cut(after, ":")
	if !found {
		return ev, "", false, badField("event", "no event name in %q", clip(line))
	}
	if strings.HasPrefix(name, "sched") && strings.HasPrefix(fields, "sched_") {
		// perf's "sched:sched_switch:".
		name2, f2, found2 := strings.Cut(fields, ":")
		if found2 {
			name, fields = name2, f2
		}
	}
	ev.name = strings.TrimSpace(name)
	return ev, strings.TrimSpace(fields), true, nil
}

// latencyHeader matches the header of `trace-cmd report -l` (the latency format): the task,
// then the CPU and the irq flags as one token ("0dNs3."), then the timestamp.
var latencyHeader = regexp.MustCompile(`^(.*\S)\s+(\d+)([.dDXNnpPhHsSbz0-9]{4,5})\s+(\d+\.\d+):\s`)

// parseLatencyHeader parses a line of `trace-cmd report -l`, which has no [CPU] column.
func parseLatencyHeader(line string) (ev event, rest string, ok bool, err *fieldError) {
	m := latencyHeader.FindStringSubmatchIndex(line)
	if m == nil {
		return ev, "", false, badField("cpu", "no [CPU] column in %q", clip(line))
	}
	cpu, e := strconv.Atoi(line[m[4]:m[5]])
	if e != nil || cpu >= maxCPU {
		return ev, "", false, badField("cpu", "CPU %q out of range", line[m[4]:m[5]])
	}
	ev.cpu, ev.pid = cpu, -1
	if err := parseTask(&ev, line[m[2]:m[3]]); err != nil {
		return ev, "", false, err
	}
	f := line[m[6]:m[7]]
	ev.irq = len(f) >= 3 && strings.ContainsAny(f[2:3], "hHsS")
	ts, terr := parseTimestamp(line[m[8]:m[9]])
	if terr != nil {
		return ev, "", false, terr
	}
	ev.ts = ts
	after := strings.TrimLeft(line[m[1]:], " ")
	name, fields, found := strings.Cut(after, ":")
	if !found {
		return ev, "", false, badField("event", "no event name in %q", clip(line))
	}
	ev.name = strings.TrimSpace(name)
	return ev, strings.TrimSpace(fields), true, nil
}

func isFlags(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(".dDXNnpPhHsSbz0123456789", rune(s[i])) {
			return false
		}
	}
	return true
}

// parseTask parses "comm-pid", "comm pid" (perf) or either followed by "(tgid)"; an instance
// prefix "name: " before the comm is dropped.
func parseTask(ev *event, s string) *fieldError {
	s = strings.TrimRight(s, " ")
	if strings.HasSuffix(s, ")") {
		if i := strings.LastIndexByte(s, '('); i >= 0 {
			s = strings.TrimRight(s[:i], " ")
		}
	}
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || i == 0 || (s[i-1] != '-' && s[i-1] != ' ') {
		return badField("task", "no pid in %q", clip(s))
	}
	pid, err := strconv.Atoi(s[i:])
	if err != nil || pid > maxPid {
		return badField("task", "pid %q out of range", s[i:])
	}
	ev.pid = pid
	comm := strings.TrimSpace(s[:i-1])
	if k := strings.LastIndex(comm, ":  "); k >= 0 {
		comm = strings.TrimSpace(comm[k+1:]) // trace-cmd's instance name
	}
	ev.task = comm
	return nil
}

// parseTimestamp parses "seconds.fraction" (up to nine decimals) into nanoseconds.
func parseTimestamp(s string) (int64, *fieldError) {
	s = strings.TrimSpace(s)
	sec, frac, _ := strings.Cut(s, ".")
	if sec == "" || len(sec) > 10 || len(frac) > 9 {
		return 0, badField("timestamp", "%q is not seconds with at most nine decimals", clip(s))
	}
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 {
		return 0, badField("timestamp", "%q is not seconds with at most nine decimals", clip(s))
	}
	var f int64
	for i := 0; i < 9; i++ {
		f *= 10
		if i < len(frac) {
			c := frac[i]
			if c < '0' || c > '9' {
				return 0, badField("timestamp", "%q is not seconds with at most nine decimals", clip(s))
			}
			f += int64(c - '0')
		}
	}
	return n*1e9 + f, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// fieldsOf splits "k1=v1 k2=v2 …" by the keys it expects, in order, into vals: the value of
// a key runs to the next expected key, so comms holding spaces or '=' survive. A key marked
// optional with a leading '?' may be absent (its value is then "").
func fieldsOf(s string, vals []string, keys ...string) *fieldError {
	var start, val [8]int
	var idx [8]int
	n := 0
	pos := 0
	for k, key := range keys {
		vals[k] = ""
		opt := key[0] == '?'
		key = strings.TrimPrefix(key, "?")
		var i int
		if n == 0 {
			if !strings.HasPrefix(s, key+"=") {
				if opt {
					continue
				}
				return badField(key, "missing")
			}
		} else {
			j := strings.Index(s[pos:], " "+key+"=")
			if j < 0 {
				if opt {
					continue
				}
				return badField(key, "missing")
			}
			i = pos + j + 1
		}
		start[n], val[n], idx[n] = i, i+len(key)+1, k
		n++
		pos = i + len(key) + 1
	}
	for m := 0; m < n; m++ {
		end := len(s)
		if m+1 < n {
			end = start[m+1]
		}
		vals[idx[m]] = strings.TrimSpace(s[val[m]:end])
	}
	return nil
}

// intField returns v, the value of field key, as an int in lo..hi.
func intField(v, key string, lo, hi int) (int, *fieldError) {
	v = strings.TrimSuffix(v, " [ns]")
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, badField(key, "%q is not a number in %d..%d", clip(v), lo, hi)
	}
	return n, nil
}

// parseFields fills the fields of ev's event from s. Events the importer does not use are
// left alone.
func parseFields(ev *event, s string) *fieldError {
	switch ev.name {
	case "sched_switch":
		if !strings.Contains(s, "prev_comm=") {
			return parseSwitchPlugin(ev, s)
		}
		var v [7]string
		if err := fieldsOf(s, v[:], "prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"); err != nil {
			return err
		}
		st := strings.TrimSpace(strings.TrimSuffix(v[3], "==>"))
		return switchFields(ev, v[0], v[1], v[2], st, v[4], v[5], v[6])
	case "sched_wakeup", "sched_wakeup_new", "sched_waking":
		if !strings.HasPrefix(s, "comm=") {
			return parseWakeupPlugin(ev, s)
		}
		var v [5]string
		if err := fieldsOf(s, v[:], "comm", "pid", "prio", "?success", "target_cpu"); err != nil {
			return err
		}
		return wakeFields(ev, v[0], v[1], v[2], v[4])
	case "sched_migrate_task":
		return migrateFields(ev, s)
	case "sched_process_fork":
		return forkFields(ev, s)
	case "sched_stat_runtime":
		return statRuntimeFields(ev, s)
	case "sched_process_exec":
		return execFields(ev, s)
	case "task_rename":
		return renameFields(ev, s)
	case "sched_process_exit":
		var v [4]string
		if err := fieldsOf(s, v[:], "comm", "pid", "?prio", "?group_dead"); err != nil {
			return err
		}
		ev.comm = v[0]
		var e *fieldError
		ev.pid2, e = intField(v[1], "pid", 0, maxPid)
		return e
	}
	return nil
}

// migrateFields fills ev from sched_migrate_task's fields.
func migrateFields(ev *event, s string) *fieldError {
	var v [5]string
	if err := fieldsOf(s, v[:], "comm", "pid", "prio", "orig_cpu", "dest_cpu"); err != nil {
		return err
	}
	ev.comm = v[0]
	var e *fieldError
	if ev.pid2, e = intField(v[1], "pid", 0, maxPid); e != nil {
		return e
	}
	if ev.prio, e = intField(v[2], "prio", -1, 139); e != nil {
		return e
	}
	if ev.orig, e = intField(v[3], "orig_cpu", 0, maxCPU-1); e != nil {
		return e
	}
	ev.dest, e = intField(v[4], "dest_cpu", 0, maxCPU-1)
	return e
}

// forkFields fills ev from sched_process_fork's fields.
func forkFields(ev *event, s string) *fieldError {
	var v [4]string
	if err := fieldsOf(s, v[:], "comm", "pid", "child_comm", "child_pid"); err != nil {
		return err
	}
	ev.comm, ev.childComm = v[0], v[2]
	var e *fieldError
	if ev.pid2, e = intField(v[1], "pid", 0, maxPid); e != nil {
		return e
	}
	ev.childPid, e = intField(v[3], "child_pid", 0, maxPid)
	return e
}

// statRuntimeFields fills ev from sched_stat_runtime's fields.
func statRuntimeFields(ev *event, s string) *fieldError {
	// "comm=%s pid=%d runtime=%Lu [ns] vruntime=%Lu [ns]" before Linux 6.8, without
	// vruntime since (include/trace/events/sched.h). vruntime, CFS's own virtual clock,
	// is checked to be a number and not used.
	var v [4]string
	if err := fieldsOf(s, v[:], "comm", "pid", "runtime", "?vruntime"); err != nil {
		return err
	}
	ev.comm = v[0]
	var e *fieldError
	if ev.pid2, e = intField(v[1], "pid", 0, maxPid); e != nil {
		return e
	}
	rt, err := strconv.ParseInt(strings.TrimSuffix(v[2], " [ns]"), 10, 64)
	if err != nil || rt < 0 || rt > int64(workload.MaxDuration) {
		return badField("runtime", "%q is not a number of nanoseconds in 0..2^48", clip(v[2]))
	}
	ev.runtime = rt
	if v[3] != "" {
		if _, err := strconv.ParseUint(strings.TrimSuffix(v[3], " [ns]"), 10, 64); err != nil {
			return badField("vruntime", "%q is not a number of nanoseconds", clip(v[3]))
		}
	}
	return nil
}

// execFields fills ev from sched_process_exec's fields.
func execFields(ev *event, s string) *fieldError {
	// "filename=%s pid=%d old_pid=%d": comm becomes the file's base name, cut to
	// TASK_COMM_LEN-1 (15) bytes (begin_new_exec, __set_task_comm(me,
	// kbasename(bprm->filename))). childPid holds old_pid.
	var v [3]string
	if err := fieldsOf(s, v[:], "filename", "pid", "old_pid"); err != nil {
		return err
	}
	base := v[0]
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if len(base) > taskCommLen-1 {
		base = base[:taskCommLen-1]
	}
	ev.comm = base
	var e *fieldError
	if ev.pid2, e = intField(v[1], "pid", 0, maxPid); e != nil {
		return e
	}
	ev.childPid, e = intField(v[2], "old_pid", 0, maxPid)
	return e
}

// renameFields fills ev from task_rename's fields.
func renameFields(ev *event, s string) *fieldError {
	// "pid=%d oldcomm=%s newcomm=%s oom_score_adj=%hd"; kernels whose task_rename is
	// always current's print no pid, and the event's task is the one renamed.
	var v [4]string
	if err := fieldsOf(s, v[:], "?pid", "oldcomm", "newcomm", "?oom_score_adj"); err != nil {
		return err
	}
	ev.comm = v[2]
	ev.pid2 = ev.pid
	if v[0] != "" {
		var e *fieldError
		if ev.pid2, e = intField(v[0], "pid", 0, maxPid); e != nil {
			return e
		}
	}
	return nil
}

func switchFields(ev *event, pc, pp, ppr, st, nc, np, npr string) *fieldError {
	ev.prevComm, ev.nextComm, ev.prevState = pc, nc, st
	var err error
	if ev.prevPid, err = atoiIn(pp, 0, maxPid); err != nil {
		return badField("prev_pid", "%q is not a pid", clip(pp))
	}
	if ev.prevPrio, err = atoiIn(ppr, -1, 139); err != nil {
		return badField("prev_prio", "%q is not a prio in -1..139", clip(ppr))
	}
	if ev.nextPid, err = atoiIn(np, 0, maxPid); err != nil {
		return badField("next_pid", "%q is not a pid", clip(np))
	}
	if ev.nextPrio, err = atoiIn(npr, -1, 139); err != nil {
		return badField("next_prio", "%q is not a prio in -1..139", clip(npr))
	}
	if st == "" {
		return badField("prev_state", "empty")
	}
	return nil
}

func wakeFields(ev *event, comm, pid, prio, target string) *fieldError {
	ev.comm = comm
	var err error
	if ev.pid2, err = atoiIn(pid, 0, maxPid); err != nil {
		return badField("pid", "%q is not a pid", clip(pid))
	}
	if ev.prio, err = atoiIn(prio, -1, 139); err != nil {
		return badField("prio", "%q is not a prio in -1..139", clip(prio))
	}
	if ev.target, err = atoiIn(target, 0, maxCPU-1); err != nil {
		return badField("target_cpu", "%q is not a CPU", clip(target))
	}
	return nil
}

var errRange = fmt.Errorf("out of range")

func atoiIn(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	if n < lo || n > hi {
		return 0, errRange
	}
	return n, nil
}

// commPid splits trace-cmd's plugin form "comm:pid [prio]" (the comm may hold ':').
func commPid(s, field string) (comm string, pid, prio int, err *fieldError) {
	s = strings.TrimSpace(s)
	ob := strings.LastIndex(s, " [")
	if ob < 0 || !strings.HasSuffix(s, "]") {
		return "", 0, 0, badField(field, "%q is not comm:pid [prio]", clip(s))
	}
	pr, e := atoiIn(s[ob+2:len(s)-1], -1, 139)
	if e != nil {
		return "", 0, 0, badField(field, "prio in %q is not in -1..139", clip(s))
	}
	cp := s[:ob]
	c := strings.LastIndexByte(cp, ':')
	if c < 0 {
		return "", 0, 0, badField(field, "%q is not comm:pid [prio]", clip(s))
	}
	p, e := atoiIn(cp[c+1:], 0, maxPid)
	if e != nil {
		return "", 0, 0, badField(field, "pid in %q is not a pid", clip(s))
	}
	return cp[:c], p, pr, nil
}

// parseSwitchPlugin parses trace-cmd's sched_switch plugin form
// "prev_comm:prev_pid [prev_prio] STATE ==> next_comm:next_pid [next_prio]".
func parseSwitchPlugin(ev *event, s string) *fieldError {
	left, right, ok := strings.Cut(s, " ==> ")
	if !ok {
		return badField("sched_switch", "neither prev_comm= nor ==> in %q", clip(s))
	}
	sp := strings.LastIndexByte(left, ' ')
	if sp < 0 {
		return badField("prev_state", "missing in %q", clip(s))
	}
	var err *fieldError
	ev.prevState = left[sp+1:]
	if ev.prevComm, ev.prevPid, ev.prevPrio, err = commPid(left[:sp], "prev"); err != nil {
		return err
	}
	ev.nextComm, ev.nextPid, ev.nextPrio, err = commPid(right, "next")
	return err
}

// parseWakeupPlugin parses trace-cmd's sched_wakeup plugin form
// "comm:pid [prio] [success=1] CPU:003".
func parseWakeupPlugin(ev *event, s string) *fieldError {
	i := strings.LastIndex(s, " CPU:")
	if i < 0 {
		return badField("target_cpu", "neither comm= nor CPU: in %q", clip(s))
	}
	cpu, e := atoiIn(s[i+5:], 0, maxCPU-1)
	if e != nil {
		return badField("target_cpu", "%q is not a CPU", clip(s[i+5:]))
	}
	ev.target = cpu
	head := s[:i]
	if j := strings.LastIndex(head, " success="); j >= 0 {
		head = head[:j]
	}
	var err *fieldError
	ev.comm, ev.pid2, ev.prio, err = commPid(head, "comm")
	return err
}
