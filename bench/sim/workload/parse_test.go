package workload_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBuildsTheWorkload(t *testing.T) {
	w, err := workload.Parse(`# comment
group web weight=200
group bg parent=web idle   # trailing comment
pipe p cap=3 room=2
pipe q

thread a count=2 start=1ms class=fifo rtprio=5 cpus=0-1,3 group=bg slice=3ms
	run uniform(1ms, 2ms)
	sleep exp(250us)
	send p 2
	recv q
	fork t 3
	join
	yield
	repeat 4
		loop
			run 1ms
		end
	end
	every 10ms 7
		run forever
	end
	nice -3
	class rr 9
	class normal
	cpus 2
	group web
	exit
end
template t nice=19
	run 1.5ms
end
`)
	require.NoError(t, err)
	want := &workload.Workload{
		Groups: []workload.Group{{Name: "web", Weight: 200}, {Name: "bg", Parent: "web", Idle: true}},
		Pipes:  []workload.Pipe{{Name: "p", Cap: 3, Room: 2}, {Name: "q"}},
		Threads: []workload.Thread{{
			Name: "a", Count: 2, Start: 1000000, Class: sched.FIFO, RTPrio: 5,
			CPUs: topology.CPUSetOf(0, 1, 3), Group: "bg", Slice: 3000000,
			Ops: []workload.Op{
				workload.RunOp(workload.Between(1000000, 2000000)),
				workload.SleepOp(workload.Exponential(250000)),
				workload.SendOp("p", 2),
				workload.RecvOp("q", 0),
				workload.ForkOp("t", 3),
				{Kind: workload.Join},
				{Kind: workload.Yield},
				workload.RepeatOp(4, workload.LoopOp(workload.RunOp(workload.Fixed(1000000)))),
				workload.EveryOp(10000000, 7, workload.RunOp(workload.Unbounded())),
				{Kind: workload.Nice, N: -3},
				{Kind: workload.SetClass, Class: sched.RR, N: 9},
				{Kind: workload.SetClass},
				{Kind: workload.SetCPUs, CPUs: topology.CPUSetOf(2)},
				{Kind: workload.SetGroup, Name: "web"},
				{Kind: workload.Exit},
			},
		}, {
			Name: "t", Template: true, Nice: 19, Ops: []workload.Op{workload.RunOp(workload.Fixed(1500000))},
		}},
	}
	assert.Equal(t, workload.Format(want), workload.Format(w))
	// Format then Parse gives the same workload again.
	again, err := workload.Parse(workload.Format(w))
	require.NoError(t, err)
	assert.Equal(t, workload.Format(w), workload.Format(again))
	assert.Equal(t, 2, w.Threads[0].Instances())
	assert.Equal(t, 0, w.Threads[1].Instances())
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"unknown behaviour", "thread x\n  slep 1ms\nend", `line 2, column 3: unknown behaviour "slep"`},
		{"unknown declaration", "threads x\nend", `line 1, column 1: unknown declaration "threads" (want group, pipe, thread or template)`},
		{"missing end", "thread x\n\trun 1ms\n", `line 3, column 1: missing end for thread "x" opened at line 1`},
		{"missing end of loop", "thread x\n\tloop\n\t\trun 1ms", `line 3, column 10: missing end for loop opened at line 2`},
		{"stray end", "end", "line 1, column 1: end without a block to close"},
		{"end with argument", "thread x\nend now", `line 2, column 5: end takes no arguments`},
		{"nested thread", "thread x\n\tthread y", "line 2, column 2: thread declared inside thread \"x\"; close it with end first"},
		{"no name", "thread", "line 1, column 7: thread without a name"},
		{"bad name", "pipe 9p", `line 1, column 6: pipe name "9p" is not a letter or _ followed by letters, digits, _ or -`},
		{"unknown argument", "thread x colour=red\nend", `line 1, column 10: unknown argument "colour=red" (want count, start, class, nice, rtprio, cpus, group, slice, slack, process)`},
		{"template count", "template x count=2\nend", `line 1, column 12: unknown argument "count=2" (want class, nice, rtprio, cpus, group, slice, slack, process)`},
		{"flag with value", "group g idle=yes", `line 1, column 9: unknown argument "idle=yes" (want parent, weight, idle?)`},
		{"twice", "pipe p cap=1 cap=2", "line 1, column 14: argument cap given twice"},
		{"not a number", "thread x count=many\nend", `line 1, column 16: "many" is not an integer`},
		{"out of range", "thread x nice=21\nend", "line 1, column 15: 21 outside -20..20"},
		{"bad weight", "group g weight=0", "line 1, column 16: 0 outside 1..10000"},
		{"bad class", "thread x class=deadline\nend", `line 1, column 16: unknown scheduling class "deadline" (want normal, batch, idle, fifo or rr)`},
		{"bad cpus", "thread x cpus=3-1\nend", `line 1, column 15: bad CPU list "3-1": `},
		{"bad duration", "thread x\n\trun 10 ms\nend", `line 2, column 9: unexpected argument "ms" to run (usage: run a duration or distribution)`},
		{"duration unit", "thread x\n\trun 10\nend", `line 2, column 6: bad duration "10" (want a number and a unit such as 10ms, 250us, 2s)`},
		{"negative duration", "thread x start=-1ms\nend", `line 1, column 16: negative duration "-1ms"`},
		{"bad distribution", "thread x\n\tsleep normal(1ms)\nend", `line 2, column 8: unknown distribution "normal" (want uniform or exp)`},
		{"uniform reversed", "thread x\n\trun uniform(2ms,1ms)\nend", "line 2, column 6: uniform(2ms,1ms) has its bounds the wrong way round"},
		{"unbalanced", "thread x\n\trun exp(1ms\nend", "line 2, column 6: unbalanced ("},
		{"unbalanced close", "thread x\n\trun 1ms)\nend", "line 2, column 9: unbalanced )"},
		{"missing argument", "thread x\n\tsend\nend", "line 2, column 6: send needs a pipe name and an optional count"},
		{"extra argument", "thread x\n\tjoin now\nend", `line 2, column 7: unexpected argument "now" to join (usage: join no arguments)`},
		{"zero repeat", "thread x\n\trepeat 0\n\t\trun 1ms\n\tend\nend", "line 2, column 9: 0 outside 1..2147483647"},
		{"unknown pipe", "thread x\n\tsend p\nend", `line 2, column 2: send: unknown pipe "p"`},
		{"fork a thread", "thread x\n\tfork x\nend", `line 2, column 2: fork: "x" is not a template`},
		{"unknown group", "thread x group=g\nend", `line 1, column 1: unknown group "g"`},
		{"parent after", "group a parent=b\ngroup b", `line 1, column 1: parent group "b" is not declared before group "a"`},
		{"duplicate thread", "thread x\nend\ntemplate x\nend", `line 3, column 1: thread "x" declared twice`},
		{"loop without time", "pipe p\nthread x\n\tloop\n\t\tsend p\n\tend\nend", "line 3, column 2: loop body takes no time (it needs a run or sleep of a positive duration, or an every)"},
		{"loop of run 0", "thread x\n\tloop\n\t\trun 0\n\tend\nend", "line 2, column 2: loop body takes no time"},
		{"loop of sleep uniform(0,0)", "thread x\n\tloop\n\t\tsleep uniform(0s,0s)\n\tend\nend", "line 2, column 2: loop body takes no time"},
		{"loop of repeated run 0", "thread x\n\tloop\n\t\trepeat 3\n\t\t\trun 0s\n\t\tend\n\tend\nend", "line 2, column 2: loop body takes no time"},
		{"repeat without time too often", "thread x\n\trepeat 1048577\n\t\tyield\n\tend\nend", "line 2, column 2: repeat: 1048577 repetitions without simulated time passing, more than 1048576"},
		{"nested repeats without time", "thread x\n\trepeat 2048\n\t\tnice 1\n\t\trepeat 1024\n\t\t\tyield\n\t\tend\n\tend\nend", "line 4, column 3: repeat: 2097152 repetitions without simulated time passing"},
		{"send in a repeat without time", "pipe p\nthread x\n\trepeat 1024\n\t\tsend p 1025\n\tend\nend", "line 4, column 3: send: 1049600 repetitions without simulated time passing"},
		{"fork in a repeat without time", "template t\n\trun 1ms\nend\nthread x\n\trepeat 2\n\t\tfork t 1048576\n\tend\nend", "line 6, column 3: fork: 2097152 repetitions without simulated time passing"},
		{"empty repeat", "thread x\n\trepeat 2\n\tend\nend", "line 2, column 2: repeat with an empty body"},
		{"sleep forever", "thread x\n\tsleep forever\nend", "line 2, column 2: sleep forever never wakes up; use exit or recv on a pipe nobody writes"},
		{"spin forever", "thread x\n\tspin forever\nend", "line 2, column 2: spin forever never ends; use run forever for a hog"},
		{"spin without duration", "thread x\n\tspin\nend", "line 2, column 6: spin needs a duration or distribution"},
		{"loop of spin 0", "thread x\n\tloop\n\t\tspin 0\n\tend\nend", "line 2, column 2: loop body takes no time"},
		{"rtprio for normal", "thread x rtprio=3\nend", "line 1, column 1: rtprio 3 given to a normal thread (only fifo and rr have one)"},
		{"fifo without rtprio", "thread x class=fifo\nend", "line 1, column 1: fifo priority 0 outside 1..99"},
		{"every distribution", "thread x\n\tevery exp(1ms)\n\t\trun 1ms\n\tend\nend", `line 2, column 8: bad duration "exp(1ms)" (want a number and a unit such as 10ms, 250us, 2s)`},
		{"utf-8", "thread x\xff\nend", "line 1, column 9: invalid UTF-8"},
		{"literal U+FFFD is a character", "thread x\n\trun \uFFFD\nend", "line 2, column 6: bad duration \"\uFFFD\""},
		{"column in characters", "thread µ\nend", `line 1, column 8: thread name "µ" is not a letter or _ followed by letters, digits, _ or -`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := workload.Parse(tc.text)
			require.Error(t, err)
			assert.Nil(t, w)
			assert.Contains(t, err.Error(), tc.want)
			var e *workload.Error
			require.ErrorAs(t, err, &e)
			assert.Greater(t, e.Pos.Line, 0)
		})
	}
}

