# A bit of everything, for the determinism tests: random durations, pipes, forks, periodic
# wake-ups, attribute changes, affinity, yields.
pipe req cap=4
pipe resp

template job
	run exp(2ms)
	sleep uniform(100us,900us)
	run uniform(1ms,3ms)
end

thread client count=3
	loop
		run exp(200us)
		send req
		recv resp
	end
end

thread server count=2 nice=-5
	loop
		recv req
		run uniform(50us,400us)
		send resp
	end
end

thread make cpus=0-3
	repeat 4
		fork job 6
		join
		yield
	end
end

thread ticker class=fifo rtprio=10
	every 7ms
		run 300us
	end
end

thread hog nice=10
	run 20ms
	nice 19
	cpus 4-7
	loop
		run 5ms
		sleep 1ms
	end
end
