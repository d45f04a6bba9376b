module github.com/schedkit/schedkit

go 1.24

require github.com/google/btree v1.1.3
