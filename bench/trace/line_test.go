package trace

import "testing"

// One line of each form the Linux tools print, as recorded in testdata.
func TestParseHeader(t *testing.T) {
	cases := []struct {
		name, line string
		cpu, pid   int
		ts         int64
		irq        bool
		event      string
	}{
		{"tracefs", "            bash-20853   [001] d..2.   503.804655: sched_wakeup_new: comm=bash pid=20857 prio=120 target_cpu=000",
			1, 20853, 503_804_655_000, false, "sched_wakeup_new"},
		{"tracefs softirq", "            bash-20853   [001] dNs4.   503.804695: sched_migrate_task: comm=rcu_preempt pid=15 prio=120 orig_cpu=0 dest_cpu=1",
			1, 20853, 503_804_695_000, true, "sched_migrate_task"},
		{"tracefs 4.x flags", "          <idle>-0     [003] d.h3   123.000001: sched_wakeup: comm=a pid=2 prio=120 target_cpu=003",
			3, 0, 123_000_001_000, true, "sched_wakeup"},
		{"tracefs tgid", "            bash-20853 (20853) [001] d..2.   503.804655: sched_switch: x",
			1, 20853, 503_804_655_000, false, "sched_switch"},
		{"trace-cmd -t", "             bash-22072 [000]   516.651193983: sched_wakeup:         comm=rcu_preempt pid=15 prio=120 target_cpu=000",
			0, 22072, 516_651_193_983, false, "sched_wakeup"},
		{"trace-cmd instance", "schedkit-probe2:      rcu_preempt-15    [000]   516.651218: sched_switch:         rcu_preempt:15 [120] W ==> bash:22072 [120]",
			0, 15, 516_651_218_000, false, "sched_switch"},
		{"trace-cmd -l", "schedkit-probe2:     bash-22072   0dNs3.   516.651193983: sched_wakeup:         comm=rcu_preempt pid=15 prio=120 target_cpu=000",
			0, 22072, 516_651_193_983, true, "sched_wakeup"},
		{"perf", "     migration/0    18 [000]   546.487318: sched:sched_migrate_task: comm=perf pid=23559 prio=120 orig_cpu=0 dest_cpu=1",
			0, 18, 546_487_318_000, false, "sched_migrate_task"},
		{"comm with spaces", "     Web Content-4242  [002] d..2.     1.5: sched_switch: x",
			2, 4242, 1_500_000_000, false, "sched_switch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ev, _, ok, err := parseHeader(tc.line)
			if err != nil || !ok {
				t.Fatalf("parseHeader = %v, %v", ok, err)
			}
			if ev.cpu != tc.cpu || ev.pid != tc.pid || ev.ts != tc.ts || ev.irq != tc.irq || ev.name != tc.event {
				t.Errorf("parseHeader = cpu %d pid %d ts %d irq %t %q; want cpu %d pid %d ts %d irq %t %q",
					ev.cpu, ev.pid, ev.ts, ev.irq, ev.name, tc.cpu, tc.pid, tc.ts, tc.irq, tc.event)
			}
		})
	}
}

func TestParseFieldsComms(t *testing.T) {
	var ev event
	ev.name = "sched_switch"
	if err := parseFields(&ev, "prev_comm=Web Content prev_pid=7 prev_prio=120 prev_state=R+ ==> next_comm=a=b next_pid=8 next_prio=99"); err != nil {
		t.Fatal(err)
	}
	if ev.prevComm != "Web Content" || ev.nextComm != "a=b" || ev.prevState != "R+" || ev.prevPid != 7 || ev.nextPrio != 99 {
		t.Errorf("parseFields = %+v", ev)
	}
	ev = event{name: "sched_wakeup"}
	if err := parseFields(&ev, "comm=x pid=3 prio=120 success=1 target_cpu=002"); err != nil {
		t.Fatal(err)
	}
	if ev.pid2 != 3 || ev.target != 2 {
		t.Errorf("parseFields(Linux 4.2 sched_wakeup) = %+v", ev)
	}
}
