//go:build unix

package study

// runsSupported returns nil: a study runs on this system (see runs_windows.go and runs_none.go
// for those it does not run on).
func runsSupported() error { return nil }
