// Package nbtest executes notebooks through the kernel.
package nbtest

import "errors"

// RunMain is `gosbi run`. (Being built: see the notebooks issue.)
func RunMain(args []string) error { return errors.New("run: not built yet") }
