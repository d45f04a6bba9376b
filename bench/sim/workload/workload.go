package workload

// This file implements the data model: Workload, Group, Pipe, Thread and Op.

import (
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// A Workload is a set of threads with behaviour scripts, the pipes they talk through and the
// control groups they belong to. It is plain data: build it as a Go literal, [Parse] its text
// form or [ParseJSON] its JSON form, and check it with [Workload.Validate].
type Workload struct {
	// Groups are cgroup-v2 cpu control groups, each declared after its parent.
	Groups []Group `json:"groups,omitempty"`
	// Pipes are the channels threads send messages through and block on.
	Pipes []Pipe `json:"pipes,omitempty"`
	// Threads are the threads the machine creates when it starts (or at their Start time), and
	// the templates that Fork behaviours instantiate.
	Threads []Thread `json:"threads"`
}

// A Group is a control group of the cgroup v2 cpu controller.
type Group struct {
	// Name names the group; threads refer to it by name.
	Name string `json:"name"`
	// Parent is the name of the enclosing group, declared earlier; "" is the root group.
	Parent string `json:"parent,omitempty"`
	// Weight is cpu.weight, sched.MinWeight..sched.MaxWeight; 0 means sched.DefaultWeight.
	Weight uint64 `json:"weight,omitempty"`
	// Idle is cpu.idle: the group competes like a SCHED_IDLE thread.
	Idle bool `json:"idle,omitempty"`

	pos Pos
}

// A Pipe is a channel of messages with an optional capacity. Send puts a message in (blocking
// while the pipe holds Cap messages), Recv takes one out (blocking while it is empty); each wakes
// the first thread blocked on the other side, which then tries again, as a woken pipe reader or
// writer does. With Room, a full pipe's blocked senders wait until receives have made that
// much room, as a kernel's writer waits for more than one message's worth of space.
type Pipe struct {
	// Name names the pipe; behaviours refer to it by name.
	Name string `json:"name"`
	// Cap is the number of messages the pipe holds before senders block; 0 means unbounded.
	Cap int `json:"cap,omitempty"`
	// Room is the room, in messages, a receive must leave before it wakes the senders blocked
	// on the pipe; it then wakes as many as there is room for. 0 means 1: each receive wakes
	// one blocked sender. An AF_UNIX stream socket wakes its writers only once
	// sk_wmem_alloc has fallen to a quarter of sk_sndbuf (unix_writable, called by
	// unix_write_space), and then every one (a non-exclusive wait queue); a Linux pipe wakes a
	// writer when a whole page buffer has been read (pipe_read), which wakes the next while
	// room is left (pipe_write). Room needs Cap and is at most Cap.
	Room int `json:"room,omitempty"`

	pos Pos
}

// A Thread declares Count threads (or, as a template, the threads a Fork creates) with their
// scheduling attributes and a behaviour script.
type Thread struct {
	// Name names the declaration. With Count above 1 the instances are Name.0, Name.1, …; the
	// threads of a template are Name.0, Name.1, … in order of creation.
	Name string `json:"name"`
	// Template marks a declaration that the machine does not start: Fork behaviours create its
	// threads.
	Template bool `json:"template,omitempty"`
	// Count is the number of threads to start; 0 means 1. A template must leave it 0.
	Count int `json:"count,omitempty"`
	// Start delays the creation of the threads by this much simulated time. A template must
	// leave it 0.
	Start Duration `json:"start,omitempty"`
	// Class is the scheduling class.
	Class sched.Class `json:"class,omitempty"`
	// Nice is the nice value, sched.MinNice..sched.MaxNice.
	Nice int `json:"nice,omitempty"`
	// RTPrio is the real-time priority of a FIFO or RR thread, on the scale RTScale names:
	// sched_priority 1..99 for Linux (the default), rtprio(2)'s 0..31 for FreeBSD.
	RTPrio int `json:"rtprio,omitempty"`
	// RTScale is the system call RTPrio was written for (text form rtprio=freebsd:N); the
	// policy maps it onto its own levels or refuses it (sched.AttrChecker).
	RTScale sched.RTScale `json:"rtscale,omitempty"`
	// CPUs is the thread's affinity; the empty set means every CPU.
	CPUs topology.CPUSet `json:"cpus,omitzero"`
	// Group is the name of the thread's control group; "" is the root group.
	Group string `json:"group,omitempty"`
	// Slice is a requested time slice (sched_attr.sched_runtime); 0 is the policy's default.
	Slice Duration `json:"slice,omitempty"`
	// Slack is the thread's timer slack (prctl(PR_SET_TIMERSLACK), the kernel's
	// timer_slack_ns): hrtimer_nanosleep arms a sleep's timer for the range [deadline,
	// deadline+Slack] and, with no other timer to expire it early, it fires at the end of it.
	// Linux gives a SCHED_OTHER thread 50 µs unless it asks otherwise and a real-time one none;
	// 0 here is none (bench/host's threads ask for 1 ns, the least prctl takes).
	Slack Duration `json:"slack,omitempty"`
	// Process names the process (address space) the threads belong to: threads of declarations
	// with the same Process are threads of one process, so that a switch between them costs no
	// switch of address space (sim.Costs.SwitchMM). "" means a process of the declaration's own,
	// shared by its instances and, for a template, the threads forked from it.
	Process string `json:"process,omitempty"`
	// Ops is the behaviour script, run from the first op to the last; the thread exits after
	// the last.
	Ops []Op `json:"ops"`

	pos Pos
}

// Instances returns the number of threads the declaration starts: Count, or 1 when Count is 0,
// or 0 for a template.
func (t *Thread) Instances() int {
	switch {
	case t.Template:
		return 0
	case t.Count == 0:
		return 1
	}
	return t.Count
}

// Attr returns the scheduling attributes the declaration gives its threads, with the group named
// by Group resolved to id.
func (t *Thread) Attr(group sched.GroupID) sched.Attr {
	return sched.Attr{Class: t.Class, Nice: t.Nice, RTPrio: t.RTPrio, RTScale: t.RTScale, Affinity: t.CPUs,
		Group: group, Slice: int64(t.Slice)}
}

// A Kind is a behaviour: what an [Op] makes its thread do.
type Kind uint8

// The behaviours. The table says which fields of an Op each one uses; the others must be zero.
//
//	Kind     text form              fields     meaning
//	Run      run DIST               Time       compute for a duration of CPU work (forever: a hog)
//	Sleep    sleep DIST             Time       sleep for a duration
//	Send     send PIPE [N]          Name, N    put N messages (0 means 1) into a pipe
//	Recv     recv PIPE [N]          Name, N    take N messages (0 means 1) out of a pipe
//	Fork     fork TEMPLATE [N]      Name, N    create N threads (0 means 1) of a template
//	Join     join                   -          wait until every child has exited
//	Yield    yield                  -          give up the CPU (sched_yield)
//	Exit     exit                   -          exit now
//	Loop     loop … end             Body       repeat Body forever
//	Repeat   repeat N … end         N, Body    repeat Body N times (N ≥ 1)
//	Every    every PERIOD [N]       Time, N,   run Body once per period, N times in all (0:
//	         [phase=PHASE] … end    Phase,     forever); see [PhaseMode] for when the periods
//	                                PhaseMode, start; a period missed while Body overran is
//	                                Body       skipped, so each period's wake-up latency is
//	                                           measured as schbench does
//	Nice     nice N                 N          set the nice value
//	SetClass class CLASS [RTPRIO]   Class, N,  set the scheduling class and real-time priority
//	                                RTScale    (RTPRIO is N or freebsd:N, as rtprio= is)
//	SetCPUs  cpus LIST              CPUs       set the affinity (a cpulist such as 0-3,8)
//	SetGroup group NAME             Name       move to another control group
//	Poll     poll PIPE DIST [N]     Name,      take N messages (0 means 1) out of a pipe without
//	                                Time, N    sleeping: while fewer are there, compute for DIST
//	                                           and yield (sched_yield), again and again, as MPI
//	                                           libraries wait when the CPUs are oversubscribed
//	Until    until PIPE [N] … end   Name, N,   while the pipe holds fewer than N messages (0
//	                                Body       means 1), run Body; then take them as Recv does:
//	                                           a process that sleeps in poll(2) or select(2) on
//	                                           several descriptors, Body waiting on the others
//	                                           (make waking for its jobs' output until one exits)
//	Spin     spin DIST              Time       compute until a duration of wall-clock time has
//	                                           passed since the op began, as a loop that reads
//	                                           the clock until it has moved on that far
//	                                           (schbench's usec_spin): time spent preempted
//	                                           counts, and a thread preempted past the end
//	                                           stops as soon as it runs again
const (
	Run Kind = iota
	Sleep
	Send
	Recv
	Fork
	Join
	Yield
	Exit
	Loop
	Repeat
	Every
	Nice
	SetClass
	SetCPUs
	SetGroup
	Poll
	Until
	Spin
	numKinds
)

var kindNames = [numKinds]string{Run: "run", Sleep: "sleep", Send: "send", Recv: "recv", Fork: "fork",
	Join: "join", Yield: "yield", Exit: "exit", Loop: "loop", Repeat: "repeat", Every: "every",
	Nice: "nice", SetClass: "class", SetCPUs: "cpus", SetGroup: "group", Poll: "poll",
	Until: "until", Spin: "spin"}

// String returns the keyword of k in the text form, such as "run" or "class".
func (k Kind) String() string { return sched.EnumName(kindNames[:], k, "kind") }

// block reports whether k has a body, which the text form closes with end.
func (k Kind) block() bool { return k == Loop || k == Repeat || k == Every || k == Until }

// ParseKind returns the behaviour whose keyword is s.
func ParseKind(s string) (Kind, bool) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), true
		}
	}
	return 0, false
}

