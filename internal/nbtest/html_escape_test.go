package nbtest

import (
	"strings"
	"testing"
)

// bad is text that HTML would read as markup: a page shows it as text only when escaped.
const bad = `<b>x</b>&"'`

// TestRenderHTMLEscapes puts markup into every text of a notebook that the page shows: each
// must come out as text, and a data URL must not end its attribute early. HTML and SVG
// outputs are markup by their MIME type and stay as they are (see WriteHTML).
func TestRenderHTMLEscapes(t *testing.T) {
	one := 1
	nb := &Notebook{Cells: []*Cell{
		{CellType: "code", Source: "fmt.Println(\"" + bad + "\") // " + bad, ExecutionCount: &one, Outputs: []*Output{
			{OutputType: "stream", Name: "stdout", Text: bad + "\n"},
			{OutputType: "stream", Name: bad, Text: "x"},
			{OutputType: "error", Ename: bad, Evalue: bad},
			{OutputType: "error", Ename: "E", Evalue: "v", Traceback: []string{bad}},
			{OutputType: "execute_result", ExecutionCount: &one, Data: map[string]any{"text/plain": bad}},
			{OutputType: "display_data", Data: map[string]any{"text/latex": bad}},
			{OutputType: "display_data", Data: map[string]any{"application/json": map[string]any{bad: bad}}},
			{OutputType: "display_data", Data: map[string]any{"text/markdown": bad + " $" + bad + "$ `" + bad + "`"}},
			{OutputType: "display_data", Data: map[string]any{"image/png": bad}},
		}},
		{CellType: "markdown", Source: bad + "\n\n`" + bad + "` $" + bad + "$\n\n[" + bad + "](http://a/" + bad + ")"},
		{CellType: "markdown", Source: "[a](javascript:alert(1))"},
		{CellType: "raw", Source: bad},
	}}
	page := string(RenderHTML(nb, bad))
	body := page[strings.Index(page, "<body>"):]
	for _, raw := range []string{"<b>x</b>", `&"`, "javascript:"} {
		if strings.Contains(page, raw) {
			t.Errorf("%q from the notebook kept unescaped in the page:\n%s", raw, body)
		}
	}
	if !strings.Contains(page, `base64,&lt;b&gt;x&lt;/b&gt;&amp;&#34;&#39;" alt="figure"`) {
		t.Errorf("image data not escaped in its attribute:\n%s", body)
	}

	trusted := &Notebook{Cells: []*Cell{{CellType: "code", Source: "x", Outputs: []*Output{
		{OutputType: "display_data", Data: map[string]any{"text/html": "<i>h</i>", "text/plain": "h"}},
		{OutputType: "display_data", Data: map[string]any{"image/svg+xml": "<svg><text>s</text></svg>", "text/plain": "s"}},
	}}}}
	page = string(RenderHTML(trusted, "t"))
	for _, markup := range []string{"<i>h</i>", "<svg><text>s</text></svg>"} {
		if !strings.Contains(page, markup) {
			t.Errorf("output markup %q not in the page as it is:\n%s", markup, page[strings.Index(page, "<body>"):])
		}
	}
}
