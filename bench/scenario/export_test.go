package scenario

// SetCellEvents sets the bound of a cell's events for a test and returns the function that
// restores it.
func SetCellEvents(n uint64) func() {
	old := cellEvents
	cellEvents = n
	return func() { cellEvents = old }
}

// WalkLatencies exposes walkLatencies to the tests.
var WalkLatencies = walkLatencies

// Charge exposes charge to the tests.
var Charge = charge

// AddCost exposes addCost to the tests.
var AddCost = addCost
