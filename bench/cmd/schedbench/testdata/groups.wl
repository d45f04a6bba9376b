# Two hogs in control groups of different weights: needs a policy with group scheduling (CFS),
# or -flatten.
group light weight=50
group heavy weight=200

thread a group=light
	run forever
end

thread b group=heavy
	run forever
end
