package workload_test

import (
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestValidatePaths checks workloads built as Go values: errors carry the path of the element.
func TestValidatePaths(t *testing.T) {
	run := []workload.Op{workload.RunOp(workload.Fixed(1000))}
	cases := []struct {
		name string
		w    workload.Workload
		want string
	}{
		{"ok", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: run}}}, ""},
		{"no name", workload.Workload{Threads: []workload.Thread{{Ops: run}}}, "threads[0]: thread without a name"},
		{"negative count", workload.Workload{Threads: []workload.Thread{{Name: "a", Count: -1}}}, "threads[0]: count -1 outside 1..1048576"},
		{"too many threads", workload.Workload{Threads: []workload.Thread{{Name: "a", Count: 1 << 20}, {Name: "b"}}}, "threads[1]: more than 1048576 threads"},
		{"template with start", workload.Workload{Threads: []workload.Thread{{Name: "a", Template: true, Start: 5}}}, `threads[0]: template "a" has a start time; Fork says when`},
		{"group weight", workload.Workload{Groups: []workload.Group{{Name: "g", Weight: 10001}}}, "groups[0]: weight 10001 outside 1..10000"},
		{"group twice", workload.Workload{Groups: []workload.Group{{Name: "g"}, {Name: "g"}}}, `groups[1]: group "g" declared twice`},
		{"pipe capacity", workload.Workload{Pipes: []workload.Pipe{{Name: "p", Cap: -1}}}, "pipes[0]: capacity -1 outside 0..1048576"},
		{"pipe room", workload.Workload{Pipes: []workload.Pipe{{Name: "p", Cap: 3, Room: 4}}}, "pipes[0]: room 4 outside 0..3 (the capacity; an unbounded pipe has none)"},
		{"room without capacity", workload.Workload{Pipes: []workload.Pipe{{Name: "p", Room: 1}}}, "pipes[0]: room 1 outside 0..0 (the capacity; an unbounded pipe has none)"},
		{"bad kind", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{{Kind: 99}}}}}, "threads[0].ops[0]: unknown behaviour 99"},
		{"bad dist", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{workload.RunOp(workload.Dist{Kind: workload.Exp})}}}}, "threads[0].ops[0]: run: exp(0s): the mean must be within 1ns..78h11m14.976710656s"},
		{"every period", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{workload.EveryOp(0, 0, run...)}}}}, "threads[0].ops[0]: every: the period must be a positive constant duration, not 0s"},
		{"class field on nice", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{{Kind: workload.Nice, Class: sched.RR}}}}}, "threads[0].ops[0]: nice does not take class"},
		{"deep", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: nest(workload.MaxDepth + 2)}}}, "blocks nested deeper than 32"},
		{"body of run", workload.Workload{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{{Kind: workload.Run, Body: run}}}}}, "threads[0].ops[0]: run does not take body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.w.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func nest(depth int) []workload.Op {
	ops := []workload.Op{workload.RunOp(workload.Fixed(1))}
	for range depth {
		ops = []workload.Op{workload.RepeatOp(2, ops...)}
	}
	return ops
}

func TestKindText(t *testing.T) {
	for k := workload.Run; k <= workload.SetGroup; k++ {
		text, err := k.MarshalText()
		require.NoError(t, err)
		var back workload.Kind
		require.NoError(t, back.UnmarshalText(text))
		assert.Equal(t, k, back)
	}
	_, err := workload.Kind(99).MarshalText()
	assert.Error(t, err)
	assert.Equal(t, "kind(99)", workload.Kind(99).String())
}

// TestValidateAcceptsWhatTakesTime checks the other side of the rules on time: workloads whose
// loops take time and whose repetitions at one instant stay within MaxInstant validate.
func TestValidateAcceptsWhatTakesTime(t *testing.T) {
	cases := []struct{ name, text string }{
		{"loop of run 1ns", "thread x\n\tloop\n\t\trun 1ns\n\tend\nend"},
		{"loop of sleep uniform(0,1ns)", "thread x\n\tloop\n\t\tsleep uniform(0s,1ns)\n\tend\nend"},
		{"loop of every", "thread x\n\tloop\n\t\tevery 1ms 2\n\t\t\tyield\n\t\tend\n\tend\nend"},
		{"loop of repeated run", "thread x\n\tloop\n\t\trepeat 2\n\t\t\tyield\n\t\t\trun 1us\n\t\tend\n\tend\nend"},
		{"repeat of MaxInstant yields", "thread x\n\trepeat 1048576\n\t\tyield\n\tend\nend"},
		{"nested repeats at MaxInstant", "thread x\n\trepeat 1024\n\t\trepeat 1024\n\t\t\tyield\n\t\tend\n\tend\nend"},
		{"time resets the count", "thread x\n\trepeat 2147483647\n\t\trun 1ms\n\t\trepeat 1048576\n\t\t\tyield\n\t\tend\n\tend\nend"},
		{"send at MaxInstant", "pipe p\nthread x\n\trepeat 1024\n\t\tsend p 1024\n\tend\nend"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := workload.Parse(tc.text)
			assert.NoError(t, err, "Parse(%q)", tc.text)
		})
	}
}
