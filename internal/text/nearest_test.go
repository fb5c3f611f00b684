package text

import "testing"

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "ab", 2}, {"kitten", "sitting", 3},
		{"TrainLos", "TrainLoss", 1}, {"Epcohs", "Epochs", 2}, {"θ", "x", 1}, {"same", "same", 0},
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := EditDistance(c.b, c.a); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestNearest(t *testing.T) {
	members := []string{"BestEpoch", "Epochs", "TrainLoss", "ValLoss", "String"}
	for _, c := range []struct {
		name string
		cand []string
		want string
	}{
		{"trainLoss", members, "TrainLoss"},               // case only
		{"TrainLos", members, "TrainLoss"},                // one edit
		{"Epcohs", members, "Epochs"},                     // two edits
		{"Foo", members, ""},                              // nothing close
		{"ValLoss", members, ""},                          // a member: nothing to suggest
		{"epochs", []string{"Epoch", "EPOCHS"}, "EPOCHS"}, // case outranks one edit
		{"ab", []string{"ax", "ay"}, "ax"},                // a tie: the first
		{"x", nil, ""},
	} {
		if got := Nearest(c.name, c.cand); got != c.want {
			t.Errorf("Nearest(%q, %q) = %q, want %q", c.name, c.cand, got, c.want)
		}
	}
}
