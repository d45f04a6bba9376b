package trace

// This file implements what ReadKTR and WriteKTR share: the line of `ktrdump -ct` that
// FreeBSD's tools/sched/schedgraph.py reads, and FreeBSD's priority ranges.
//
// The format, as schedgraph.py's KTRFile.parse reads it (FreeBSD tools/sched/schedgraph.py,
// the KTRGRAPH parser since 2009) and sys/sys/ktr.h writes it (KTR_EFMT and the KTR_STATE,
// KTR_COUNTER and KTR_POINT macros):
//
//	INDEX CPU TIMESTAMP KTRGRAPH group:"GROUP", id:"ID", TYPE:DATA, attributes: ATTRS
//
// ktrdump -c adds the CPU column, -t the timestamp (the raw cycle counter, get_cyclecount(9):
// the TSC on amd64), each line "%6d %3d %16ju " before the message; ktrdump prints the ring
// from the newest entry to the oldest, and schedgraph.py drops a line whose timestamp is more
// than 2048 ticks above the previous line's (checkstamp), so the file runs newest first. Lines
// that are not KTRGRAPH (ktrdump's two heading lines, other KTR classes) are skipped. TYPE is
// state (DATA quoted: the source's state from this point until its next state event), counter
// (DATA a number: a value from this point) or point (DATA quoted: an instant). ATTRS is "none"
// (KTR_EVENT0) or "name:value" pairs separated by ", ", a value quoted when it holds ',' or ':'
// (wmesg:"select", linkedto:"sh tid 100081"). KTR_ATTR_LINKED, linkedto:"ID", names another
// source. The clock: schedgraph.py takes a rate in GHz as its second argument; without it, it
// counts the statclock points (their stathz:N attribute) on CPU 0 and takes
// ticks/s = span / count × stathz; without those, 1 GHz (a tick is a nanosecond).
//
// KTR_SCHED's events (sys/kern/sched_ule.c, sched_4bsd.c, kern_clock.c), each on group
// "thread" and id "NAME tid TID" (sched_tdname: td_name, td_tid), unless said:
//
//	state "running" prio            the thread runs from now (logged by it after cpu_switch)
//	state "sleep", "suspended",     it switched out blocked (KTDSTATE of td_inhibitors),
//	  "swapped", "blocked", "iwait"   prio, wmesg, lockname
//	state "yielding"                it switched out still runnable (preempted, yielded)
//	state "idle"                    the CPU's idle thread switched out: the CPU has work
//	state "runq add" prio, linkedto it was put on a run queue (sched_add) by linkedto, the thread
//	                                running (curthread): a wake-up, a new thread, a re-add
//	state "runq rem" prio           taken off a run queue without running (sched_rem)
//	state "thread exit", "proc exit" it exits (sched_exit_thread, sched_exit)
//	state "spinning" lockname       it spins on a lock (still running)
//	point "wokeup" linkedto         on the waker: it woke linkedto
//	point "prio" (ULE), "priority   its priority changes from prio to new prio, by linkedto
//	  change" (4BSD) prio, new prio,
//	  linkedto
//	point "lend prio"               on the lender: priority propagation
//	point "statclock" prio, stathz  a statistics clock tick on the thread's CPU
//	counter, group "load", id       the CPU's thread count (tdq_load: running and queued), or
//	  "CPU N load" / "global load"    4BSD's global sched_tdcnt
//
// The idle threads are "idle: cpuN" (td_name of the idle process's threads).

import (
	"strconv"
	"strings"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/ule"
)

// A ktrLine is one parsed KTRGRAPH line.
type ktrLine struct {
	index, cpu int
	ts         int64
	group, id  string
	etype      string // state, counter, point
	data       string // the state or point name, or the counter's value
	attrs      string // the attributes' text, "none" for none
}

// parseKTRLine parses line. It reports false for a line that is not a KTRGRAPH line (which
// schedgraph.py skips too), and an error for a KTRGRAPH line that does not parse.
func parseKTRLine(line string) (l ktrLine, ok bool, err *fieldError) {
	k := strings.Index(line, "KTRGRAPH ")
	if k < 0 {
		return l, false, nil
	}
	nums := strings.Fields(line[:k])
	if len(nums) != 3 {
		return l, false, badField("columns", "want index, cpu and timestamp before KTRGRAPH (ktrdump -ct), got %q", clip(line[:k]))
	}
	var e error
	if l.index, e = strconv.Atoi(nums[0]); e != nil || l.index < 0 {
		return l, false, badField("index", "%q is not an index", clip(nums[0]))
	}
	if l.cpu, e = strconv.Atoi(nums[1]); e != nil || l.cpu < 0 || l.cpu >= maxCPU {
		return l, false, badField("cpu", "%q is not a CPU", clip(nums[1]))
	}
	ts, e := strconv.ParseUint(nums[2], 10, 63)
	if e != nil {
		return l, false, badField("timestamp", "%q is not a tick count", clip(nums[2]))
	}
	l.ts = int64(ts)
	rest := line[k+len("KTRGRAPH "):]
	if l.group, rest, ok = quotedField(rest, "group:"); !ok {
		return l, false, badField("group", "want group:\"GROUP\", in %q", clip(rest))
	}
	if l.id, rest, ok = quotedField(rest, "id:"); !ok {
		return l, false, badField("id", "want id:\"ID\", in %q", clip(rest))
	}
	colon := strings.IndexByte(rest, ':')
	if colon < 0 {
		return l, false, badField("type", "want TYPE:DATA in %q", clip(rest))
	}
	l.etype, rest = rest[:colon], rest[colon+1:]
	if strings.HasPrefix(rest, `"`) {
		end := strings.IndexByte(rest[1:], '"')
		if end < 0 {
			return l, false, badField(l.etype, "unterminated quote in %q", clip(rest))
		}
		l.data, rest = rest[1:1+end], rest[2+end:]
	} else {
		comma := strings.IndexByte(rest, ',')
		if comma < 0 {
			return l, false, badField(l.etype, "no attributes after %q", clip(rest))
		}
		l.data, rest = rest[:comma], rest[comma:]
	}
	attrs, found := strings.CutPrefix(rest, ", attributes: ")
	if !found {
		return l, false, badField("attributes", "want \", attributes: \" in %q", clip(rest))
	}
	l.attrs = strings.TrimRight(attrs, " \r\n")
	return l, true, nil
}

