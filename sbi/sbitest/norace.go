//go:build !race

package sbitest

// raceBuild is true when the race detector is on (see race.go).
const raceBuild = false
