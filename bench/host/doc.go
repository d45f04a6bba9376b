// Package host plays a workload of package workload on the real kernel of the machine it runs
// on, with real OS threads, and measures it as the simulator in bench/sim measures a simulated
// run, so that the model's prediction can be put beside the kernel's behaviour.
package host
