package ipc

import (
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestParseHandles reads the handles that the front names on Windows: what FormatHandles
// writes comes back, and a value that does not name 1 to NumPipes positive handles that fit in a
// uintptr is refused with an error that says what was expected.
func TestParseHandles(t *testing.T) {
	tooLarge := new(big.Int).Lsh(big.NewInt(1), strconv.IntSize).String()
	for _, hs := range [][]uintptr{{4, 8, 0x1c, 0x20, 0xfffffffe, 12}, {4, 8}, {7}} {
		got, err := ParseHandles(FormatHandles(hs))
		if err != nil || !slices.Equal(got, hs) {
			t.Errorf("ParseHandles(FormatHandles(%v)) = %v, %v", hs, got, err)
		}
	}
	for _, c := range []struct{ v, want string }{
		{"", "is not set"},
		{"1,2,3,4,5,6,7", "want at most 6 handles separated by commas, got 7"},
		{",", `handle 1, "", is not a positive decimal number`},
		{"1,2,x,4,5,6", `handle 3, "x", is not a positive decimal number`},
		{"1,2,3,4,5,0", `handle 6, "0", is not a positive decimal number`},
		{"1,2,3,4,5,-6", `handle 6, "-6", is not a positive decimal number`},
		{"1,2,3,4,5, 6", `handle 6, " 6", is not a positive decimal number`},
		{"1,2,3,4,5,", `handle 6, "", is not a positive decimal number`},
		{"1,2,3,4,5,99999999999999999999", "is not a positive decimal number"},
		// one more than the largest uintptr: on 32-bit systems it would wrap to 0
		{"1," + tooLarge, `handle 2, "` + tooLarge + `", is not a positive decimal number`},
	} {
		h, err := ParseHandles(c.v)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), HandlesEnv) {
			t.Errorf("ParseHandles(%q) = %v, %v; want an error naming %s and saying %q", c.v, h, err, HandlesEnv, c.want)
		}
	}
}
