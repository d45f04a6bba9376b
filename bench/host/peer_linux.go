package host

// This file implements the peers of a run: real programs started in a workload group with
// attributes, in their own process group, and killed with it at the end of the run.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/schedkit/schedkit/sched"
)

// maxPeerOutput bounds the output kept of each peer.
const maxPeerOutput = 1 << 20

// A peerProc is a running peer.
type peerProc struct {
	peer    Peer
	cmd     *exec.Cmd
	out     limitedBuffer
	done    chan struct{}
	res     PeerResult
	start   int64
	stopped bool
}

// A limitedBuffer keeps the first maxPeerOutput bytes written to it.
type limitedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := maxPeerOutput - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// checkPeers reports what the host cannot do for the peers.
func checkPeers(peers []Peer, groups map[string]bool) []string {
	var missing []string
	for _, p := range peers {
		switch {
		case len(p.Args) == 0:
			missing = append(missing, fmt.Sprintf("peer %s: no program", p.Name))
			continue
		case p.Attr.Class.RealTime():
			missing = append(missing, fmt.Sprintf("peer %s: class %s: a real-time peer is not bounded by the runner", p.Name, p.Attr.Class))
		case p.Group != "" && !groups[p.Group]:
			missing = append(missing, fmt.Sprintf("peer %s: no group %s", p.Name, p.Group))
		}
		for _, tool := range append(wrappers(p.Attr), p.Args[0]) {
			if _, err := exec.LookPath(tool); err != nil {
				missing = append(missing, fmt.Sprintf("peer %s: %s is not installed", p.Name, tool))
			}
		}
	}
	return missing
}

// wrappers returns the programs that set a peer's attributes before it starts.
func wrappers(a sched.Attr) []string {
	var w []string
	if !a.Affinity.IsEmpty() {
		w = append(w, "taskset")
	}
	if a.Class == sched.Batch || a.Class == sched.Idle {
		w = append(w, "chrt")
	}
	if a.Nice != 0 {
		w = append(w, "nice")
	}
	return w
}

// peerArgv returns the command line that starts p: sh waits for the runner's go-ahead on file
// descriptor 3 (see startPeers), puts itself into the group if procs is not empty, then execs
// taskset, chrt and nice, which exec the program, so that the program and everything it forks
// start in the group with the attributes.
func peerArgv(p Peer, procs string) []string {
	// A closed descriptor instead of the go-ahead (the runner died first) ends sh: read fails.
	gate := `read -r go <&3 || exit 125; exec 3<&-; `
	argv := []string{"sh", "-c", gate + `exec "$@"`, "sh"}
	if procs != "" {
		argv = []string{"sh", "-c", gate + `echo $$ > "$0" && exec "$@"`, procs}
	}
	if !p.Attr.Affinity.IsEmpty() {
		argv = append(argv, "taskset", "-c", p.Attr.Affinity.String())
	}
	switch p.Attr.Class {
	case sched.Batch:
		argv = append(argv, "chrt", "--batch", "0")
	case sched.Idle:
		argv = append(argv, "chrt", "--idle", "0")
	}
	if p.Attr.Nice != 0 {
		argv = append(argv, "nice", "-n", strconv.Itoa(p.Attr.Nice))
	}
	return append(argv, p.Args...)
}

// startPeers starts the run's peers, each in a process group of its own, recorded (see
// peerRecord) so that the next run kills what is left of them if this runner is killed outright.
// A peer's first process, sh, waits on a pipe until its group is recorded: nothing it forks can
// run before the record that lets the next run find it, so a SIGKILL at any moment leaves nothing
// unswept. If the runner dies before the go-ahead, the pipe's closed end ends sh.
func (r *runner) startPeers() error {
	if len(r.opts.Peers) > 0 {
		r.record = newPeerRecord()
	}
	for _, p := range r.opts.Peers {
		procs := ""
		if p.Group != "" && r.cg != nil {
			procs = r.cg.procsFile(p.Group)
		}
		argv := peerArgv(p, procs)
		pp := &peerProc{peer: p, done: make(chan struct{}), res: PeerResult{Name: p.Name}}
		pp.cmd = exec.Command(argv[0], argv[1:]...)
		pp.cmd.Stdout, pp.cmd.Stderr = &pp.out, &pp.out
		pp.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		gateR, gateW, err := os.Pipe()
		if err != nil {
			return fmt.Errorf("host: peer %s: %w", p.Name, err)
		}
		pp.cmd.ExtraFiles = []*os.File{gateR} // descriptor 3
		pp.start = r.clk.now()
		err = pp.cmd.Start()
		gateR.Close()
		if err != nil {
			gateW.Close()
			return fmt.Errorf("host: peer %s: %w", p.Name, err)
		}
		r.peers = append(r.peers, pp)
		r.record.add(pp.cmd.Process.Pid)
		_, _ = gateW.Write([]byte("go\n"))
		gateW.Close()
		go func() {
			err := pp.cmd.Wait()
			pp.res.End = r.clk.now() - r.t0
			pp.res.Err = err
			close(pp.done)
		}()
	}
	return nil
}

// stopPeers kills every peer's process group and waits for the peers. It may be called more
// than once.
func (r *runner) stopPeers() {
	for _, pp := range r.peers {
		if pp.stopped {
			continue
		}
		pp.stopped = true
		select {
		case <-pp.done:
			pp.res.Exited = true
		default:
			_ = syscall.Kill(-pp.cmd.Process.Pid, syscall.SIGKILL)
			select {
			case <-pp.done:
			case <-time.After(Grace):
			}
			pp.res.Err = nil
		}
		_ = syscall.Kill(-pp.cmd.Process.Pid, syscall.SIGKILL) // what it forked and left behind
		pp.res.Start = pp.start - r.t0
		pp.res.Output = pp.out.String()
	}
	r.record.remove()
	r.record = nil
}
