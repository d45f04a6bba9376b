module example.com/schedkit-user

go 1.26.0

require github.com/schedkit/schedkit v0.0.0-00010101000000-000000000000

require golang.org/x/sys v0.38.0 // indirect

replace github.com/schedkit/schedkit => ../..
