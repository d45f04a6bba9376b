thread t count=1000000
	run 1us
end
