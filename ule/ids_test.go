package ule_test

import "github.com/schedkit/schedkit/sched"

func schedID(i int) sched.ID { return sched.ID(i) }
