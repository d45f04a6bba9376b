package workload_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const sample = `group batch weight=50 idle
pipe jobs cap=16

thread hog count=2 nice=19 group=batch
	run forever
end

thread ticker class=fifo rtprio=50 cpus=0-1
	every 10ms
		run exp(200us)
	end
end

thread producer
	loop
		run uniform(50us,150us)
		send jobs
	end
end

thread consumer count=4 start=1ms
	loop
		recv jobs
		run 100us
	end
end
`

func TestJSONRoundTrip(t *testing.T) {
	w, err := workload.Parse(sample)
	require.NoError(t, err)
	assert.Equal(t, sample, workload.Format(w), "the sample is in canonical form")
	data, err := json.MarshalIndent(w, "", "  ")
	require.NoError(t, err)
	back, err := workload.ParseJSON(data)
	require.NoError(t, err)
	assert.Equal(t, sample, workload.Format(back))
	assert.Contains(t, string(data), `"time": "exp(200us)"`)
	assert.Contains(t, string(data), `"cpus": "0-1"`)
	assert.Contains(t, string(data), `"class": "fifo"`)
}

func TestParseJSONErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"syntax", "{\n  \"threads\": [}", "line 2, column 15: invalid character '}' looking for beginning of value"},
		{"truncated", `{"threads": [`, "line 1, column 14: unexpected end of JSON input"},
		{"type", "{\"threads\": [{\"name\": 7}]}", "line 1, column 23: threads[0].name: cannot use a JSON number as string"},
		{"unknown field", `{"threads": [], "cpu": 1}`, `json: unknown field "cpu"`},
		{"unknown behaviour", `{"threads": [{"name": "a", "ops": [{"op": "slep"}]}]}`, `threads[0].ops[0].op: unknown behaviour "slep"`},
		{"bad duration", `{"threads": [{"name": "a", "start": "soon", "ops": []}]}`, `threads[0].start: bad duration "soon"`},
		{"bad phase", `{"threads": [{"name": "a", "ops": [{"op": "every", "time": "1ms", "phase": "soon", "body": [{"op": "run", "time": "1us"}]}]}]}`, `threads[0].ops[0].phase: bad duration "soon"`},
		{"trailing data", `{"threads": []} {}`, "line 1, column 17: data after the workload"},
		{"unknown pipe", `{"threads": [{"name": "a", "ops": [{"op": "send", "name": "q"}]}]}`, `threads[0].ops[0]: send: unknown pipe "q"`},
		{"field of another kind", `{"threads": [{"name": "a", "ops": [{"op": "yield", "n": 2}]}]}`, `threads[0].ops[0]: yield does not take n`},
		{"nested path", `{"threads": [{"name": "a", "ops": [{"op": "loop", "body": [{"op": "run", "time": "1ms"}, {"op": "nice", "n": 40}]}]}]}`, `threads[0].ops[0].body[1]: nice 40 outside -20..20`},
		{"key twice", `{"threads": [{"name": "a", "ops": [{"op": "run", "time": "1ms"}]}], "threads": []}`, `line 1, column 69: key "threads" given twice`},
		{"name twice", `{"threads": [{"name": "a", "name": "b", "ops": [{"op": "run", "time": "1ms"}]}]}`, `line 1, column 28: key "name" given twice`},
		{"key twice in another case", `{"threads": [{"name": "a", "NAME": "b", "ops": []}]}`, `line 1, column 28: key "NAME" given twice`},
		{"time twice", `{"threads": [{"name": "a", "ops": [{"op": "run", "time": "1ms", "time": "2ms"}]}]}`, `line 1, column 65: key "time" given twice`},
		{"run without time", `{"threads": [{"name": "a", "ops": [{"op": "run"}]}]}`, `line 1, column 36: threads[0].ops[0]: run needs a time, a duration or distribution`},
		{"sleep with empty time", "{\"threads\": [{\"name\": \"a\", \"ops\": [\n  {\"op\": \"sleep\", \"time\": \"\"}]}]}", `line 2, column 3: threads[0].ops[0]: sleep needs a time`},
		{"value positioned", `{"threads": [{"name": "a", "ops": [{"op": "slep"}]}]}`, `line 1, column 43: threads[0].ops[0].op: unknown behaviour "slep"`},
		{"missing field positioned at its object", `{"threads": [{"name": "a"}, {"ops": []}]}`, `line 1, column 29: threads[1]: thread without a name`},
	}
	nest := func(levels int) string {
		return `{"threads": [{"name": "a", "ops": [` + strings.Repeat(`{"op": "loop", "body": [`, levels) +
			`{"op": "run", "time": "1ms"}` + strings.Repeat(`]}`, levels) + `]}]}`
	}
	cases = append(cases, []struct{ name, text, want string }{
		// One level too deep is Validate's error; far too deep is refused while the JSON is
		// walked, before building ever longer paths makes the walk quadratic (a fuzz input of
		// a few thousand levels took seconds).
		{"blocks one level too deep", nest(workload.MaxDepth + 1), "blocks nested deeper than 32"},
		{"JSON far too deep", nest(4000), "JSON nested more than 72 levels deep"},
	}...)
	// until PIPE [N] … end: its pipe, its count and its body, checked by Validate as in the
	// text form and positioned at the op, or at the value encoding/json refuses.
	until := func(op string) string {
		return `{"pipes": [{"name": "p"}], "threads": [{"name": "a", "ops": [` + op + `]}]}`
	}
	const run = `{"op": "run", "time": "1ms"}`
	cases = append(cases, []struct{ name, text, want string }{
		{"until without a pipe", until(`{"op": "until", "body": [` + run + `]}`), `line 1, column 62: threads[0].ops[0]: until: unknown pipe ""`},
		{"until of an unknown pipe", until(`{"op": "until", "name": "q", "body": [` + run + `]}`), `line 1, column 62: threads[0].ops[0]: until: unknown pipe "q"`},
		{"until negative count", until(`{"op": "until", "name": "p", "n": -1, "body": [` + run + `]}`), `threads[0].ops[0]: until: count -1 outside 1..1048576`},
		{"until count too large", until(`{"op": "until", "name": "p", "n": 1048577, "body": [` + run + `]}`), `threads[0].ops[0]: until: count 1048577 outside 1..1048576`},
		{"until count not an int", until(`{"op": "until", "name": "p", "n": 99999999999999999999, "body": [` + run + `]}`), `line 1, column 96: threads[0].ops[0].n: cannot use a JSON number 99999999999999999999 as int`},
		{"until without a body", until(`{"op": "until", "name": "p"}`), `threads[0].ops[0]: until body takes no time`},
		{"until with an empty body", until(`{"op": "until", "name": "p", "body": []}`), `threads[0].ops[0]: until body takes no time`},
		{"until body takes no time", until(`{"op": "until", "name": "p", "body": [{"op": "recv", "name": "p"}, {"op": "run", "time": "0s"}]}`), `threads[0].ops[0]: until body takes no time`},
		{"until with a time", until(`{"op": "until", "name": "p", "time": "1ms", "body": [` + run + `]}`), `threads[0].ops[0]: until does not take time`},
		{"until body's error", until(`{"op": "loop", "body": [` + run + `, {"op": "until", "name": "p", "body": [` + run + `, {"op": "nice", "n": 40}]}]}`), `threads[0].ops[0].body[1].body[1]: nice 40 outside -20..20`},
		{"until body's value of a wrong type", `{"pipes": [{"name": "p"}], "threads": [{"name": "a", "ops": [` + run + `]}, {"name": "b", "ops": [` + run + `, {"op": "until", "name": "p", "body": [` + run + `, {"op": "sleep", "time": 5}]}]}]}`,
			`line 1, column 238: threads[1].ops[1].body[1].time: cannot use a JSON number as string`},
		{"until body not an array", until(`{"op": "until", "name": "p", "body": ` + run + `}`), `threads[0].ops[0].body: cannot use a JSON object as []workload.jsonOp`},
	}...)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w, err := workload.ParseJSON([]byte(tc.text))
			require.Error(t, err)
			assert.Nil(t, w)
			assert.Contains(t, err.Error(), tc.want)
			var e *workload.Error
			require.ErrorAs(t, err, &e)
			assert.Greater(t, e.Pos.Line, 0, "ParseJSON(%s) error has no position", tc.text)
		})
	}
}

