module github.com/schedkit/schedkit

go 1.24.0

require golang.org/x/sys v0.38.0

require github.com/google/btree v1.1.3

require gonum.org/v1/gonum v0.17.0

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
