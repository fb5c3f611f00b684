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

func TestPercent(t *testing.T) {
	for _, c := range []struct {
		p    float64
		want string
	}{
		{0.95, "95%"},
		{0.9, "90%"},
		{0.5, "50%"},
		{0.995, "99.5%"},
		{0.999, "99.9%"},
		{0.9999, "99.99%"},
		{0.99995, "99.995%"},
		{0.99999, "99.999%"},
		{1 - 1e-12, "99.9999999999%"},
		{1, "100%"},
		{0.12345, "12.35%"},
		{0, "0%"},
	} {
		if got := Percent(c.p); got != c.want {
			t.Errorf("Percent(%v) = %q, want %q", c.p, got, c.want)
		}
	}
}

func TestList(t *testing.T) {
	for _, c := range []struct {
		items []string
		conj  string
		want  string
	}{
		{nil, "or", ""},
		{[]string{"a"}, "or", "a"},
		{[]string{"a", "b"}, "or", "a or b"},
		{[]string{"a", "b", "c"}, "and", "a, b and c"},
	} {
		if got := List(c.items, c.conj); got != c.want {
			t.Errorf("List(%q, %q) = %q, want %q", c.items, c.conj, got, c.want)
		}
	}
}
