package sim_test

// must returns x, or panics with err: the tests' and examples' way of building a policy from
// Params known to be valid (ule.New and bsd4.New return an error for invalid ones).
func must[T any](x T, err error) T {
	if err != nil {
		panic(err)
	}
	return x
}
