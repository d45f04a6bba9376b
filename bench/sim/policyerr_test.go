package sim_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/bench/sim"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// linuxOnly is rr that honours only Linux's real-time scale, refusing rtprio(2) levels, and
// records every attribute set it was asked about.
type linuxOnly struct {
	rr
	asked []sched.Attr
}

func (p *linuxOnly) CheckAttr(a sched.Attr) error {
	p.asked = append(p.asked, a)
	if a.Class.RealTime() && a.RTScale != sched.RTLinux {
		return fmt.Errorf("toy: no %s real-time scale", a.RTScale)
	}
	return nil
}

// rrAsOther is rr that runs RR threads as FIFO ones and says so through Err once it has seen one.
type rrAsOther struct {
	rr
	ranRR bool
}

func (p *rrAsOther) Fork(now int64, tid, parent sched.ID, cpu topology.CPU, a sched.Attr) {
	p.ranRR = p.ranRR || a.Class == sched.RR
	p.rr.Fork(now, tid, parent, cpu, a)
}

func (p *rrAsOther) Err() error {
	if p.ranRR {
		return errors.New("toy: ran SCHED_RR threads as SCHED_FIFO")
	}
	return nil
}

var (
	_ sim.AttrChecker = (*linuxOnly)(nil)
	_ sim.ErrReporter = (*rrAsOther)(nil)
)

func TestAttrCheckerRefusesBeforeRunning(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	tests := []struct {
		name, text, want string
	}{
		{"declaration", "thread rt class=fifo rtprio=freebsd:0\n\trun 1ms\nend\n", `sim: toy-rr: thread "rt": toy: no freebsd real-time scale`},
		{"op", "thread a\n\trun 1ms\n\tnice 3\n\tclass rr freebsd:31\n\trun 1ms\nend\n", `sim: toy-rr: thread "a", class rr freebsd:31: toy: no freebsd real-time scale`},
		{"template", "template child class=rr rtprio=freebsd:5\n\trun 1ms\nend\nthread a\n\tfork child\nend\n", `thread "child"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &linuxOnly{rr: *newRR(1000, 4)}
			_, err := sim.New(sim.Config{Topology: one}, p, mustParse(t, tc.text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("accepted", func(t *testing.T) {
		p := &linuxOnly{rr: *newRR(1000, 4)}
		w := mustParse(t, "thread a class=fifo rtprio=50\n\trun 1ms\n\tnice 3\n\tclass normal\n\trun 1ms\nend\n")
		r, err := sim.Run(sim.Config{Topology: one}, p, w, time.Second)
		require.NoError(t, err)
		require.NoError(t, r.Err())
		// The declaration, then each change applied in order to what came before.
		require.Len(t, p.asked, 3)
		assert.Equal(t, sched.Attr{Class: sched.FIFO, RTPrio: 50}, p.asked[0])
		assert.Equal(t, sched.Attr{Class: sched.FIFO, RTPrio: 50, Nice: 3}, p.asked[1])
		assert.Equal(t, sched.Normal, p.asked[2].Class)
		assert.Equal(t, 3, p.asked[2].Nice)
	})
}

func TestErrReporterReachesResult(t *testing.T) {
	one := topology.Uniform(1, 1, 1, 1, 1)
	p := &rrAsOther{rr: *newRR(1000, 4)}
	r, err := sim.Run(sim.Config{Topology: one}, p, mustParse(t, "thread a class=rr rtprio=10\n\trun 1ms\nend\n"), time.Second)
	require.NoError(t, err)
	require.Error(t, r.PolicyErr)
	require.Error(t, r.Err())
	assert.Equal(t, "sim: toy-rr: toy: ran SCHED_RR threads as SCHED_FIFO", r.Err().Error())

	p = &rrAsOther{rr: *newRR(1000, 4)}
	r, err = sim.Run(sim.Config{Topology: one}, p, mustParse(t, "thread a class=fifo rtprio=10\n\trun 1ms\nend\n"), time.Second)
	require.NoError(t, err)
	assert.NoError(t, r.PolicyErr)
	assert.NoError(t, r.Err())
}
