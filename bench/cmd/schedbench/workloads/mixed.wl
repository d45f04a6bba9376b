# Four nice-10 hogs, a 10 ms ticker and a producer-consumer pipe on a few CPUs: the mix of
# examples/simcompare, in which the policies differ most.
pipe work cap=4

thread hog count=4 nice=10
	run forever
end

thread ticker
	every 10ms
		run 500us
	end
end

thread producer
	loop
		run exp(2ms)
		send work
	end
end

thread consumer
	loop
		recv work
		run uniform(1ms,3ms)
	end
end
