module github.com/schedkit/schedkit

go 1.24
