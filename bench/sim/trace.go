package sim

// This file implements Trace: the compact record of what happened during a run.

import (
	"fmt"
	"io"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// NoCPU stands for "no CPU" in a [Record]'s CPU field and in Other when it holds a CPU.
const NoCPU topology.CPU = 0xFFFF

// A Kind is what a [Record] reports.
type Kind uint8

// The record kinds, with the meaning of each Record field (Thread and Other are -1 when no thread
// is concerned; Other holds a CPU as an int32, NoCPU when there is none).
//
//	Kind       CPU                Thread          Other                 Arg
//	Fork       creating CPU       the new thread  the parent            0
//	Wakeup     the waker's CPU    the woken       the waker             sched.WakeFlags
//	Switch     the CPU            the next        the previous          previous's sched.StopReason
//	Migrate    the destination    the migrant     the source CPU        0
//	Resched    the target CPU     the requester's the requesting CPU    the Call during which
//	                              running thread                        the policy asked
//	IPI        the target CPU     -1              the sending CPU       0
//	Exit       the CPU            the exiting     the parent            0
//	SetAttr    the thread's CPU   the thread      nice+64, class<<8,    0
//	                                              rtprio<<16
//	Explain    as the policy said as it said      index in Strings      the Call
//	Violation  the CPU concerned  the thread      -1                    the Invariant
//
// A switch to or from the idle loop has Thread or Other -1; a preempted thread that the policy
// picks again at once produces a Resched but no Switch, as in the kernels' sched_switch
// tracepoint, which fires only when the thread changes. The previous thread's state in
// sched_switch terms follows from Arg: Sleep is S, Preempt and Yield are R, Exit is X. A
// Wakeup does not say which CPU's queue the policy chose (ftrace's target_cpu): it is the CPU of
// the next Switch to the thread.
const (
	KindFork Kind = iota
	KindWakeup
	KindSwitch
	KindMigrate
	KindResched
	KindIPI
	KindExit
	KindSetAttr
	KindExplain
	KindViolation
	numKinds
)

var kindNames = [numKinds]string{"fork", "wakeup", "switch", "migrate", "resched", "ipi", "exit",
	"setattr", "explain", "violation"}

// String returns the lower-case name of k, such as "switch".
func (k Kind) String() string { return sched.EnumName(kindNames[:], k, "kind") }

// A Call names the Policy method the machine was in when the policy asked for a reschedule or
// explained itself; CallMachine is the machine's own doing (moving a thread off a CPU its new
// affinity excludes).
type Call uint8

// The calls.
const (
	CallMachine Call = iota
	CallFork
	CallWakeup
	CallPick
	CallStop
	CallTick
	CallSetAttr
	numCalls
)

var callNames = [numCalls]string{"machine", "fork", "wakeup", "pick", "stop", "tick", "setattr"}

// String returns the lower-case name of c, such as "tick".
func (c Call) String() string { return sched.EnumName(callNames[:], c, "call") }

// A Record is one entry of a [Trace]: 24 bytes, with fields whose meaning depends on Kind.
type Record struct {
	// Time is when it happened, in nanoseconds of simulated time.
	Time int64
	// Thread is the thread concerned, or -1.
	Thread sched.ID
	// Other is a second thread, a CPU or an index, by Kind.
	Other int32
	// CPU is the CPU concerned, or NoCPU.
	CPU topology.CPU
	// Kind is what the record reports.
	Kind Kind
	// Arg is a small argument, by Kind.
	Arg uint8
}

// A Trace is what a run recorded: with TraceFull every record, with TraceHash only their count
// and hash. Records are in the order things happened; records of the same time are in the order
// the machine handled them.
type Trace struct {
	// Records are the records, empty unless the mode was TraceFull.
	Records []Record
	// Strings are the texts of explanations, indexed by the Other field of Explain records.
	Strings []string
	// Threads describes each thread as it was created, indexed by ID: what exporters need for
	// the comm and priority fields of sched_switch and sched_wakeup.
	Threads []ThreadInfo

	keep bool
	n    int
	hash uint64
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func newTrace(mode TraceMode) *Trace {
	if mode == TraceOff {
		return nil
	}
	return &Trace{keep: mode == TraceFull, hash: fnvOffset}
}

// Hash returns a 64-bit FNV-1a-style hash of every record (taken as three little-endian words:
// Time; Kind, Arg, CPU and Thread; Other), of every explanation text and of every thread's name,
// parent, class, nice and real-time priority, in the order they were recorded. Two runs with the same Hash almost surely recorded the same
// trace. It does not depend on the architecture.
func (t *Trace) Hash() uint64 { return t.hash }

// Len returns the number of records made, kept or not.
func (t *Trace) Len() int { return t.n }

func (t *Trace) mix(w uint64) { t.hash = (t.hash ^ w) * fnvPrime }

func (t *Trace) mixString(s string) {
	for i := 0; i < len(s); i++ {
		t.hash = (t.hash ^ uint64(s[i])) * fnvPrime
	}
	t.mix(uint64(len(s)))
}

func (t *Trace) add(r Record) {
	t.n++
	t.mix(uint64(r.Time))
	t.mix(uint64(r.Kind) | uint64(r.Arg)<<8 | uint64(r.CPU)<<16 | uint64(uint32(r.Thread))<<32)
	t.mix(uint64(uint32(r.Other)))
	if t.keep {
		t.Records = append(t.Records, r)
	}
}

// A ThreadInfo describes a thread of a [Trace]: its name, parent and attributes at creation
// (later changes are SetAttr records).
type ThreadInfo struct {
	// Name is the thread's name, such as "hog.3".
	Name string
	// Parent is the creating thread, or -1.
	Parent sched.ID
	// Attr are the attributes the thread was created with.
	Attr sched.Attr
}

func (t *Trace) addThread(ti ThreadInfo) {
	t.mixString(ti.Name)
	t.mix(uint64(uint32(ti.Parent)) | uint64(ti.Attr.Class)<<32 | uint64(uint8(ti.Attr.Nice+64))<<40 |
		uint64(uint8(ti.Attr.RTPrio))<<48)
	t.Threads = append(t.Threads, ti)
}

func (t *Trace) addString(s string) int32 {
	t.mixString(s)
	t.Strings = append(t.Strings, s)
	return int32(len(t.Strings) - 1)
}

// name returns the name of thread id, or "idle" for -1.
func (t *Trace) name(id sched.ID) string {
	if id < 0 || int(id) >= len(t.Threads) {
		return "idle"
	}
	return t.Threads[id].Name
}

// Format returns r as one line of text, naming threads from t: the time in seconds with nine
// decimals, the CPU, the kind and its fields, such as
// "0.004000000 cpu1 switch hog.0 -> idle (sleep)".
func (t *Trace) Format(r Record) string {
	s := fmt.Sprintf("%d.%09d ", r.Time/1e9, r.Time%1e9)
	if r.CPU != NoCPU {
		s += r.CPU.String() + " "
	} else {
		s += "- "
	}
	s += r.Kind.String()
	cpu := func(c int32) string {
		if topology.CPU(c) == NoCPU {
			return "-"
		}
		return topology.CPU(c).String()
	}
	switch r.Kind {
	case KindFork:
		s += " " + t.name(r.Thread) + " by " + t.nameOr(r.Other, "machine")
	case KindWakeup:
		waker := "timer"
		if sched.WakeFlags(r.Arg)&sched.WakeFork != 0 {
			waker = "machine"
		}
		s += " " + t.name(r.Thread) + " by " + t.nameOr(r.Other, waker)
		if f := sched.WakeFlags(r.Arg); f != 0 {
			if f&sched.WakeFork != 0 {
				s += " fork"
			}
			if f&sched.WakeSync != 0 {
				s += " sync"
			}
		}
	case KindSwitch:
		s += " " + t.name(sched.ID(r.Other)) + " -> " + t.name(r.Thread)
		if r.Other >= 0 {
			s += " (" + sched.StopReason(r.Arg).String() + ")"
		}
	case KindMigrate:
		s += " " + t.name(r.Thread) + " from " + cpu(r.Other)
	case KindResched:
		s += " from " + cpu(r.Other) + " in " + Call(r.Arg).String()
	case KindIPI:
		s += " from " + cpu(r.Other)
	case KindExit:
		s += " " + t.name(r.Thread)
	case KindSetAttr:
		s += fmt.Sprintf(" %s class=%s nice=%d rtprio=%d", t.name(r.Thread), sched.Class(r.Other>>8&0xff),
			r.Other&0xff-64, r.Other>>16)
	case KindExplain:
		text := ""
		if r.Other >= 0 && int(r.Other) < len(t.Strings) {
			text = t.Strings[r.Other]
		}
		s += " " + t.nameOr(int32(r.Thread), "-") + " in " + Call(r.Arg).String() + ": " + text
	case KindViolation:
		s += " " + Invariant(r.Arg).String() + " " + t.name(r.Thread)
	}
	return s
}

func (t *Trace) nameOr(id int32, none string) string {
	if id < 0 {
		return none
	}
	return t.name(sched.ID(id))
}

// WriteText writes every kept record to w, one line each in the form of [Trace.Format].
func (t *Trace) WriteText(w io.Writer) error {
	for _, r := range t.Records {
		if _, err := io.WriteString(w, t.Format(r)+"\n"); err != nil {
			return err
		}
	}
	return nil
}
