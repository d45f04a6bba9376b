# One CPU hog: runs until the time limit.
thread hog
	run forever
end
