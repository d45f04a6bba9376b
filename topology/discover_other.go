//go:build !linux

// This file implements Discover on systems other than Linux.

package topology

// Discover returns the topology of the machine it runs on. Only Linux is
// supported; here it returns [ErrNotSupported].
func Discover() (*Topology, error) {
	return nil, ErrNotSupported
}
