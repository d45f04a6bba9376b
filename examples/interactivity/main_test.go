package main

import (
	"bytes"
	"testing"

	"github.com/schedkit/schedkit/examples/internal/golden"
)

func TestGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/lesson.golden", buf.Bytes())
}
