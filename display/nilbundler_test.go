package display

import "testing"

// derefBundler reads its receiver, as viz.Plot's MIMEBundle does.
type derefBundler struct{ name string }

func (b *derefBundler) MIMEBundle() map[string]any { return map[string]any{MIMEText: b.name} }

// nilSafeBundler shows something of its own for a nil receiver.
type nilSafeBundler struct{}

func (b *nilSafeBundler) MIMEBundle() map[string]any {
	if b == nil {
		return map[string]any{MIMEText: "no result"}
	}
	return map[string]any{MIMEText: "result"}
}

// TestRenderNilPointerBundler: the nil result of a call that failed, shown beside its error
// (`p, err := viz.Density2D(…)` as a cell's last expression), read "<cannot display *viz.Plot:
// runtime error: invalid memory address or nil pointer dereference>"; it reads "<nil>", as fmt
// prints a nil pointer whose method panics. A MIMEBundle that handles a nil receiver is used.
func TestRenderNilPointerBundler(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"nil pointer, MIMEBundle dereferences", (*derefBundler)(nil), "<nil>"},
		{"nil pointer, MIMEBundle handles nil", (*nilSafeBundler)(nil), "no result"},
		{"non-nil pointer", &derefBundler{name: "plot"}, "plot"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Render(tc.v)[MIMEText]; got != tc.want {
				t.Errorf("Render = %q, want %q", got, tc.want)
			}
		})
	}
}
