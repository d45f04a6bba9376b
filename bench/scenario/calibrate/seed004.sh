#!/bin/bash
# seed004.sh measures, with the real programs, what seed004's hackbench, perf-bench-pipe and
# tbench cells are built from, and prints it as JSON:
#
#	bash bench/scenario/calibrate/seed004.sh > bench/scenario/data/seed004-calibration.json
#
# Needs Debian's rt-tests (hackbench), linux-perf (perf bench) and dbench (tbench), and python3.
# CPU times are user+system of the whole run from /usr/bin/time (other load does not add to
# them, unlike wall time); the median of the runs is kept.
set -euo pipefail
runs=${RUNS:-3}
loops=${LOOPS:-2000}
tmp=$(mktemp -d)
trap 'kill "$(cat "$tmp/srv.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$tmp"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# hackbench -g 1: 20 senders each write loops 100-byte messages to each of 20 receivers.
msgs=$((20 * 20 * loops))
hb() { # args: hackbench mode flags; prints median CPU ns per message
	for _ in $(seq "$runs"); do
		/usr/bin/time -f "%U %S" -o "$tmp/t" hackbench "$@" -g 1 -l "$loops" >/dev/null
		awk -v m="$msgs" '{printf "%d\n", ($1 + $2) * 1e9 / m}' "$tmp/t"
	done | median
}
pp=$(hb -P -p); ps=$(hb -P); tp=$(hb -T -p); ts=$(hb -T)

# perf bench sched pipe: two processes ping-pong one int through two pipes; one op is a round
# trip, two messages.
pl=100000
for _ in $(seq "$runs"); do
	/usr/bin/time -f "%U %S" -o "$tmp/t" perf bench sched pipe -l "$pl" >/dev/null
	awk -v m="$((2 * pl))" '{printf "%d\n", ($1 + $2) * 1e9 / m}' "$tmp/t"
done | median >"$tmp/pipe"

# Capacities in 100-byte messages: a pipe and an AF_UNIX stream socketpair, filled non-blocking.
caps=$(python3 - <<'PY'
import fcntl, os, socket
def fill(w):
    fcntl.fcntl(w, fcntl.F_SETFL, os.O_NONBLOCK)
    n = 0
    try:
        while True:
            os.write(w, b"x" * 100); n += 1
    except BlockingIOError:
        return n
r, w = os.pipe()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
print(fill(w), fill(a.fileno()))
PY
)

# tbench, one client against tbench_srv on loopback: CPU time and timeslices of the client and
# of the server's child, read from /proc/PID/stat and schedstat 5 s into a 6 s run.
tbench_srv >/dev/null 2>&1 &
echo $! >"$tmp/srv.pid"
sleep 0.5
tbench -t 6 -c /usr/share/dbench/client.txt 1 127.0.0.1 >"$tmp/tb" 2>&1 &
tb=$!
sleep 5
srv=$(pgrep -P "$(cat "$tmp/srv.pid")" | head -1)
cli=$(pgrep -x tbench | tail -1)
read -r scpu _ sslices <"/proc/$srv/schedstat"
read -r ccpu _ cslices <"/proc/$cli/schedstat"
wait "$tb" || true

cat <<JSON
{
  "method": "hackbench -g 1 -l $loops (rt-tests; 20 senders x 20 receivers, 100-byte messages) and perf bench sched pipe -l $pl, user+system CPU time of the whole run from /usr/bin/time divided by the messages, median of $runs runs; capacities by filling a pipe and an AF_UNIX stream socketpair with 100-byte non-blocking writes until EAGAIN; tbench (dbench) with one client on loopback, the CPU time and timeslices of the client and of tbench_srv's child from /proc/PID/schedstat 5 s into a 6 s run (one timeslice per request: each side blocks once per request)",
  "kernel": "$(uname -r)",
  "cpu": "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')",
  "hackbench": "$(hackbench --help 2>&1 | head -1)",
  "message_bytes": 100,
  "process_pipes_ns_per_message": $pp,
  "process_sockets_ns_per_message": $ps,
  "thread_pipes_ns_per_message": $tp,
  "thread_sockets_ns_per_message": $ts,
  "perf_pipe_ns_per_message": $(cat "$tmp/pipe"),
  "pipe_capacity_messages": ${caps% *},
  "socket_capacity_messages": ${caps#* },
  "tbench_server_ns_per_request": $((scpu / sslices)),
  "tbench_client_ns_per_request": $((ccpu / cslices))
}
JSON
