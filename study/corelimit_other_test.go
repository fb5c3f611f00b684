//go:build !unix

package study_test

// noCoreFiles does nothing: this system has no core-file limit to lower.
func noCoreFiles() {}
