# A thread pinned to CPU 5: refused on a machine with fewer CPUs.
thread pinned cpus=5
	run forever
end
