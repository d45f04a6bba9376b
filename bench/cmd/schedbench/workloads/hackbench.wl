# A small hackbench (perf bench sched messaging): 2 groups of 4 senders and 4 receivers on
# pipes; a sender sends after each 20 us of work, a receiver works 30 us per message.
pipe g0 cap=16
pipe g1 cap=16

thread send0 count=4
	loop
		run 20us
		send g0
	end
end

thread recv0 count=4
	loop
		recv g0
		run 30us
	end
end

thread send1 count=4
	loop
		run 20us
		send g1
	end
end

thread recv1 count=4
	loop
		recv g1
		run 30us
	end
end
