// Package task holds simulators and benchmark tasks.
package task

import "errors"

// DataMain is `gosbi data`. (Being built: see the tasks issue.)
func DataMain(args []string) error { return errors.New("data: not built yet") }
