// Package cfs models Linux's Completely Fair Scheduler.
package cfs
