thread hog
	run forevr
end
