package sched_test

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// TestContractFork checks that Contract.Fork makes each of its four checks, in order: a call
// that breaks two of them panics with the first one's message.
func TestContractFork(t *testing.T) {
	for _, tc := range []struct {
		name   string
		now    int64
		cpu    topology.CPU
		attr   sched.Attr
		parent sched.ID
		known  bool
		want   string // the panic's message starts with it; "" for none
	}{
		{"valid", 10, 1, sched.Attr{}, 3, true, ""},
		{"machine's thread", 10, 1, sched.Attr{}, -1, false, ""},
		{"time backwards", 4, 9, sched.Attr{Nice: 99}, 3, false, "x: Fork at 4, before"},
		{"CPU not in the machine", 10, 9, sched.Attr{Nice: 99}, 3, false, "x: Fork on cpu9"},
		{"invalid attributes", 10, 1, sched.Attr{Nice: 99}, 3, false, "x: Fork of t5 with invalid attributes"},
		{"affinity outside the machine", 10, 1, sched.Attr{Affinity: topology.CPUSetOf(7)}, 3, true, "x: Fork of t5 with affinity"},
		{"unknown parent", 10, 1, sched.Attr{}, 3, false, "x: Fork of t5 by unknown parent t3"},
	} {
		c := sched.Contract{Pkg: "x"}
		c.Start(topology.Uniform(1, 1, 1, 2, 1))
		c.Time("Tick", 5)
		got := func() (msg string) {
			defer func() {
				if r := recover(); r != nil {
					msg, _ = r.(string)
				}
			}()
			c.Fork(tc.now, 5, tc.parent, tc.cpu, &tc.attr, tc.known)
			return ""
		}()
		if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: Fork panics with %q, want a message starting %q", tc.name, got, tc.want)
		}
	}
}
