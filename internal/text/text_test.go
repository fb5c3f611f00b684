package text

import "testing"

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "directories"}, {1, "directory"}, {2, "directories"}, {-1, "directories"}} {
		if got := Plural(c.n, "directory", "directories"); got != c.want {
			t.Errorf("Plural(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{0, "value", "0 values"},
		{1, "value", "1 value"},
		{2, "value", "2 values"},
		{1, "i.i.d. trial", "1 i.i.d. trial"},
		{12, "i.i.d. trial", "12 i.i.d. trials"},
		{-3, "argument", "-3 arguments"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
