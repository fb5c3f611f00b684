//go:build !windows

package kernel

// workersSupported returns nil: the worker gets its pipes as inherited file descriptors.
func workersSupported() error { return nil }
