package main

import (
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	var b strings.Builder
	if err := run(&b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"irq    priority   4 -> cpu0 (llc 0-1)\n" +
		"build  priority 120 -> cpu2 (llc 2-3)\n" +
		"render priority 120 -> cpu0 (llc 0-1)\n" +
		"backup priority 200 -> cpu2 (llc 2-3)\n"
	if b.String() != want {
		t.Errorf("run printed\n%s\nwant\n%s", b.String(), want)
	}
}