// MarshalText implements encoding.TextMarshaler with the keyword of [Kind.String].
func (k Kind) MarshalText() ([]byte, error) {
	if k >= numKinds {
		return nil, &Error{Msg: "unknown behaviour " + k.String()}
	}
	return []byte(k.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with the keywords of [Kind.String].
func (k *Kind) UnmarshalText(text []byte) error {
	x, ok := ParseKind(string(text))
	if !ok {
		return &Error{Msg: "unknown behaviour " + quote(string(text))}
	}
	*k = x
	return nil
}

// An Op is one step of a behaviour script; see [Kind] for the fields each behaviour uses.
type Op struct {
	// Kind is the behaviour.
	Kind Kind `json:"op"`
	// Time is the duration of Run, Sleep and Spin, the period of Every and the CPU of each try of
	// Poll.
	Time Dist `json:"time,omitzero"`
	// Name is the pipe of Send, Recv, Poll and Until, the template of Fork and the group of SetGroup.
	Name string `json:"name,omitempty"`
	// N is a count (Send, Recv, Poll, Until, Fork, Repeat, Every), the nice value (Nice) or the real-time
	// priority (SetClass).
	N int `json:"n,omitempty"`
	// Class is the class of SetClass.
	Class sched.Class `json:"class,omitempty"`
	// RTScale is the scale of SetClass's real-time priority N (see Thread.RTScale).
	RTScale sched.RTScale `json:"rtscale,omitempty"`
	// Phase and PhaseMode say when the periods of Every start.
	Phase     Duration  `json:"phase,omitempty"`
	PhaseMode PhaseMode `json:"phase_mode,omitempty"`
	// CPUs is the affinity of SetCPUs.
	CPUs topology.CPUSet `json:"cpus,omitzero"`
	// Body is the script a Loop, Repeat, Every or Until repeats.
	Body []Op `json:"body,omitempty"`

	pos Pos
}

// RunOp returns the op that computes for d.
func RunOp(d Dist) Op { return Op{Kind: Run, Time: d} }

// SpinOp returns the op that computes until d of wall-clock time has passed since it began.
func SpinOp(d Dist) Op { return Op{Kind: Spin, Time: d} }

// SleepOp returns the op that sleeps for d.
func SleepOp(d Dist) Op { return Op{Kind: Sleep, Time: d} }

// SendOp returns the op that sends n messages into the named pipe.
func SendOp(pipe string, n int) Op { return Op{Kind: Send, Name: pipe, N: n} }

// RecvOp returns the op that receives n messages from the named pipe.
func RecvOp(pipe string, n int) Op { return Op{Kind: Recv, Name: pipe, N: n} }

// PollOp returns a Poll of n messages from pipe, each empty try costing spin of CPU time
// before a yield.
func PollOp(pipe string, spin Dist, n int) Op { return Op{Kind: Poll, Name: pipe, Time: spin, N: n} }

// UntilOp returns the op that runs body again and again while pipe holds fewer than n
// messages, and then takes n messages out of it.
func UntilOp(pipe string, n int, body ...Op) Op { return Op{Kind: Until, Name: pipe, N: n, Body: body} }

// ForkOp returns the op that creates n threads of the named template.
func ForkOp(template string, n int) Op { return Op{Kind: Fork, Name: template, N: n} }

// LoopOp returns the op that repeats body forever.
func LoopOp(body ...Op) Op { return Op{Kind: Loop, Body: body} }

// RepeatOp returns the op that repeats body n times.
func RepeatOp(n int, body ...Op) Op { return Op{Kind: Repeat, N: n, Body: body} }

// EveryOp returns the op that runs body once per period, n times in all (0: forever), with the
// periods at the multiples of period (phase 0).
func EveryOp(period Duration, n int, body ...Op) Op {
	return Op{Kind: Every, Time: Fixed(period), N: n, Body: body}
}

// A PhaseMode says when the periods of an Every start. With Phase φ and period P:
//
//	mode          text form                  periods start at
//	PhaseAbsolute phase=φ (default phase=0)  φ + k·P in absolute simulated time, k = 0, 1, …
//	PhaseStagger  phase=stagger[+φ]          φ + i·P/N + k·P for instance i of a count=N thread
//	PhaseArrival  phase=arrival[+φ]          a + φ + k·P, a being when the thread reached the every
//
// With PhaseAbsolute and PhaseStagger, threads with the same phase wake together whenever they
// reached their every: the first period is the first that starts at or after the moment the
// thread became runnable to reach it (its creation, or its last wake-up). If that moment is
// already past when the thread gets there (it waited in the run queue after being created), the
// body runs at once and that wait counts as the period's wake-up latency. PhaseArrival is the
// behaviour before phases existed: the first period starts when the thread reaches the every,
// and its body runs at once.
type PhaseMode uint8

const (
	// PhaseAbsolute starts the periods at Phase + k·P.
	PhaseAbsolute PhaseMode = iota
	// PhaseStagger spreads the instances of a count=N thread evenly over the period.
	PhaseStagger
	// PhaseArrival starts the periods when the thread reaches the every.
	PhaseArrival
	numPhaseModes
)

var phaseModeNames = [numPhaseModes]string{"absolute", "stagger", "arrival"}

// String returns the mode's name: "absolute", "stagger" or "arrival".
func (m PhaseMode) String() string { return sched.EnumName(phaseModeNames[:], m, "phasemode") }

// MarshalText implements encoding.TextMarshaler with the names of [PhaseMode.String].
func (m PhaseMode) MarshalText() ([]byte, error) {
	if m >= numPhaseModes {
		return nil, &Error{Msg: "unknown phase mode " + m.String()}
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with the names of [PhaseMode.String].
func (m *PhaseMode) UnmarshalText(b []byte) error {
	for i, n := range phaseModeNames {
		if n == string(b) {
			*m = PhaseMode(i)
			return nil
		}
	}
	return &Error{Msg: "unknown phase mode " + quote(string(b)) + " (want absolute, stagger or arrival)"}
}

// A Pos is a position in a text form: a line and a column, both counted from 1 (columns in
// characters). The zero Pos means "no position".
type Pos struct {
	Line, Col int
}
