package bsd4

import (
	"fmt"

	"github.com/schedkit/schedkit/topology"
)

// This file implements Effect, what a System's clock interrupt or attribute change asks of the
// machine.

// An EffectKind says what an [Effect] asks for.
type EffectKind uint8

const (
	// EffectWake: sched_add queued Thread again (a requeue after a priority change, an
	// affinity change or a binding, made in kernel context) and tells the CPUs of Wake.
	EffectWake EffectKind = iota
	// EffectExpire: Thread, running on CPU, used up its quantum (TDF_NEEDRESCHED; with
	// SliceQuantum also TDF_SLICEEND, which sends it to the tail of its queue).
	EffectExpire
	// EffectIdlePoll: CPU is idle and its clock interrupt found a runnable thread
	// (sched_runnable in the idle loop).
	EffectIdlePoll
	// EffectMoveAway: Thread, running on CPU, may no longer run there (sched_affinity,
	// sched_bind: TDF_NEEDRESCHED and IPI_AST).
	EffectMoveAway
)

// An Effect is one thing a [System] change asks of the machine: reschedule one CPU (CPU), or
// the CPUs of a Wake. The System has already recorded it (TDF_NEEDRESCHED, td_owepreempt); the
// machine has only to act. Its reason is part of it, so that explaining it costs nothing more
// than formatting.
type Effect struct {
	Kind EffectKind
	// Thread is the thread concerned; nil for EffectIdlePoll.
	Thread *Thread
	// CPU is the CPU to reschedule, for every kind but EffectWake.
	CPU topology.CPU
	// Wake and WakeReason are sched_add's decision, for EffectWake.
	Wake       Wake
	WakeReason WakeReason
	// Tick is the quantum check that expired, for EffectExpire.
	Tick TickReason
}

// String explains the effect, for example "slice of 12 stathz ticks used up; refilled".
func (e *Effect) String() string {
	switch e.Kind {
	case EffectWake:
		return e.WakeReason.String()
	case EffectExpire:
		return e.Tick.String()
	case EffectIdlePoll:
		return fmt.Sprintf("%v's idle loop finds a runnable thread (sched_runnable) at its clock interrupt", e.CPU)
	case EffectMoveAway:
		return fmt.Sprintf("%v may no longer run on %v: reschedule it", e.Thread.ID, e.CPU)
	}
	return fmt.Sprintf("Effect(%d)", e.Kind)
}
