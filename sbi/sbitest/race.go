//go:build race

package sbitest

// raceBuild is true when the race detector is on: it slows training about tenfold, so the
// suite then trains briefly and leaves the statistical check to the build without it.
const raceBuild = true
