package workload_test

import (
	"encoding/json"
	"testing"

	"github.com/schedkit/schedkit/bench/sim/workload"
	"github.com/schedkit/schedkit/sched"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prioSample holds every new form: rtprio(2) levels on threads and ops, and each phase mode.
const prioSample = `thread a class=fifo rtprio=freebsd:0
	every 10ms 5 phase=2ms
		run 1ms
	end
end

thread b count=4 class=rr rtprio=freebsd:31
	every 10ms phase=stagger
		run 1ms
	end
	class fifo freebsd:7
	class rr 99
	every 5ms 2 phase=stagger+1ms
		run 1ms
	end
	every 5ms 2 phase=arrival
		run 1ms
	end
	every 5ms 2 phase=arrival+3ms
		run 1ms
	end
end
`

func TestRTPrioAndPhaseRoundTrip(t *testing.T) {
	w, err := workload.Parse(prioSample)
	require.NoError(t, err)
	assert.Equal(t, prioSample, workload.Format(w))
	a, b := &w.Threads[0], &w.Threads[1]
	assert.Equal(t, sched.Attr{Class: sched.FIFO, RTPrio: 0, RTScale: sched.RTFreeBSD}, a.Attr(0))
	assert.Equal(t, workload.Duration(2e6), a.Ops[0].Phase)
	assert.Equal(t, workload.PhaseAbsolute, a.Ops[0].PhaseMode)
	assert.Equal(t, 5, a.Ops[0].N)
	assert.Equal(t, 31, b.RTPrio)
	assert.Equal(t, workload.PhaseStagger, b.Ops[0].PhaseMode)
	assert.Equal(t, workload.Op{Kind: workload.SetClass, Class: sched.FIFO, N: 7, RTScale: sched.RTFreeBSD}, stripPos(b.Ops[1]))
	assert.Equal(t, sched.RTLinux, b.Ops[2].RTScale)
	assert.Equal(t, workload.PhaseArrival, b.Ops[5].PhaseMode)
	assert.Equal(t, workload.Duration(3e6), b.Ops[5].Phase)

	data, err := json.Marshal(w)
	require.NoError(t, err)
	back, err := workload.ParseJSON(data)
	require.NoError(t, err)
	assert.Equal(t, prioSample, workload.Format(back))

	// The scale's name is accepted in JSON as well as its number.
	named, err := workload.ParseJSON([]byte(`{"threads": [{"name": "x", "class": "rr", "rtprio": 0, "rtscale": "freebsd",
		"ops": [{"op": "every", "time": "1ms", "phase": "500us", "phase_mode": "stagger", "body": [{"op": "run", "time": "1us"}]}]}]}`))
	require.NoError(t, err)
	assert.Equal(t, sched.RTFreeBSD, named.Threads[0].RTScale)
	assert.Equal(t, workload.PhaseStagger, named.Threads[0].Ops[0].PhaseMode)
}

func stripPos(op workload.Op) workload.Op {
	return workload.Op{Kind: op.Kind, Class: op.Class, N: op.N, RTScale: op.RTScale}
}

func TestRTPrioAndPhaseErrors(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"freebsd 32", "thread a class=fifo rtprio=freebsd:32\n\trun 1ms\nend\n", "line 1, column 36: 32 outside 0..31"},
		{"linux 0", "thread a class=fifo rtprio=0\n\trun 1ms\nend\n", "line 1, column 28: 0 outside 1..99"},
		{"linux:0", "thread a class=fifo rtprio=linux:0\n\trun 1ms\nend\n", "0 outside 1..99"},
		{"unknown scale", "thread a class=fifo rtprio=solaris:3\n\trun 1ms\nend\n", `unknown real-time scale "solaris"`},
		{"scale on a normal thread", "thread a rtprio=freebsd:0\n\trun 1ms\nend\n", "rtprio freebsd:0 given to a normal thread"},
		{"op freebsd 40", "thread a\n\tclass rr freebsd:40\nend\n", "line 2, column 19: 40 outside 0..31"},
		{"bad phase", "thread a\n\tevery 1ms phase=soon\n\t\trun 1ms\n\tend\nend\n", `bad phase "soon"`},
		{"bad stagger", "thread a\n\tevery 1ms phase=stagger-1ms\n\t\trun 1ms\n\tend\nend\n", `bad phase "stagger-1ms"`},
		{"phase on run", "thread a\n\trun 1ms phase=1ms\nend\n", "unexpected argument"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := workload.Parse(tc.text)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	bad := []workload.Workload{
		{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{{Kind: workload.Run, Time: workload.Fixed(1), Phase: 1}}}}},
		{Threads: []workload.Thread{{Name: "a", Ops: []workload.Op{{Kind: workload.Every, Time: workload.Fixed(1), PhaseMode: 9, Body: []workload.Op{workload.RunOp(workload.Fixed(1))}}}}}},
		{Threads: []workload.Thread{{Name: "a", RTScale: 7, Class: sched.FIFO}}},
	}
	for i := range bad {
		assert.Error(t, bad[i].Validate(), "case %d", i)
	}
}

func TestParseJSONNotAnObject(t *testing.T) {
	for _, in := range []string{"null", " [1]", "3", `"x"`} {
		_, err := workload.ParseJSON([]byte(in))
		require.Error(t, err, "%s", in)
		assert.Contains(t, err.Error(), "a workload is a JSON object")
	}
	w, err := workload.ParseJSON([]byte("{}"))
	require.NoError(t, err)
	assert.Empty(t, w.Threads)
}
