package host_test

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/schedkit/schedkit/bench/host"
	"github.com/schedkit/schedkit/sched"
	"github.com/schedkit/schedkit/topology"
)

// Real benchmark programs run as peers inside a group with attributes, beside a schedkit
// latency probe, and their outputs parse: seed 004's setup with each program as the offline
// load.
func TestPeers(t *testing.T) {
	cpu := needHost(t, true)
	c := strconv.Itoa(cpu)
	for _, tc := range []struct {
		name  string
		args  []string
		attr  sched.Attr
		group bool
		check func(t *testing.T, out string)
	}{
		{"perf messaging", []string{"perf", "bench", "sched", "messaging", "-g", "1", "-l", "20"}, sched.Attr{}, true,
			func(t *testing.T, out string) {
				b, err := host.ParsePerfBench(out)
				require.NoError(t, err, out)
				require.Equal(t, 40, b.Tasks)
				require.Greater(t, b.Total, time.Duration(0))
			}},
		{"perf pipe", []string{"perf", "bench", "sched", "pipe", "-l", "2000"}, sched.Attr{Nice: 5}, true,
			func(t *testing.T, out string) {
				b, err := host.ParsePerfBench(out)
				require.NoError(t, err, out)
				require.Greater(t, b.OpsPerSec, int64(0))
			}},
		{"hackbench", []string{"hackbench", "-g", "1", "-l", "20"}, sched.Attr{Class: sched.Batch}, true,
			func(t *testing.T, out string) {
				b, err := host.ParseHackbench(out)
				require.NoError(t, err, out)
				require.Equal(t, 40, b.Tasks)
			}},
		{"cyclictest", []string{"cyclictest", "-q", "--policy=other", "-i", "1000", "-l", "100", "-a", c}, sched.Attr{}, false,
			func(t *testing.T, out string) {
				ts, err := host.ParseCyclictest(out)
				require.NoError(t, err, out)
				require.Equal(t, int64(100), ts[0].Cycles)
				require.LessOrEqual(t, ts[0].Min, ts[0].Max)
			}},
		{"stress-ng", []string{"stress-ng", "--cpu", "1", "-t", "1", "--metrics-brief"}, sched.Attr{Class: sched.Idle}, true,
			func(t *testing.T, out string) {
				ms, err := host.ParseStressNG(out)
				require.NoError(t, err, out)
				require.Equal(t, "cpu", ms[0].Stressor)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.args[0]); err != nil {
				t.Skipf("%s is not installed", tc.args[0])
			}
			tc.attr.Affinity = topology.CPUSetOf(topology.CPU(cpu))
			// cyclictest's main thread asks for a real-time priority, which no new cpu
			// cgroup grants (cpu.rt_runtime_us = 0): it runs beside the probe without groups.
			text, group := "thread probe cpus=%d\n\tevery 2ms 100\n\t\trun 50us\n\tend\nend\n", ""
			if tc.group {
				text, group = "group online\ngroup offline idle\nthread probe group=online cpus=%d\n\tevery 2ms 100\n\t\trun 50us\n\tend\nend\n", "offline"
			}
			w := parse(t, text, cpu)
			r, err := host.Run(context.Background(), w, host.Options{Limit: 5 * time.Second,
				Peers: []host.Peer{{Name: tc.name, Args: tc.args, Attr: tc.attr, Group: group, Await: true}}})
			require.NoError(t, err)
			require.Len(t, r.Peers, 1)
			p := r.Peers[0]
			require.NoError(t, p.Err, p.Output)
			require.True(t, p.Exited, "the peer did not finish in the run: %s", p.Output)
			p99, _ := r.Latency("probe", 99)
			t.Logf("probe p99 %v beside %s", time.Duration(p99), tc.name)
			tc.check(t, p.Output)
		})
	}
}