func TestParseEmpty(t *testing.T) {
	for _, text := range []string{"", "\n", "# nothing\n\n"} {
		w, err := workload.Parse(text)
		require.NoError(t, err)
		assert.Empty(t, w.Threads)
	}
}

// TestParseLineEndings reads the same workload with Unix, DOS and CR-only line endings, and
// mixed: the same workload, and an error at the same line and column.
func TestParseLineEndings(t *testing.T) {
	text := "# two threads\nthread a nice=5\n\trun 1ms\n\tsleep 2ms\nend\nthread b count=2\n\trun forever\nend\n"
	want, err := workload.Parse(text)
	require.NoError(t, err)
	require.Len(t, want.Threads, 2)
	bad := "thread a\n\trun 1ms\n\tslep 2ms\nend\n"
	_, wantErr := workload.Parse(bad)
	require.Error(t, wantErr)
	for name, conv := range map[string]func(string) string{
		"crlf":  func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
		"cr":    func(s string) string { return strings.ReplaceAll(s, "\n", "\r") },
		"mixed": func(s string) string { return strings.Replace(strings.Replace(s, "\n", "\r", 2), "\n", "\r\n", 1) },
	} {
		got, err := workload.Parse(conv(text))
		require.NoError(t, err, name)
		assert.Equal(t, want, got, name)
		_, err = workload.Parse(conv(bad))
		assert.Equal(t, wantErr.Error(), fmt.Sprint(err), name)
	}
}

