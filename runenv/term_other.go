//go:build !linux && !darwin

package runenv

import "os"

// terminalWidth reports a character device as a terminal of unknown width.
func terminalWidth(f *os.File) (int, bool) {
	st, err := f.Stat()
	return 0, err == nil && st.Mode()&os.ModeCharDevice != 0
}
