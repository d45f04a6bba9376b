package slicememo

import "testing"

// TestMemo checks that Get answers only for the key Put remembered: a zero Memo holds nothing,
// a key that differs in any one word misses, and a key whose entity count is 0 never hits.
func TestMemo(t *testing.T) {
	k := [7]uint64{3, 3 << 20, 7, 1 << 20, 6e6, 750e3, 8}
	get := func(m *Memo, k [7]uint64) (uint64, bool) { return m.Get(k[0], k[1], k[2], k[3], k[4], k[5], k[6]) }
	var m Memo
	if _, ok := get(&m, k); ok {
		t.Fatalf("Get on a zero Memo hit")
	}
	m.Put(k[0], k[1], k[2], k[3], k[4], k[5], k[6], 42)
	if v, ok := get(&m, k); !ok || v != 42 {
		t.Fatalf("Get(k) = %d, %t; want 42, true", v, ok)
	}
	for i := range k {
		for _, d := range []uint64{1, 1 << 32} {
			o := k
			o[i] += d
			if v, ok := get(&m, o); ok {
				t.Errorf("word %d changed by %#x: Get = %d, true; want a miss", i, d, v)
			}
		}
	}
	var z Memo
	z.Put(0, 0, 0, 0, 0, 0, 0, 5)
	if _, ok := z.Get(0, 0, 0, 0, 0, 0, 0); ok {
		t.Errorf("a key with entity count 0 hit")
	}
}
