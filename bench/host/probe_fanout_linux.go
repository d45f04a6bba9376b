package host

// This file implements the fan-out probe: hackbench's message in hackbench's shape, a sender on
// one CPU writing round-robin into several pipes or socket pairs and a receiver on another CPU
// reading them, neither blocking.

import (
	"cmp"
	"fmt"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/schedkit/schedkit/topology"
)

// probeIPCFanout measures hackbench's message in hackbench's shape: a sender pinned to other
// writes n messages of size bytes round-robin into k pipes (socket false) or AF_UNIX stream
// socket pairs, and a receiver pinned to cpu reads them in the same order, each pipe or socket
// holding at most depth messages. Neither blocks: they keep each other in step through two
// counters in memory (the receiver reads message i only once its write has returned; the
// sender writes message i only once message i−k·depth has been read), spinning in user code
// between their system calls, so no sleep, wake-up or EAGAIN is in the figures (as long as depth
// messages fit in a pipe or socket: beyond that the blocking write would sleep). It returns
// each message's time in its write (on other) and in its read (on cpu), both between two clock
// reads on a pinned thread in the shield group, in message order, for the n messages after the
// first k·depth, which fill the queues to their depth.
//
// Unlike probeIPCShared, every message is written on one CPU and read on the other: the
// reader frees the memory the writer allocated (for a socket, the skb of unix_stream_sendmsg,
// freed by consume_skb in unix_stream_read_generic, whose destructor unix_destruct_scm ends in
// sock_wfree: the skb's size back to the writer's sk_wmem_alloc, then unix_write_space), and k sockets' locks and
// queues cycle through both CPUs' caches, as in hackbench.
func (pr *prober) probeIPCFanout(cpu, other topology.CPU, size, k, depth, n int, socket bool) (write, read []int64, err error) {
	if k < 1 || depth < 1 || n < 1 || size < 8 {
		panic(fmt.Sprintf("host: probeIPCFanout: k %d, depth %d, n %d, size %d: want positive counts and at least 8 bytes", k, depth, n, size))
	}
	w, r, closeAll, err := fanoutPairs(k, socket)
	if err != nil {
		return nil, nil, err
	}
	defer closeAll()
	// The first k·depth messages fill the queues to their depth and are not kept.
	warm := k * depth
	total := int64(warm + n)
	var sent, got atomic.Int64
	var abort atomic.Bool
	write, read = make([]int64, 0, n), make([]int64, 0, n)
	sender := pr.onThread(other, func() error {
		buf := make([]byte, size)
		clk := newClock()
		for i := int64(0); i < total; i++ {
			for i-got.Load() >= int64(k*depth) {
				if abort.Load() {
					return nil
				}
			}
			*(*int64)(unsafe.Pointer(&buf[0])) = i
			t0 := clk.now()
			c, _, e := syscall.RawSyscall(unix.SYS_WRITE, uintptr(w[i%int64(k)]), uintptr(unsafe.Pointer(&buf[0])), uintptr(size))
			t1 := clk.now()
			if e != 0 || int(c) != size {
				abort.Store(true)
				return fmt.Errorf("host: probe: write of message %d: %d bytes of %d (%v)", i, c, size, errnoErr(e))
			}
			if i >= int64(warm) {
				write = append(write, t1-t0)
			}
			sent.Store(i + 1)
		}
		return nil
	})
	receiver := pr.onThread(cpu, func() error {
		buf := make([]byte, size)
		clk := newClock()
		for i := int64(0); i < total; i++ {
			for sent.Load() <= i {
				if abort.Load() {
					return nil
				}
			}
			t0 := clk.now()
			c, _, e := syscall.RawSyscall(unix.SYS_READ, uintptr(r[i%int64(k)]), uintptr(unsafe.Pointer(&buf[0])), uintptr(size))
			t1 := clk.now()
			if e != 0 || int(c) != size {
				abort.Store(true)
				return fmt.Errorf("host: probe: read of message %d: %d bytes of %d (%v)", i, c, size, errnoErr(e))
			}
			if stamp := *(*int64)(unsafe.Pointer(&buf[0])); stamp != i {
				abort.Store(true)
				return fmt.Errorf("host: probe: read message %d where %d was due", stamp, i)
			}
			if i >= int64(warm) {
				read = append(read, t1-t0)
			}
			got.Store(i + 1)
		}
		return nil
	})
	serr, rerr := <-sender, <-receiver
	if err = cmp.Or(serr, rerr); err != nil {
		return nil, nil, err
	}
	return write, read, nil
}

// errnoErr is e as an error, nil for 0.
func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// fanoutPairs opens k pipes or socket pairs (ipcPair) and returns their ends to write and to
// read, and a function that closes them all.
func fanoutPairs(k int, socket bool) (w, r []int, closeAll func(), err error) {
	var closers []func()
	closeAll = func() {
		for _, c := range closers {
			c()
		}
	}
	for range k {
		wi, ri, c, err := ipcPair(socket)
		if err != nil {
			closeAll()
			return nil, nil, nil, err
		}
		w, r, closers = append(w, wi), append(r, ri), append(closers, c)
	}
	return w, r, closeAll, nil
}
