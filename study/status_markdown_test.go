package study

import (
	"strings"
	"testing"

	"github.com/gosbi/gosbi/internal/nbtest"
)

// The status display is Markdown; the names and messages it quotes are text in it: an error's
// "<nil>" is not an HTML tag that the notebook hides, "*T" pointers are not emphasis, and a "|"
// in a stage name does not split its table cell.
func TestStatusMarkdownQuotesText(t *testing.T) {
	job := JobInfo{Index: 3, Stage: "a|b", Key: "seed=1"}
	st := &Status{Study: `<b>x</b>&"'`,
		Stages:  []StageCount{{Stage: "a|b", Counts: map[State]int{Failed: 1}, Total: 1}},
		Failed:  []FailedJob{{Job: job, Failure: Failure{Error: "got <nil>, want *mat.Dense or *int_x_"}}},
		Invalid: []InvalidRecord{{Job: job, Reason: "[link](http://a) `code`"}},
		Damaged: []DamagedFile{{Job: job, What: "failure note", Path: "dir/failed/00003.json", Reason: "# heading"}},
	}
	h := nbtest.Markdown(st.MIMEBundle()["text/markdown"].(string))
	for _, want := range []string{
		"&lt;b&gt;x&lt;/b&gt;&amp;",
		"got &lt;nil&gt;, want *mat.Dense or *int_x_",
		"<td>a|b</td>",
		"[link](http://a) `code`",
		": # heading",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("the status does not show %q as text:\n%s", want, h)
		}
	}
}
