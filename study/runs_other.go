//go:build !windows

package study

// runsSupported returns nil: a study runs on this system (see runs_windows.go for the one it
// does not run on).
func runsSupported() error { return nil }
