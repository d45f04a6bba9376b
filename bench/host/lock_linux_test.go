package host

import (
	"context"
	"testing"
	"time"
)

// TestLockHost checks that the machine-wide lock excludes a second holder until the first lets
// go, and that a waiter gives up when its context ends.
func TestLockHost(t *testing.T) {
	unlock, err := lockHost(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := lockHost(ctx); err == nil {
		t.Fatal("a second lockHost got the lock while the first held it")
	}
	got := make(chan time.Time)
	go func() {
		u, err := lockHost(context.Background())
		if err != nil {
			t.Error(err)
		}
		got <- time.Now()
		u()
	}()
	time.Sleep(50 * time.Millisecond)
	released := time.Now()
	unlock()
	if at := <-got; at.Before(released) {
		t.Errorf("the waiter got the lock at %v, before it was released at %v", at, released)
	}
}
