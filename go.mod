module github.com/gosbi/gosbi

go 1.26

require (
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20230729102104-8b8060e7531f
)

require golang.org/x/tools v0.30.0 // indirect
