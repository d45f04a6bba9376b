# The workload every policy runs in the tests: CPU hogs at two nice levels, a pipeline, a
# latency-sensitive periodic thread, a make -j job tree, and one pinned thread.
pipe stage1 cap=8
pipe stage2 cap=8

thread hog count=4
	run forever
end

thread niced count=4 nice=20
	run forever
end

thread src
	loop
		run exp(300us)
		send stage1
	end
end

thread filter count=2
	loop
		recv stage1
		run uniform(100us,400us)
		send stage2
	end
end

thread sink
	loop
		recv stage2
		run 50us
	end
end

thread ticker
	every 5ms
		run 200us
	end
end

template cc
	run uniform(5ms,25ms)
	sleep uniform(200us,2ms)
	run uniform(2ms,5ms)
end

thread make
	loop
		fork cc 4
		join
		sleep 1ms
	end
end

thread pinned cpus=3
	loop
		run 2ms
		sleep 1ms
	end
end
