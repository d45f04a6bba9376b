package scenario_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var shardOptions = scenario.Options{Small: true, Reps: 2, Grid: map[string][]float64{"records": {50, 80}}}

// single returns the table of the whole plan run at once.
func single(t *testing.T, s *scenario.Scenario) string {
	rep, err := scenario.Run(s, shardOptions)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rep.WriteTable(&b))
	return b.String()
}

// Shards k of n run disjoint cells that together are the plan; their JSON lines, merged in any
// order, give the single run's table byte for byte.
func TestShardMergeEqualsSingleRun(t *testing.T) {
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	want := single(t, s)
	for _, n := range []int{1, 2, 3, 7} {
		pl, err := scenario.NewPlan(s, shardOptions)
		require.NoError(t, err)
		var all bytes.Buffer
		covered := map[int]int{}
		for k := n - 1; k >= 0; k-- { // merge order need not be shard order
			idx, err := pl.Shard(k, n)
			require.NoError(t, err)
			for _, i := range idx {
				covered[i]++
			}
			res, err := pl.Run(idx, shardOptions)
			require.NoError(t, err)
			require.NoError(t, scenario.WriteJSONL(&all, res))
		}
		require.Len(t, covered, len(pl.Cells))
		for i, c := range covered {
			require.Equal(t, 1, c, "cell %d", i)
		}
		res, err := scenario.ReadJSONL(&all)
		require.NoError(t, err)
		rep, err := pl.Merge(res)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, rep.WriteTable(&b))
		assert.Equal(t, want, b.String(), "n=%d", n)
	}
}

func TestMergeErrors(t *testing.T) {
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	pl, err := scenario.NewPlan(s, shardOptions)
	require.NoError(t, err)
	res, err := pl.Run(pl.All(), shardOptions)
	require.NoError(t, err)
	cp := func() []scenario.CellResult { return append([]scenario.CellResult(nil), res...) }
	for _, c := range []struct {
		name string
		rs   func() []scenario.CellResult
		want string
	}{
		{"missing", func() []scenario.CellResult { return cp()[1:] }, "cell 0 (of"},
		{"twice", func() []scenario.CellResult { r := cp(); return append(r, r[3]) }, "cell 3 given twice"},
		{"foreign", func() []scenario.CellResult { r := cp(); r[0].Scenario = "x"; return r }, `of scenario "x"`},
		{"outside", func() []scenario.CellResult { r := cp(); r[0].Cell = 1 << 20; return r }, "outside the plan"},
		{"other plan", func() []scenario.CellResult { r := cp(); r[2].Rep = 7; return r }, "cell 2: result is of row"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pl.Merge(c.rs())
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	_, err = pl.Shard(3, 3)
	assert.Error(t, err)
	_, err = pl.Shard(0, 0)
	assert.Error(t, err)
}

func TestReadJSONLErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"scenario\":\"a\",\"profile\":\"ci\",\"cell\":0,\"point\":{},\"row\":\"r\",\"rep\":0,\"metrics\":[1]}\nnot json\n", "line 2"},
		{"{\"scenario\":\"a\",\"profile\":\"ci\",\"cell\":0,\"point\":{},\"row\":\"r\",\"rep\":0,\"metrics\":[1,null]}\n", "line 1: metric 1 is null"},
		{"{\"scenario\":\"a\",\"profile\":\"ci\",\"cell\":0,\"point\":{\"nice\":null},\"row\":\"r\",\"rep\":0,\"metrics\":[1]}\n", "line 1: point value nice is null"},
		{"{\"scenario\":\"a\",\"profile\":\"ci\",\"cell\":0,\"point\":{},\"row\":\"r\",\"rep\":0,\"metrics\":null}\n", "line 1: no metrics"},
		{"{\"scenario\":\"a\",\"profile\":\"ci\",\"point\":{},\"row\":\"r\",\"rep\":0,\"metrics\":[1]}\n", "line 1: no cell"},
		{"{\"scenario\":\"a\",\"bogus\":1}\n", "line 1"},
		{"{} {}\n", "line 1: more than one object"},
		{"{\"scenario\":\"a\",\"cell\":0,\"point\":{},\"row\":\"r\",\"rep\":0,\"metrics\":[1]}\n", "line 1: no profile"},
	} {
		_, err := scenario.ReadJSONL(strings.NewReader(c.in))
		require.Error(t, err, c.in)
		assert.Contains(t, err.Error(), c.want)
	}
	rs, err := scenario.ReadJSONL(strings.NewReader("\n\n"))
	require.NoError(t, err)
	assert.Empty(t, rs)
}

// TestShardProcess is the body of one shard when the test binary runs itself as a worker
// (SCENARIO_SHARD=k/n, SCENARIO_OUT=file), as a Kubernetes Indexed Job's pod, a Slurm array
// task or a GNU parallel job would run `schedbench scenario -shard k/n`.
func TestShardProcess(t *testing.T) {
	spec := os.Getenv("SCENARIO_SHARD")
	if spec == "" {
		t.Skip("runs only as a shard worker of TestShardsAsProcesses")
	}
	ks, ns, _ := strings.Cut(spec, "/")
	k, _ := strconv.Atoi(ks)
	n, _ := strconv.Atoi(ns)
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	pl, err := scenario.NewPlan(s, shardOptions)
	require.NoError(t, err)
	idx, err := pl.Shard(k, n)
	require.NoError(t, err)
	res, err := pl.Run(idx, shardOptions)
	require.NoError(t, err)
	f, err := os.Create(os.Getenv("SCENARIO_OUT"))
	require.NoError(t, err)
	require.NoError(t, scenario.WriteJSONL(f, res))
	require.NoError(t, f.Close())
}

// Three shards run as separate processes at once, as a batch system runs them; their files,
// concatenated, merge into the single run's table.
func TestShardsAsProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	s, err := scenario.Lookup("seed000-pipeline")
	require.NoError(t, err)
	dir := t.TempDir()
	const n = 3
	var cmds []*exec.Cmd
	for k := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^TestShardProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("SCENARIO_SHARD=%d/%d", k, n),
			"SCENARIO_OUT="+filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", k)))
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		require.NoError(t, cmd.Wait())
	}
	var all []scenario.CellResult
	for k := range n {
		f, err := os.Open(filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", k)))
		require.NoError(t, err)
		rs, err := scenario.ReadJSONL(f)
		f.Close()
		require.NoError(t, err)
		all = append(all, rs...)
	}
	pl, err := scenario.NewPlan(s, shardOptions)
	require.NoError(t, err)
	rep, err := pl.Merge(all)
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rep.WriteTable(&b))
	assert.Equal(t, single(t, s), b.String())
}

// The GNU parallel example runs as documented where GNU parallel is installed, and prints the
// table the single run prints.
func TestGNUParallelExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the sweep command and starts processes")
	}
	if _, err := exec.LookPath("parallel"); err != nil {
		t.Skip("GNU parallel is not installed (Debian package parallel)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the sweep command")
	}
	// The script builds ./bench/scenario/sweep relative to the module root.
	cmd := exec.Command("bash", filepath.Join("bench", "scenario", "examples", "gnu-parallel.sh"), "seed000-nice", "3", "-small", "-reps", "2")
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "PARALLEL_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	s, err := scenario.Lookup("seed000-nice")
	require.NoError(t, err)
	rep, err := scenario.Run(s, scenario.Options{Small: true, Reps: 2})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, rep.WriteTable(&b))
	assert.Equal(t, b.String(), string(out))
}
