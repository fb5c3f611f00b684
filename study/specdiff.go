package study

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDiffs is how many differences specDiff names.
const maxDiffs = 3

// specDiff says where the spec and scripts of manifest b differ from those of a (the one a
// study directory holds): at most maxDiffs places, each with both values, so that a refusal
// to run another spec in a directory says what changed.
func specDiff(a, b *manifest) string {
	var d []string
	add := func(format string, args ...any) { d = append(d, fmt.Sprintf(format, args...)) }
	if a.Spec.Name != b.Spec.Name {
		x, y := quoteWindow(a.Spec.Name, b.Spec.Name)
		add("name %s there, %s in this spec", x, y)
	}
	if an, bn := axisNames(a.Spec), axisNames(b.Spec); !slices.Equal(an, bn) {
		x, y := listWindow(an, bn)
		add("axes %s there, %s in this spec", x, y)
	} else {
		for k, ax := range a.Spec.Axes {
			if bv := b.Spec.Axes[k].Values; !slices.Equal(ax.Values, bv) {
				x, y := listWindow(ax.Values, bv)
				add("axis %q: values %s there, %s in this spec", ax.Name, x, y)
			}
		}
	}
	d = append(d, stageDiff(a, b)...)
	keys := map[string]bool{}
	for k := range a.Spec.Params {
		keys[k] = true
	}
	for k := range b.Spec.Params {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		av, aok := a.Spec.Params[k]
		bv, bok := b.Spec.Params[k]
		switch {
		case !aok:
			add("params %q: absent there, %s in this spec", k, quoteWindowOne(bv))
		case !bok:
			add("params %q: %s there, absent in this spec", k, quoteWindowOne(av))
		case av != bv:
			x, y := quoteWindow(av, bv)
			add("params %q: %s there, %s in this spec", k, x, y)
		}
	}
	if len(d) == 0 {
		return "their stored forms differ"
	}
	if len(d) > maxDiffs {
		d = append(d[:maxDiffs], fmt.Sprintf("and %d more", len(d)-maxDiffs))
	}
	return strings.Join(d, "; ")
}

// stageDiff names the stages of b that differ from those of a, and the stages whose script
// differs.
func stageDiff(a, b *manifest) []string {
	as, bs := a.Spec.Stages, b.Spec.Stages
	if len(as) != len(bs) {
		names := func(st []Stage) []string {
			var out []string
			for _, s := range st {
				out = append(out, s.Name)
			}
			return out
		}
		x, y := listWindow(names(as), names(bs))
		return []string{fmt.Sprintf("stages %s there, %s in this spec", x, y)}
	}
	var d []string
	ka, kb := 0, 0 // the indexes of the stages' scripts in a.Scripts and b.Scripts
	for i, st := range as {
		other := bs[i]
		if st.Name != other.Name || !slices.Equal(st.Over, other.Over) || st.All != other.All ||
			st.Func != other.Func || st.Script != other.Script {
			d = append(d, fmt.Sprintf("stage %q differs (over, all, func or script file)", st.Name))
		}
		// Create stores every script stage with a Script path and its source in Scripts, in
		// the order of the stages, so each side counts its own.
		if st.Script != "" && other.Script != "" && ka < len(a.Scripts) && kb < len(b.Scripts) && a.Scripts[ka] != b.Scripts[kb] {
			d = append(d, fmt.Sprintf("the script of stage %q differs (the study's is %s)", st.Name, st.Script))
		}
		if st.Script != "" {
			ka++
		}
		if other.Script != "" {
			kb++
		}
	}
	return d
}

func axisNames(s *Spec) []string {
	out := make([]string, len(s.Axes))
	for i, a := range s.Axes {
		out[i] = a.Name
	}
	return out
}

// listWindow writes two lists of names or values as "[a b c]", cut as quoteWindow cuts.
func listWindow(a, b []string) (string, string) {
	x, y := "["+strings.Join(a, " ")+"]", "["+strings.Join(b, " ")+"]"
	return window(x, y)
}

// diffContext is how many bytes quoteWindow keeps before the first difference, and from it on.
const diffContext = 20

// quoteWindow quotes two different strings, each cut to diffContext bytes before where they
// first differ and diffContext bytes from there, with "…" where it was cut: a long value (the spec of a
// certification) is shown where it changed.
func quoteWindow(a, b string) (string, string) {
	x, y := window(a, b)
	return strconv.Quote(x), strconv.Quote(y)
}

// quoteWindowOne quotes s, cut after 2·diffContext bytes.
func quoteWindowOne(s string) string {
	if len(s) <= 2*diffContext {
		return strconv.Quote(s)
	}
	hi := 2 * diffContext
	for hi < len(s) && !utf8.RuneStart(s[hi]) {
		hi++
	}
	return strconv.Quote(s[:hi] + "…")
}

// window cuts a and b to diffContext bytes before their first difference and diffContext
// bytes from it (on character boundaries).
func window(a, b string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(i-diffContext, 0)
	for lo > 0 && (!utf8.RuneStart(a[lo])) {
		lo--
	}
	cut := func(s string) string {
		hi := min(i+diffContext, len(s))
		for hi < len(s) && !utf8.RuneStart(s[hi]) {
			hi++
		}
		out := s[lo:hi]
		if lo > 0 {
			out = "…" + out
		}
		if hi < len(s) {
			out += "…"
		}
		return out
	}
	return cut(a), cut(b)
}
