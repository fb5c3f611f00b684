module github.com/gosbi/gosbi

go 1.26

require (
	github.com/traefik/yaegi v0.16.2-0.20260209085605-fcb76d1ece0c
	gonum.org/v1/gonum v0.17.0
	gonum.org/v1/netlib v0.0.0-20230729102104-8b8060e7531f
)

require golang.org/x/tools v0.30.0 // indirect
