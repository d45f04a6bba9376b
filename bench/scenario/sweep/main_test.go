package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var common = []string{"-scenario", "seed000-nice", "-small", "-reps", "2", "-grid", "nice=10,20"}

func sweep(t *testing.T, args ...string) string {
	var out, errb bytes.Buffer
	require.NoError(t, run(append(append([]string(nil), common...), args...), &out, &errb), errb.String())
	return out.String()
}

// The shards' files, merged, print the table the whole sweep prints.
func TestShardsMergeToTheSingleTable(t *testing.T) {
	want := sweep(t)
	require.Contains(t, want, "nice 0 share")
	dir := t.TempDir()
	var files []string
	for k := range 3 {
		f := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", k))
		require.NoError(t, os.WriteFile(f, []byte(sweep(t, "-shard", fmt.Sprintf("%d/3", k))), 0o644))
		files = append(files, f)
	}
	got := sweep(t, append([]string{"-merge"}, files...)...)
	assert.Equal(t, want, got)
	// A missing shard is an error, not a partial table.
	var out, errb bytes.Buffer
	err := run(append(append([]string(nil), common...), "-merge", files[0], files[2]), &out, &errb)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "missing")
	assert.Empty(t, out.String())
}

func TestErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "nope"}, `unknown scenario "nope"`},
		{[]string{"-scenario", "seed000-nice", "-set", "nice"}, "want NAME=VALUE"},
		{[]string{"-scenario", "seed000-nice", "-set", "nicee=3"}, `unknown parameter "nicee" (parameters: nice, seconds`},
		{[]string{"-scenario", "seed000-nice", "-set", "nice=30"}, "outside"},
		{[]string{"-scenario", "seed000-nice", "-grid", "nice=1,x"}, `"x" is not a number`},
		{[]string{"-scenario", "seed000-nice", "-grid", "nice=1", "-grid", "nice=2"}, "nice is swept twice"},
		{[]string{"-scenario", "seed000-nice", "-shard", "3"}, "want K/N"},
		{[]string{"-scenario", "seed000-nice", "-shard", "3/3"}, "shard 3 of 3"},
	} {
		var out, errb bytes.Buffer
		err := run(c.args, &out, &errb)
		require.Error(t, err, c.args)
		assert.Contains(t, err.Error(), c.want, c.args)
	}
}

func TestList(t *testing.T) {
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"-list"}, &out, &errb))
	assert.Contains(t, out.String(), "seed001-kargl")
}
