module github.com/gosbi/gosbi

go 1.26

require (
	github.com/traefik/yaegi v0.16.2-0.20260209085605-fcb76d1ece0c
	gonum.org/v1/gonum v0.17.0
)

require golang.org/x/tools v0.30.0 // indirect