func TestParseProcess(t *testing.T) {
	w, err := workload.Parse("thread a process=perf\n\trun 1ms\nend\nthread b process=perf\n\trun 1ms\nend\n")
	if err != nil {
		t.Fatal(err)
	}
	if w.Threads[0].Process != "perf" || w.Threads[1].Process != "perf" {
		t.Errorf("Process = %q, %q; want perf, perf", w.Threads[0].Process, w.Threads[1].Process)
	}
	if got := workload.Format(w); !strings.Contains(got, "thread a process=perf\n") {
		t.Errorf("Format(w) = %q, want process=perf kept", got)
	}
	if _, err := workload.Parse("thread a process=9x\n\trun 1ms\nend\n"); err == nil || !strings.Contains(err.Error(), "process name") {
		t.Errorf("Parse(process=9x) = %v, want an error naming the process", err)
	}
}

// TestParseSlack: slack= is a thread's timer slack, written back by Format, refused when
// negative or above MaxSlack, and read from JSON.
func TestParseSlack(t *testing.T) {
	w, err := workload.Parse("thread a slack=50us\n\tsleep 1ms\nend\n")
	require.NoError(t, err)
	require.Equal(t, workload.Duration(50*time.Microsecond), w.Threads[0].Slack)
	assert.Contains(t, workload.Format(w), "slack=50us")
	_, err = workload.Parse("thread a slack=2s\n\tsleep 1ms\nend\n")
	assert.ErrorContains(t, err, "slack")
	j, err := workload.ParseJSON([]byte(`{"threads": [{"name": "a", "slack": "50us", "ops": [{"op": "sleep", "time": "1ms"}]}]}`))
	require.NoError(t, err)
	assert.Equal(t, workload.Duration(50*time.Microsecond), j.Threads[0].Slack)
}

// spin parses into a Spin op of its duration, formats back to the same text and survives JSON.
func TestParseSpin(t *testing.T) {
	const text = "thread x\n\tloop\n\t\tspin uniform(1ms,2ms)\n\t\tsleep 1ms\n\tend\nend\n"
	w, err := workload.Parse(text)
	require.NoError(t, err)
	op := w.Threads[0].Ops[0].Body[0]
	assert.Equal(t, workload.Spin, op.Kind)
	assert.Equal(t, workload.SpinOp(workload.Between(workload.Duration(time.Millisecond), workload.Duration(2*time.Millisecond))).Time, op.Time)
	assert.Equal(t, text, workload.Format(w))
	b, err := json.Marshal(w)
	require.NoError(t, err)
	var back workload.Workload
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, text, workload.Format(&back))
}
