package smp

import "testing"

func TestGroupConstructionString(t *testing.T) {
	for g, want := range map[GroupConstruction]string{GroupsPerCPU: "per-cpu", GroupsFirstCPU: "first-cpu", 7: "GroupConstruction(7)"} {
		if got := g.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", uint8(g), got, want)
		}
	}
}