// TestJSONZeroTime checks that run 0 and sleep 0, whose JSON time is the zero value, keep their
// time through json.Marshal, since ParseJSON refuses a run or sleep without one.
func TestJSONZeroTime(t *testing.T) {
	w, err := workload.Parse("thread a\n\trun 0s\n\tsleep 0s\n\tyield\nend\n")
	require.NoError(t, err)
	data, err := json.Marshal(w)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"ops":[{"op":"run","time":"0s"},{"op":"sleep","time":"0s"},{"op":"yield"}]`)
	back, err := workload.ParseJSON(data)
	require.NoError(t, err)
	assert.Equal(t, workload.Format(w), workload.Format(back))
}

// untilSample has an until with and without a count, one nested in a loop and one with
// another block in its body, so that the JSON form carries its name, n and body at each depth.
const untilSample = `pipe done
pipe out cap=4

thread make
	until done 2
		recv out
		run 5us
	end
	loop
		until done
			repeat 3
				recv out
				run 1us
			end
			sleep 10us
		end
		run 20us
	end
end

thread job count=2
	loop
		send out
		run 100us
		send done
	end
end
`

// TestJSONUntil checks that until survives text → JSON → workload → text, and that the JSON
// workload equals the text's op for op.
func TestJSONUntil(t *testing.T) {
	w, err := workload.Parse(untilSample)
	require.NoError(t, err)
	require.Equal(t, untilSample, workload.Format(w), "the sample is in canonical form")
	data, err := json.Marshal(w)
	require.NoError(t, err)
	assert.Contains(t, string(data), `{"op":"until","name":"done","n":2,"body":[{"op":"recv","name":"out"},`)
	assert.Contains(t, string(data), `{"op":"until","name":"done","body":[{"op":"repeat","n":3,"body":[`)
	back, err := workload.ParseJSON(data)
	require.NoError(t, err)
	assert.Equal(t, untilSample, workload.Format(back))
	got := back.Threads[0].Ops
	require.Len(t, got, 2)
	assert.Equal(t, workload.UntilOp("done", 2, workload.RecvOp("out", 0), workload.RunOp(workload.Fixed(5000))), got[0])
	// The text form's ops carry their positions, which the JSON form has not: compare the two
	// workloads by their JSON.
	again, err := json.Marshal(back)
	require.NoError(t, err)
	assert.Equal(t, string(data), string(again))
}
