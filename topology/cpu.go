// This file implements CPU, the typed CPU id.

package topology

import "strconv"

// MaxCPUs is the number of CPU ids a [CPUSet] can hold: ids run from 0 to
// MaxCPUs-1. It matches FreeBSD's default MAXCPU on amd64 and is the smallest
// NR_CPUS distribution kernels ship with.
const MaxCPUs = 1024

// A CPU is a logical CPU id, the number Linux prints as "cpu3" and FreeBSD
// as "cpuid 3": one hardware thread. Valid ids are below [MaxCPUs].
type CPU uint16

// String returns the Linux sysfs name of c, such as "cpu3".
func (c CPU) String() string {
	return "cpu" + strconv.Itoa(int(c))
}
