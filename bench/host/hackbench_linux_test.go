package host

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// bufferFigures fills the writing end w of a pipe or socket with 100-byte messages without
// blocking, then reads them back one at a time from r, polling w after each: it returns how
// many went in and how many had to be read before poll reported w writable again.
func bufferFigures(t *testing.T, r, w int) (capacity, room int) {
	t.Helper()
	require.NoError(t, unix.SetNonblock(w, true))
	msg := make([]byte, 100)
	for {
		n, err := unix.Write(w, msg)
		if err == unix.EAGAIN {
			break
		}
		require.NoError(t, err)
		require.Equal(t, len(msg), n, "a short write")
		capacity++
	}
	for room < capacity {
		pfd := []unix.PollFd{{Fd: int32(w), Events: unix.POLLOUT}}
		_, err := unix.Poll(pfd, 0)
		require.NoError(t, err)
		if pfd[0].Revents&unix.POLLOUT != 0 {
			return capacity, room
		}
		n, err := unix.Read(r, msg)
		require.NoError(t, err)
		require.Equal(t, len(msg), n, "a short read")
		room++
	}
	return capacity, room
}

// TestHackbenchBuffers measures, on this machine's kernel, the capacities and rooms the
// hackbench model gives its pipes and sockets (hackbenchPipeCap, hackbenchSocketRoom, …): a
// kernel with other buffer sizes or wake-up rules fails it, and the model's figures are then
// not this kernel's.
func TestHackbenchBuffers(t *testing.T) {
	var p [2]int
	require.NoError(t, unix.Pipe(p[:]))
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	capacity, room := bufferFigures(t, p[0], p[1])
	assert.Equal(t, hackbenchPipeCap, capacity, "pipe capacity")
	assert.Equal(t, hackbenchPipeRoom, room, "pipe room")

	s, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	require.NoError(t, err)
	defer unix.Close(s[0])
	defer unix.Close(s[1])
	// hackbench's senders write to one end, its receiver reads the other.
	capacity, room = bufferFigures(t, s[0], s[1])
	assert.Equal(t, hackbenchSocketCap, capacity, "socket capacity")
	assert.Equal(t, hackbenchSocketRoom, room, "socket room")
}
