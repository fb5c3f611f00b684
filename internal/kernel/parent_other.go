//go:build !unix

package kernel

// watchParent does nothing where processes cannot be probed with signal 0.
func watchParent(k *Kernel) {}