// quotedField cuts `key"VALUE", ` off the start of s.
func quotedField(s, key string) (value, rest string, ok bool) {
	s, found := strings.CutPrefix(s, key+`"`)
	if !found {
		return "", s, false
	}
	end := strings.Index(s, `", `)
	if end < 0 {
		return "", s, false
	}
	return s[:end], s[end+3:], true
}

// attr returns the value of attribute name in attrs (its quotes taken off), and whether it is
// there. Names are matched whole: "prio" does not find "new prio".
func attr(attrs, name string) (string, bool) {
	for attrs != "" && attrs != "none" {
		var pair string
		// A pair ends at ", " outside quotes.
		inQuote, end := false, len(attrs)
		for i := 0; i < len(attrs); i++ {
			switch {
			case attrs[i] == '"':
				inQuote = !inQuote
			case !inQuote && attrs[i] == ',' && i+1 < len(attrs) && attrs[i+1] == ' ':
				end = i
			}
			if end < len(attrs) {
				break
			}
		}
		pair, attrs = attrs[:end], strings.TrimPrefix(attrs[end:], ", ")
		n, v, found := strings.Cut(pair, ":")
		if !found {
			continue
		}
		n = strings.Trim(strings.TrimSpace(n), `"`)
		if n == name {
			return strings.Trim(strings.TrimSpace(v), `"`), true
		}
	}
	return "", false
}

// intAttr returns attribute name as an int, and whether it is there and a number.
func intAttr(attrs, name string) (int, bool) {
	v, ok := attr(attrs, name)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	return n, err == nil
}

// splitTdname splits sched_tdname's "NAME tid TID" into the name and the tid; an id of
// another form is its own name, with tid -1.
func splitTdname(id string) (name string, tid int) {
	i := strings.LastIndex(id, " tid ")
	if i < 0 {
		return id, -1
	}
	n, err := strconv.Atoi(id[i+5:])
	if err != nil || n < 0 {
		return id, -1
	}
	return id[:i], n
}

// isIdleThread reports whether a thread named name is a CPU's idle thread ("idle: cpuN").
func isIdleThread(name string) bool { return strings.HasPrefix(name, "idle: cpu") || name == "idle" }

// ktrAttr returns the attributes a FreeBSD priority implies, in layout l, and whether it says
// anything: an interrupt thread's (PRI_MIN_ITHD..PRI_MAX_ITHD) runs as rtprio level 0, a
// real-time one's (PRI_MIN_REALTIME..PRI_MAX_REALTIME) as FIFO at level prio-PRI_MIN_REALTIME,
// an idle-class one's (PRI_MIN_IDLE..) as SCHED_IDLE, a time-sharing one's as SCHED_OTHER with
// nice (which the priority does not tell: the "nice" attribute WriteKTR adds, or 0); a kernel
// priority (PRI_MIN_KERN..PRI_MAX_KERN, a thread sleeping or woken in the kernel) says nothing.
func ktrAttr(prio, nice int, l *ule.Layout) (sched.Attr, bool) {
	switch {
	case prio < 0 || prio > 255:
		return sched.Attr{}, false
	case prio <= int(l.MaxIthd):
		return sched.Attr{Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD}, true
	case prio <= int(l.MaxRealtime):
		return sched.Attr{Class: sched.FIFO, RTPrio: prio - int(l.MinRealtime), RTScale: sched.RTFreeBSD}, true
	case prio <= int(l.MaxKern):
		return sched.Attr{}, false
	case prio <= int(l.MaxTimeshare):
		return sched.Attr{Nice: min(max(nice, sched.MinNice), sched.MaxNice)}, true
	}
	return sched.Attr{Class: sched.Idle}, true
}

// ktrPrio returns the FreeBSD priority WriteKTR prints for attributes a in layout l: 4BSD's
// time-sharing priority of a thread with no CPU history, PUSER + NICE_WEIGHT·(nice − PRIO_MIN)
// (resetpriority with td_estcpu 0), for SCHED_OTHER and SCHED_BATCH; PRI_MIN_REALTIME + the
// rtprio level for FIFO and RR (a Linux sched_priority through FreeBSDRTPrio); PRI_MIN_IDLE for
// SCHED_IDLE. The policies' own priorities change with the CPU a thread uses, which the
// simulator's records do not carry.
func ktrPrio(a sched.Attr, l *ule.Layout) int {
	switch {
	case a.Class.RealTime():
		lvl := a.RTPrio
		if a.RTScale == sched.RTLinux {
			lvl = FreeBSDRTPrio(a.RTPrio)
		}
		return int(l.MinRealtime) + min(max(lvl, 0), sched.MaxFreeBSDRTPrio)
	case a.Class == sched.Idle:
		return int(l.MinIdle)
	}
	return int(l.MinTimeshare) + min(max(a.Nice, sched.MinNice), sched.MaxNice) - sched.MinNice
}
