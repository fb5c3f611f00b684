//go:build !unix

package kernel

// signalDeath returns "": processes do not end by signals here.
func signalDeath(waitErr error) string { return "" }
