// Package kernel is the front process of the gosbi Jupyter kernel.
package kernel

import "errors"

// Main runs the kernel front process. (Being built: see the kernel issue.)
func Main(args []string, version string) error { return errors.New("kernel: not built yet") }

// InstallMain installs the kernelspec. (Being built.)
func InstallMain(args []string) error { return errors.New("install: not built yet") }
