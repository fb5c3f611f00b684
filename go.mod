module github.com/gosbi/gosbi

go 1.26
